package session

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// TestUnitCosts: each thing counted, divided by the successful units, in
// result.CostKeys' order; what was not counted is left out; no unit, no
// cost.
func TestUnitCosts(t *testing.T) {
	res := &result.Result{
		Harness:   &result.Harness{CPUPerUnitUs: 12},
		ServerCPU: &result.ServerCPU{CPUPerUnitUs: 45},
		DeviceIO:  &result.DeviceIO{Device: "vda", ReadBytes: 0, WrittenBytes: 4 * 1024 * 1000},
	}
	got := unitCosts(res, map[string]int64{"flushes": 990, "wal_bytes": 436000, "commits": 1000}, 1000, "pg_stat_wal")
	want := []struct {
		key string
		v   float64
	}{{result.CostServerCPU, 45}, {result.CostHarnessCPU, 12}, {result.CostRead, 0}, {result.CostWritten, 4}, {result.CostFlushes, 0.99}, {result.CostLogBytes, 436}}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i, w := range want {
		if got[i].Key != w.key || got[i].Value != w.v || got[i].Source == "" {
			t.Errorf("%d: %+v, want %s = %v", i, got[i], w.key, w.v)
		}
	}
	if got[4].Source != "pg_stat_wal" {
		t.Errorf("flushes from %q", got[4].Source)
	}
	// An embedded engine, no device known, no counters: dbgauge's CPU alone.
	got = unitCosts(&result.Result{Harness: &result.Harness{CPUPerUnitUs: 3, InProcess: true}}, nil, 10, "")
	if len(got) != 1 || got[0].Key != result.CostHarnessCPU || got[0].Source != "dbgauge's process, the engine inside it (getrusage)" {
		t.Errorf("embedded: %+v", got)
	}
	if got := unitCosts(res, nil, 0, ""); got != nil {
		t.Errorf("no unit: %+v", got)
	}
}
