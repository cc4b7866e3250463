package session_test

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestAppendWriteSkew: on two keys, PostgreSQL's repeatable read (snapshot
// isolation) lets write skew through, which append's checker finds, and no
// G0, G1, G-single or lost update; serializable lets none through.
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
	args := map[string]string{"db": "postgres:managed", "clients": "8", "duration": "2s", "keys": "2", "ops": "2-4", "crash-recovery": "false", "ceiling": "off"}
	args["isolation"] = "repeatable-read"
	rr := count(workloadtest.Exec(t, w, args))
	if rr["G2-item"] == 0 {
		t.Errorf("repeatable read: no write skew found: %v", rr)
	}
	for _, k := range []string{"G0", "G1a", "G1b", "G1c", "G-single", "lost-update"} {
		if rr[k] != 0 {
			t.Errorf("repeatable read (snapshot isolation): %s found %v times", k, rr[k])
		}
	}
	args["isolation"] = "serializable"
	res := workloadtest.Exec(t, w, args)
	for _, c := range res.Checks {
		if !c.OK {
			t.Errorf("serializable: %s: %s", c.Name, c.Detail)
		}
	}
}
