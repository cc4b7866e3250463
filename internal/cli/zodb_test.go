package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/powerloss"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestZODBWorkerCost: a run on zodb records what its worker cost over the
// measure phase beside dbgauge's own: a request for each unit's commit,
// the worker's CPU, and the engine counted out of dbgauge's process.
func TestZODBWorkerCost(t *testing.T) {
	testenv.PythonEnv(t, zodb.Env)
	dir := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "--db", "zodb", "--units", "200", "--results", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "result.json"))
	if len(paths) != 1 {
		t.Fatalf("results %v", paths)
	}
	r, err := result.Load(filepath.Dir(paths[0]))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Harness
	if h == nil || h.Worker == nil || h.InProcess {
		t.Fatalf("harness %+v", h)
	}
	// insert commits each unit: a request each, beside the client's one
	// look at its table and the engine's counters read at the phase's ends.
	if w := h.Worker; w.Requests < 200 || w.Requests > 203 || w.Seconds <= 0 || w.CPUPerRequestUs <= 0 {
		t.Errorf("worker %+v, want 200 commits' requests (and up to 3 more) and their CPU", w)
	}
	if !strings.Contains(out, "its worker processes used") {
		t.Errorf("the summary does not show the worker's cost:\n%s", out)
	}
}

// TestCrashZODB kills insert on ZODB's FileStorage (the worker, with the
// run) and on a managed ZEO server (kill -9 of runzeo) at sync: a commit is
// fsynced in tpc_finish before it is acknowledged, so nothing acknowledged
// may be lost; each storage must open again and pass ZODB's fstest.
func TestCrashZODB(t *testing.T) {
	inParallel(t)
	testenv.PythonEnv(t, zodb.Env)
	rec, _, _ := runCrash(t, "insert", "--db", "zodb,zeo:managed", "--durability", "sync", "--cycles", "2",
		"--fault-after", "500ms-1s", "--seed", "43")
	if len(rec.Configs) != 2 {
		t.Fatalf("%d configurations, want zodb and zeo", len(rec.Configs))
	}
	for _, c := range rec.Configs {
		for _, cy := range c.Cycles {
			if !cy.Started || !cy.IntegrityOK || cy.Acknowledged == 0 || cy.Lost != 0 || cy.Phantom != 0 || cy.Error != "" ||
				!strings.Contains(cy.Integrity, "fstest") {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
		}
		if !strings.HasPrefix(c.Verdict, "as documented") {
			t.Errorf("%s: verdict %q", c.Key, c.Verdict)
		}
	}
}

// TestCrashZODBPowerLoss cuts the power under insert on FileStorage and on
// a managed ZEO server at sync (every write never flushed dropped): a
// commit is fsynced in tpc_finish before it is acknowledged, so nothing
// acknowledged may be lost.
func TestCrashZODBPowerLoss(t *testing.T) {
	inParallel(t)
	testenv.Need(t, powerloss.Available())
	testenv.PythonEnv(t, zodb.Env)
	rec, _, _ := runCrash(t, "insert", "--db", "zodb,zeo:managed", "--durability", "sync", "--power-loss", "--cycles", "1",
		"--fault-after", "500ms-1s", "--seed", "44")
	for _, c := range rec.Configs {
		for _, cy := range c.Cycles {
			if !cy.Started || !cy.IntegrityOK || cy.Acknowledged == 0 || cy.Lost != 0 || cy.Phantom != 0 || cy.Dropped == "" {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
		}
		if !strings.HasPrefix(c.Verdict, "as documented") {
			t.Errorf("%s: verdict %q", c.Key, c.Verdict)
		}
	}
}

// TestZODBEnvMissing: a run on zodb whose --zodb-env holds no virtualenv
// is bad input: exit 2, one line naming the flag, nothing run.
func TestZODBEnvMissing(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "--db", "zodb", "--zodb-env", dir, "--units", "10", "--results", t.TempDir())
	if code != ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "--zodb-env "+dir) {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errs, out)
	}
}

// TestEnginesInstall: `dbgauge engines install` names what it made, read
// back from the environment's interpreter, prints the pins with --print,
// and refuses an environment it does not know as bad input.
func TestEnginesInstall(t *testing.T) {
	testenv.PythonEnv(t, zodb.Env)
	code, out, errs := runCLI(t, nil, "engines", "install", "zodb")
	if code != ExitOK || !strings.Contains(out, "ZODB 6.4, ZEO 6.2") {
		t.Errorf("install: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = runCLI(t, nil, "engines", "install", "--print")
	if code != ExitOK || !strings.Contains(out, "\nZODB==6.4\n") || !strings.Contains(out, "\nZEO==6.2\n") {
		t.Errorf("--print: exit %d, stdout %q", code, out)
	}
	for _, args := range [][]string{{"engines", "install", "nope"}, {"engines", "nope"}, {"engines", "install", "--dir", t.TempDir(), "zodb", "zodb"}} {
		code, _, errs := runCLI(t, nil, args...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}
