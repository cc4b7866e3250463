package cli

import (
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestCrashZODB kills insert on ZODB's FileStorage (the worker, with the
// run) and on a managed ZEO server (kill -9 of runzeo) at sync: a commit is
// fsynced in tpc_finish before it is acknowledged, so nothing acknowledged
// may be lost; each storage must open again and pass ZODB's fstest.
func TestCrashZODB(t *testing.T) {
	crashInParallel(t)
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

// TestZODBEnvMissing: a run on zodb whose --zodb-env holds no virtualenv
// is bad input: exit 2, one line naming the flag, nothing run.
func TestZODBEnvMissing(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "--db", "zodb", "--zodb-env", dir, "--units", "10", "--results", t.TempDir())
	if code != ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "--zodb-env "+dir) {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errs, out)
	}
}
