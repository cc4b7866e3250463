package tpcc_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload/tpcc"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestRunOnSQLite loads one warehouse (the spec's whole population: the
// load's own check of conditions 1-12 must hold), runs the five
// transactions, and holds the result to TPC-C's figures and conditions; a
// second run reuses the population; a district's D_NEXT_O_ID advanced
// behind the transactions' back fails condition 3.3.2.2, by name, in
// `dbgauge check tpcc` (session.CheckOnly).
func TestRunOnSQLite(t *testing.T) {
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		testenv.Skip(t, "no sqlite3 shell: apt-get install sqlite3")
	}
	db := filepath.Join(t.TempDir(), "tpcc.db")
	args := map[string]string{"db": "sqlite:" + db, "units": "300", "clients": "4", "check": "load"}
	res := workloadtest.Run(t, tpcc.Spec, map[string]string{"db": "sqlite:" + db, "units": "5", "clients": "1", "check": "load"})
	if res.Dataset.Reused {
		t.Fatal("the first run reused a dataset")
	}
	if c := check(res, "load: condition 3.3.2.11"); c == nil || !c.OK {
		t.Fatalf("condition 11 was not checked on the population just loaded: %+v", res.Checks)
	}
	args["check"] = "all"
	res = workloadtest.Run(t, tpcc.Spec, args)
	if !res.Dataset.Reused {
		t.Fatal("the second run did not reuse the population")
	}
	if check(res, "condition 3.3.2.12") == nil || check(res, "condition 3.3.2.11") != nil {
		t.Fatalf("--check all: want 1-10 and 12 after a run, got %+v", res.Checks)
	}
	figs := map[string]result.Figure{}
	for _, f := range res.Summary.Figures {
		figs[f.Name] = f
	}
	tpmC, nopm := figs["tpmC"], figs["NOPM"]
	if tpmC.Value <= 0 || nopm.Value <= 0 || nopm.Value > tpmC.Value {
		t.Fatalf("tpmC %v, NOPM %v: want both above 0 and NOPM at most tpmC", tpmC.Value, nopm.Value)
	}
	m := res.Phase("measure")
	for _, u := range m.Units {
		if u.Failed > 0 {
			t.Errorf("%s: %d failed", u.Name, u.Failed)
		}
	}
	for _, op := range m.Ops {
		if op.Failed > 0 {
			t.Errorf("operation %s: %d errors (the spec's rollback is not one)", op.Name, op.Failed)
		}
	}
	if p := figs["new-order p90"].Pass; p == nil {
		t.Errorf("no verdict on New-Order's 90th percentile: %+v", res.Summary.Figures)
	}

	out, err := exec.Command(sqlite3, db, "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 7").CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	v := session.NewValues(tpcc.Spec)
	v.Set("db", "sqlite:"+db)
	plan, err := session.NewPlan(session.Request{Workload: tpcc.Spec, Values: v, Args: []string{"test"}})
	if err != nil {
		t.Fatal(err)
	}
	checks, _, err := plan.CheckOnly(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		want := c.Name != "condition 3.3.2.2"
		if c.OK != want {
			t.Errorf("%s: ok %v, want %v (%s)", c.Name, c.OK, want, c.Detail)
		}
		if !c.OK && !strings.Contains(c.Detail, "d_id 7") {
			t.Errorf("%s does not name the district: %s", c.Name, c.Detail)
		}
	}
	if len(checks) != 4 {
		t.Errorf("the audited conditions are 1-4, got %d checks", len(checks))
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
