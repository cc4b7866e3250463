package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// TestLoadThenRun: dbgauge load fills sqlite:PATH and reports its time; a
// run on the same path and dataset knobs reuses it; a throwaway --db and a
// list are refused.
func TestLoadThenRun(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "objects.db")
	knobs := []string{"--db", db, "--conferences", "200", "--contributions", "3", "--load-workers", "3"}
	code, out, errOut := runCLI(t, nil, append([]string{"load", "objects"}, knobs...)...)
	if code != 0 || !strings.Contains(out, "loaded in") || !strings.Contains(out, "records/s") {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "loading: 1100 of 1100 records") {
		t.Errorf("no progress line reached the end: %s", errOut)
	}
	code, out, _ = runCLI(t, nil, append([]string{"load", "objects"}, knobs...)...)
	if code != 0 || !strings.Contains(out, "reused") {
		t.Fatalf("second load: exit %d\n%s", code, out)
	}
	results := filepath.Join(dir, "results")
	code, out, errOut = runCLI(t, nil, append([]string{"run", "objects", "--phase", "hot", "--objects", "50", "--clients", "2",
		"--duration", "300ms", "--ceiling", "off", "--results", results}, knobs...)...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	m, _ := filepath.Glob(filepath.Join(results, "*", "result.json"))
	if len(m) != 1 {
		t.Fatalf("%d results", len(m))
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	var res result.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Dataset.Reused {
		t.Fatalf("the run did not reuse the loaded dataset: %+v", res.Dataset)
	}
	if code, _, errOut := runCLI(t, nil, "load", "objects", "--db", "sqlite"); code != ExitUsage || !strings.Contains(errOut, "throwaway") {
		t.Fatalf("a throwaway --db: exit %d, %s", code, errOut)
	}
	if code, _, errOut := runCLI(t, nil, "load", "objects", "--db", db, "--conferences", "10,20"); code != ExitUsage || !strings.Contains(errOut, "no lists") {
		t.Fatalf("a list: exit %d, %s", code, errOut)
	}
}
