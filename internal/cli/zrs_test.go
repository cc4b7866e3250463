package cli

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/zodb/zrs"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestZRSTopologies: dbgauge cluster run on zrs:managed builds each
// topology, every secondary replicating from its upstream (read back from
// its log) and its lag sampled, no server left after.
func TestZRSTopologies(t *testing.T) {
	inParallel(t)
	testenv.PythonEnv(t, zrs.Env)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "cluster", "run", "insert", "--db", "zrs:managed", "--topology", "1,2-chain",
		"--duration", "2s", "--warmup", "0", "--results", root, "--ceiling", "off", "--crash-recovery=false")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	want := map[string]map[string]string{
		"1":       {"r1": "replicating from primary (Connected)"},
		"2-chain": {"r1": "replicating from primary (Connected)", "r2": "replicating from r1 (Connected)"},
	}
	cells := cellResults(t, root)
	for _, r := range cells {
		topo := r.Config.Knobs.Text("topology")
		c := r.Cluster
		if c == nil || c.Topology != topo || len(c.Nodes) != 1+len(want[topo]) || len(c.Writable) != 1 || c.Writable[0] != "primary" {
			t.Fatalf("%s: %+v", topo, c)
		}
		for name, st := range want[topo] {
			if c.Following[name] != st {
				t.Errorf("%s: %s %q, want %q", topo, name, c.Following[name], st)
			}
		}
		lagged := false
		for _, s := range r.Series {
			if _, lagged = s.Lag["lag_bytes:r1"]; lagged {
				break
			}
		}
		if !lagged || r.Summary.OK == 0 || !r.Summary.ChecksOK {
			t.Errorf("%s: lag sampled %v, ok %d, checks %v", topo, lagged, r.Summary.OK, r.Summary.ChecksOK)
		}
	}
	if len(cells) != 2 {
		t.Fatalf("%d cells", len(cells))
	}
	noServersLeft(t, cells)
}

// TestZRSFailover: dbgauge cluster failover on zrs:managed with one and
// with two secondaries kills the primary, restarts the secondary furthest
// ahead (r1 in 1) as the primary on its replicated data, and the clients'
// writes resume on it: the downtime measured between two
// acknowledgements, the acknowledged commits lost counted against the
// ledger (ZRS is asynchronous: a loss fails the checks, exit 1, and only
// then), the promoted one alone accepting writes after.
func TestZRSFailover(t *testing.T) {
	inParallel(t)
	testenv.PythonEnv(t, zrs.Env)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "cluster", "failover", "insert", "--db", "zrs:managed", "--topology", "1,2-direct",
		"--at", "2s", "--duration", "10s", "--warmup", "0", "--results", root, "--ceiling", "off")
	cells := cellResults(t, root)
	if len(cells) != 2 {
		t.Fatalf("exit %d, %d cells\n%s\n%s", code, len(cells), out, errs)
	}
	lost := false
	for _, r := range cells {
		f := r.Cluster.Failover
		// The direct secondary whose file ends with the latest transaction
		// is promoted (docs/backends/zrs.md): r1, the only one in 1; either
		// in 2-direct, whichever replication left ahead.
		promotable := map[string]bool{"r1": true, "r2": r.Cluster.Topology == "2-direct"}
		if f == nil || !promotable[f.Promoted] || f.SplitBrain || f.Error != "" || f.DowntimeSeconds <= 0 || f.FirstAckT <= f.KillT || f.Acknowledged == 0 {
			t.Fatalf("%s: %+v", r.Cluster.Topology, f)
		}
		if len(r.Cluster.Writable) != 1 || r.Cluster.Writable[0] != f.Promoted {
			t.Errorf("%s: writable after: %v, want the promoted %s alone", r.Cluster.Topology, r.Cluster.Writable, f.Promoted)
		}
		if (f.Lost == 0) != r.Summary.ChecksOK {
			t.Errorf("%s: %d acknowledged commits lost, checks ok %v", r.Cluster.Topology, f.Lost, r.Summary.ChecksOK)
		}
		lost = lost || f.Lost > 0
		t.Logf("%s: writes down %.2f s, %d of %d acknowledged commits lost", r.Cluster.Topology, f.DowntimeSeconds, f.Lost, f.Acknowledged)
	}
	if want := map[bool]int{false: ExitOK, true: ExitUnmet}[lost]; code != want {
		t.Errorf("exit %d, want %d\n%s", code, want, errs)
	}
	noServersLeft(t, cells)
}
