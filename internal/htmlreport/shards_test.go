package htmlreport_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/htmlreport"
	"github.com/dbgauge/dbgauge/internal/result"
)

// TestMergedPage: a merged result shows its shards side by side with the
// whole, what was left out, and a partial one says so in its header.
func TestMergedPage(t *testing.T) {
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	res := &result.Result{
		Schema: result.Schema, ID: "merged", Status: result.Completed,
		Config:  result.Config{Workload: "kv", Unit: "record", UnitRate: "records/s", Backend: "postgres", Clients: 4},
		Summary: result.Summary{Metric: "records/s", Rate: 2000, OK: 6000, Seconds: 3, ChecksOK: true},
		Phases:  []result.Phase{{Name: "measure", Start: start, End: start.Add(3 * time.Second), Seconds: 3, OK: 6000, Rate: 2000, All: result.Latency{Name: "all", Count: 6000}}},
		Merged: &result.Merged{Count: 3, Partial: true, Missing: []string{"shard 2 (run/shard-2) incomplete: running"}, ClockCorrected: true, StartSpreadSeconds: 0.004,
			Shards: []result.MergedShard{
				{Index: 0, Clients: 2, FirstClient: 0, Status: result.Completed, Environment: result.Environment{Hostname: "load-a"}, Summary: result.Summary{Rate: 1234.5, OK: 3703},
					Shard: result.Shard{Clock: &result.Clock{Measured: true, OffsetUs: -1500, RTTUs: 200}}},
				{Index: 1, Clients: 2, FirstClient: 2, Status: result.Completed, Environment: result.Environment{Hostname: "load-b"}, Summary: result.Summary{Rate: 765.5, OK: 2297}},
			}},
	}
	page := render(t, htmlreport.Page{Run: res})
	for _, want := range []string{"partial: 2 of 3 shards", ">Shards<", ">load-a<", ">load-b<", "2 (2–3)", "-1.500 ms ±0.100", "shard 2 (run/shard-2) incomplete: running", ">merged<", "Each shard"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the merged page lacks %q", want)
		}
	}
	res.Merged = nil
	if page := render(t, htmlreport.Page{Run: res}); bytes.Contains(page, []byte(">Shards<")) {
		t.Error("a run's page shows a shards section")
	}
}
