package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// TestMergeShards: two shards of a run on one SQLite file merge into one
// result; when one of them died mid-run (its result still says running,
// as kill -9 leaves it), merge names it and refuses, exit 2, and merges
// the other only with --partial, into a result marked partial.
func TestMergeShards(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	for _, i := range []string{"0", "1"} {
		t.Setenv(jobIndexVar, i) // --shard /2: the index from Kubernetes' variable
		code, _, stderr := runCLI(t, nil, "run", "kv", "--db", "sqlite:"+filepath.Join(dir, "kv.db"), "--records", "500",
			"--clients", "2", "--units", "40", "--shard", "/2", "--results", run, "--ceiling", "off")
		if code != 0 {
			t.Fatalf("shard %s: exit %d: %s", i, code, stderr)
		}
	}
	shards := []string{filepath.Join(run, "shard-0"), filepath.Join(run, "shard-1")}
	code, stdout, stderr := runCLI(t, nil, append([]string{"merge", "--out", filepath.Join(run, "merged")}, shards...)...)
	if code != 0 || lastLine(stdout) != "exit 0: all 2 shards merged; every check of the whole holds, every requirement met" {
		t.Fatalf("merge: exit %d, last line %q: %s", code, lastLine(stdout), stderr)
	}
	res, err := result.Load(filepath.Join(run, "merged"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.OK != 40 || res.Config.Clients != 4 || res.Merged == nil || res.Merged.Partial || !strings.Contains(stdout, "shards: 2 of 2 merged") {
		t.Fatalf("merged ok %d, clients %d, merged %+v; want 40, 4, whole:\n%s", res.Summary.OK, res.Config.Clients, res.Merged, stdout)
	}
	if _, err := os.Stat(filepath.Join(run, "merged", ReportFile)); err != nil {
		t.Fatal(err)
	}

	// Shard 1 killed: its record is what the last save left.
	path := filepath.Join(shards[1], result.FileName)
	killed, err := result.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	killed.Status, killed.Ended, killed.Phases = result.Running, nil, []result.Phase{}
	b, _ := json.Marshal(killed)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, nil, append([]string{"merge", "--out", filepath.Join(run, "merged2")}, shards...)...)
	if code != ExitUsage || !strings.Contains(stderr, "shard 1 (") || !strings.Contains(stderr, "--partial") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("merge with a killed shard: exit %d, %q; want 2 and one line naming shard 1 and --partial", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(run, "merged2")); !os.IsNotExist(err) {
		t.Fatalf("a refused merge left its folder (%v)", err)
	}
	// Merged anyway, the whole is not the run's: exit 3, as for a run that
	// did not all run, and the last line says which shard is missing.
	code, stdout, stderr = runCLI(t, nil, append([]string{"merge", "--partial", "--out", filepath.Join(run, "merged2")}, shards...)...)
	if code != ExitFailed || !strings.HasPrefix(lastLine(stdout), "exit 3: the result is partial, 1 of 2 shards merged: shard 1 (") {
		t.Fatalf("merge --partial: exit %d, last line %q: %s", code, lastLine(stdout), stderr)
	}
	res, err = result.Load(filepath.Join(run, "merged2"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Merged.Partial || res.Summary.OK != 20 || len(res.Merged.Shards) != 1 {
		t.Fatalf("partial %v, ok %d, %d shards; want true, 20, 1", res.Merged.Partial, res.Summary.OK, len(res.Merged.Shards))
	}
}

// TestMergeUnmet: a requirement judged again on the merged whole and not
// met is exit 1, as for a run (merge exited 0), the last line naming it
// with what the whole measured.
func TestMergeUnmet(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	for _, i := range []string{"0", "1"} {
		code, _, stderr := runCLI(t, nil, "run", "kv", "--db", "sqlite:"+filepath.Join(dir, "kv.db"), "--records", "200",
			"--clients", "1", "--units", "20", "--shard", i+"/2", "--results", run, "--ceiling", "off", "--require", "records/s>=1000000000")
		if code != ExitUnmet {
			t.Fatalf("shard %s: exit %d: %s", i, code, stderr)
		}
	}
	code, stdout, stderr := runCLI(t, nil, "merge", "--out", filepath.Join(run, "merged"), filepath.Join(run, "shard-0"), filepath.Join(run, "shard-1"))
	if code != ExitUnmet || !strings.HasPrefix(lastLine(stdout), "exit 1: on the whole, --require records/s>=1000000000 (measured ") {
		t.Fatalf("merge: exit %d, last line %q\n%s\n%s", code, lastLine(stdout), stdout, stderr)
	}
}
