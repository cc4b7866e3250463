package tpcb_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload/tpcb"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestBalancesMoveTogether: the check holds the four sums to moving by the
// same amount during the run. A dataset changed between runs (history
// emptied, as pgbench does before a run; a balance moved) still passes; a
// change made during the run behind the transactions' back fails.
func TestBalancesMoveTogether(t *testing.T) {
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		testenv.Skip(t, "no sqlite3 shell: apt-get install sqlite3")
	}
	db := filepath.Join(t.TempDir(), "tpcb.db")
	args := map[string]string{"db": "sqlite:" + db, "units": "200", "clients": "2"}
	workloadtest.Run(t, tpcb.Spec, args)
	shell := func(sql string) {
		t.Helper()
		if out, err := exec.Command(sqlite3, db, sql).CombinedOutput(); err != nil {
			t.Fatalf("sqlite3: %v: %s", err, out)
		}
	}
	shell("DELETE FROM pgbench_history; UPDATE pgbench_accounts SET abalance = abalance + 7 WHERE aid = 1")
	res := workloadtest.Run(t, tpcb.Spec, args)
	if !res.Dataset.Reused {
		t.Fatal("the second run did not reuse the dataset")
	}
	// Every history row also moves teller 1 by one: the tellers' sum drifts.
	shell("CREATE TRIGGER drift AFTER INSERT ON pgbench_history BEGIN UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = 1; END")
	res = workloadtest.Exec(t, tpcb.Spec, args)
	if c := check(res, "balances_agree"); c == nil || c.OK || !strings.Contains(c.Detail, "tellers") {
		t.Fatalf("a drift of the tellers' sum passed: %+v", c)
	}
}

func check(res *result.Result, name string) *result.Check {
	for i := range res.Checks {
		if res.Checks[i].Name == name {
			return &res.Checks[i]
		}
	}
	return nil
}
