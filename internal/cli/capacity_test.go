package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// TestCapacityNoRateHeld: a goal no rate can meet (p99 under a
// microsecond, counted from each intended start) breaks every step, the
// search halves the rate from --first-rate until it would go below one a
// second, and dbgauge capacity exits 1 saying so.
func TestCapacityNoRateHeld(t *testing.T) {
	inParallel(t)
	dir := t.TempDir()
	code, out, errOut := runCLI(t, nil, "capacity", "kv", "--records", "1000", "--slo", "p99<1us", "--first-rate", "4",
		"--step", "4s", "--warmup", "1s", "--progress", "0", "--results", dir)
	if code != ExitUnmet || !strings.Contains(out, "no rate met p99<1us") {
		t.Fatalf("exit %d, want %d; stdout %s; stderr %s", code, ExitUnmet, out, errOut)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", result.FileName))
	if len(paths) != 1 {
		t.Fatalf("%d results", len(paths))
	}
	res, err := result.Load(filepath.Dir(paths[0]))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Capacity
	if c == nil || c.Knee != 0 || c.Found || len(c.Steps) != 3 {
		t.Fatalf("capacity %+v: want three steps, none held", c)
	}
	for i, want := range []float64{4, 2, 1} {
		if st := c.Steps[i]; st.Rate != want || st.Held || !strings.Contains(strings.Join(st.Broke, ";"), "p99<1us") {
			t.Fatalf("step %d: %+v, want %v/s broken by its p99", i+1, st, want)
		}
	}
}
