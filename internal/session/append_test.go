package session_test

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestAppendWriteSkew: PostgreSQL's repeatable read (snapshot isolation)
// lets write skew through, which append's checker finds, and no G0, G1,
// G-single or lost update; serializable lets none through. A count of
// units, not a duration, ends each run: under -race on a loaded machine a
// 1 s or 2 s run can hold too few transactions to meet (such a run once
// found no skew). Four keys and two operations a transaction give about
// ten G2-item components in 400 transactions (8-16 measured).
func TestAppendWriteSkew(t *testing.T) {
	needPostgres(t)
	count := func(res *result.Result) map[string]float64 {
		out := map[string]float64{}
		for _, f := range res.Summary.Figures {
			out[f.Name] = f.Value
		}
		return out
	}
	w := spec(t, "append")
	args := map[string]string{"db": "postgres:managed", "clients": "8", "duration": "0s", "units": "400", "keys": "4", "ops": "2", "crash-recovery": "false", "ceiling": "off"}
	args["isolation"] = "repeatable-read"
	rrRes := workloadtest.Exec(t, w, args)
	rr := count(rrRes)
	if rr["G2-item"] == 0 {
		t.Errorf("repeatable read: no write skew found: %v; %s", rr, rrRes.Checks[0].Detail)
	}
	for _, k := range []string{"G0", "G1a", "G1b", "G1c", "G-single", "lost-update"} {
		if rr[k] != 0 {
			t.Errorf("repeatable read (snapshot isolation): %s found %v times", k, rr[k])
		}
	}
	args["isolation"], args["units"] = "serializable", "200"
	res := workloadtest.Exec(t, w, args)
	for _, c := range res.Checks {
		if !c.OK {
			t.Errorf("serializable: %s: %s", c.Name, c.Detail)
		}
	}
}
