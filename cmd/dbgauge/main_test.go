package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestKill9 kills dbgauge without warning 10 s into a 60 s run: the result
// left behind parses and holds at least 9 seconds of the series.
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 10 s")
	}
	bin := testenv.Build(t, ".")
	dir := t.TempDir()
	// As for a user who probed this disk today: the run starts at once.
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	probe := exec.Command(bin, "disk", "--path", dir, "--duration", "100ms", "--method", "fdatasync", "--pattern", "rewrite", "--results", t.TempDir())
	probe.Env = env
	if out, err := probe.CombinedOutput(); err != nil {
		t.Fatalf("dbgauge disk: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "run", "nms", "--duration", "60s", "--warmup", "0", "--lines", "900", "--results", dir)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("want one result folder, got %v (%v)", entries, err)
	}
	res, err := result.Load(filepath.Join(dir, entries[0].Name()))
	if err != nil {
		t.Fatalf("the result left by kill -9 does not parse: %v", err)
	}
	if res.Status != result.Running {
		t.Errorf("status %q: a killed run cannot have said anything else than running", res.Status)
	}
	if len(res.Series) < 9 {
		t.Fatalf("the result holds %d seconds of the series, want at least 9", len(res.Series))
	}
	if m := res.Phase("measure"); m == nil || m.OK == 0 || m.All.Hist == "" {
		t.Fatalf("the measure phase so far is missing or empty: %+v", m)
	}
}

// TestExitStatus runs the binary: the status reaches the shell.
func TestExitStatus(t *testing.T) {
	bin := testenv.Build(t, ".")
	err := exec.Command(bin, "run", "nms", "--require", "calls/s>>16").Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("malformed --require: %v, want exit status 2", err)
	}
}
