package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/child"
	"github.com/dbgauge/dbgauge/internal/placement"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/verdict"
)

// --cpus harness=N keeps dbgauge's process on CPU N, with as many Ps, and
// says so in the result; the summary says whether the harness was the
// limit. dbgauge runs as a process of its own here: the placement is the
// whole process's.
func TestCPUsHarness(t *testing.T) {
	allowed, err := placement.Allowed(0)
	if err != nil {
		t.Fatal(err)
	}
	cpu := placement.Set{allowed[len(allowed)-1]}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	var outb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outb, &outb
	err = child.Start(cmd, child.Spec{Role: child.RoleRun, Run: &child.Run{Args: []string{"kv", "--mix", "read=100", "--records", "2000", "--clients", "8",
		"--duration", "1s", "--warmup", "0", "--ceiling", "off", "--cpus", "harness=" + cpu.String(), "--results", dir}}})
	if err == nil {
		err = cmd.Wait()
	}
	out := outb.Bytes()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "result.json"))
	if len(paths) != 1 {
		t.Fatalf("%d results", len(paths))
	}
	r, err := result.Load(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	h := r.Harness
	if h == nil || !h.Placed || h.CPUs != cpu.String() || h.CPUCount != 1 || h.GoMaxProcs != 1 {
		t.Fatalf("harness record %+v, want it placed on CPU %s with GOMAXPROCS 1", h, cpu)
	}
	// Eight clients of SQLite reads, engine inside, on one CPU: the CPU is
	// busy. Whether dbgauge alone kept it so depends on what else the
	// machine runs (the suite's other packages, a CPU hog): "yes" when it
	// did, "maybe" when it took a part of it, as it measured.
	if h.CPUsBusy < verdict.Busy {
		t.Errorf("its CPU was %.2f busy under eight clients of SQLite reads", h.CPUsBusy)
	}
	want, says := "yes", "so that process is the limit"
	if h.Cores < verdict.Busy {
		want, says = "maybe", "the harness could be the limit"
	}
	if h.Limit != want || !strings.Contains(string(out), says) {
		t.Errorf("limit %q after %.2f cores on a CPU %.2f busy, want %q; verdict %q; summary:\n%s", h.Limit, h.Cores, h.CPUsBusy, want, h.Verdict, out)
	}
	if !strings.Contains(string(out), "on CPUs "+cpu.String()+" (--cpus)") {
		t.Errorf("the summary does not say where dbgauge ran:\n%s", out)
	}
}
