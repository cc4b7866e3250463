package verdict

import (
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

func TestHarness(t *testing.T) {
	for _, c := range []struct {
		name  string
		h     result.Harness
		sc    *result.ServerCPU
		limit string
		says  string
	}{
		{"pinned to one CPU and saturated", result.Harness{Cores: 0.98, CPUCount: 1, GoMaxProcs: 1, Placed: true, CPUsBusy: 1},
			nil, "yes", "kept its 1 CPU busy, so the harness is the limit"},
		{"an engine inside it", result.Harness{Cores: 1.95, CPUCount: 2, GoMaxProcs: 2, InProcess: true, CPUsBusy: 2},
			nil, "yes", "with the engine inside it"},
		{"GOMAXPROCS below its CPUs", result.Harness{Cores: 0.95, CPUCount: 4, GoMaxProcs: 1, CPUsBusy: 1.2},
			nil, "yes", "kept the machine's 1 CPU busy"},
		{"shared and busy, a large share", result.Harness{Cores: 0.7, CPUCount: 2, GoMaxProcs: 2, CPUsBusy: 1.95, Share: 0.35},
			&result.ServerCPU{Cores: 1.2, CPUCount: 2, CPUsBusy: 1.95}, "maybe", "took 35 % of them"},
		{"an engine inside it, other processes busy", result.Harness{Cores: 1.3, CPUCount: 2, GoMaxProcs: 2, InProcess: true, CPUsBusy: 1.94, Share: 0.65},
			nil, "maybe", "took 65 % of them and other processes the rest: run it where nothing else runs"},
		{"shared and busy, a small share", result.Harness{Cores: 0.41, CPUCount: 2, GoMaxProcs: 2, CPUsBusy: 1.96, Share: 0.205},
			&result.ServerCPU{Cores: 1.52, CPUCount: 2, CPUsBusy: 1.96}, "no", "the server's CPUs were busy"},
		{"apart, the server saturated", result.Harness{Cores: 0.4, CPUCount: 1, GoMaxProcs: 1, Placed: true, CPUsBusy: 0.42, Share: 0.2},
			&result.ServerCPU{Cores: 0.99, CPUCount: 1, CPUsBusy: 1}, "no", "not the limit"},
		{"idle", result.Harness{Cores: 0.1, CPUCount: 2, GoMaxProcs: 2, CPUsBusy: 0.5},
			nil, "no", "which were 75 % idle"},
		// A small share of dbgauge's own, a large one with its workers'.
		{"shared and busy, workers of its own", result.Harness{Cores: 0.2, CPUCount: 2, GoMaxProcs: 2, CPUsBusy: 1.95, Share: 0.1, Worker: &result.WorkerCost{Cores: 0.5}},
			&result.ServerCPU{Cores: 1.2, CPUCount: 2, CPUsBusy: 1.95}, "maybe", "dbgauge and its workers took 35 % of them"},
		{"busy, the engine in its workers", result.Harness{Cores: 0.2, CPUCount: 2, GoMaxProcs: 2, CPUsBusy: 1.95, Share: 0.1, Worker: &result.WorkerCost{Cores: 1.1}},
			nil, "maybe", "dbgauge and its workers (the engine in them) took 65 % of them"},
		{"the server busy, workers of its own", result.Harness{Cores: 0.1, CPUCount: 2, GoMaxProcs: 2, CPUsBusy: 1.95, Share: 0.05, MachineCPUs: 2, Worker: &result.WorkerCost{Cores: 0.3}},
			&result.ServerCPU{Cores: 1.5, CPUCount: 2, CPUsBusy: 1.95}, "no", "dbgauge and its workers took 20 % of the machine"},
	} {
		h := c.h
		Harness(&h, c.sc, "transaction")
		if h.Limit != c.limit || !strings.Contains(h.Verdict, c.says) || !strings.Contains(h.Verdict, "per transaction") {
			t.Errorf("%s: %s, %q; want %s, saying %q", c.name, h.Limit, h.Verdict, c.limit, c.says)
		}
	}
}
