package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// noServersLeft fails the test when a process still runs on the cluster of
// one of results: a managed server (primary or replica) dbgauge left behind.
// Replicas live in their primary's folder.
func noServersLeft(t *testing.T, results []*result.Result) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, r := range results {
		if r.Server == nil {
			t.Fatalf("%s: no server recorded", r.ID)
		}
		base := filepath.Dir(r.Server.DataDir)
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), base+"/") {
				t.Errorf("a server was left running: %s", strings.ReplaceAll(string(b), "\x00", " "))
			}
		}
	}
}

// cellResults loads every cell's result of the one matrix under root.
func cellResults(t *testing.T, root string) []*result.Result {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "*", "cells", "*", "result.json"))
	var out []*result.Result
	for _, f := range files {
		r, err := result.Load(filepath.Dir(f))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestClusterTopologies: the four topologies in one command, each with its
// servers, their streams and their lag recorded, and no server left after.
func TestClusterTopologies(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "cluster", "run", "nms", "--topology", "none,1,2-direct,2-chain", "--replication", "sync",
		"--lines", "200", "--duration", "2s", "--warmup", "0", "--results", root, "--ceiling", "off", "--crash-recovery=false")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	want := map[string]map[string]string{ // each replica: what it streams from
		"1":        {"r1": "streaming from primary"},
		"2-direct": {"r1": "streaming from primary", "r2": "streaming from primary"},
		"2-chain":  {"r1": "streaming from primary", "r2": "streaming from r1"},
	}
	cells := cellResults(t, root)
	if len(cells) != 4 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, r := range cells {
		topo := r.Config.Knobs.Text("topology")
		if topo == "none" {
			if r.Cluster != nil {
				t.Errorf("none has a cluster: %+v", r.Cluster)
			}
			continue
		}
		c := r.Cluster
		if c == nil || c.Topology != topo || len(c.Nodes) != 1+len(want[topo]) || !c.Nodes[1].Sync {
			t.Fatalf("%s: %+v", topo, c)
		}
		for name, st := range want[topo] {
			if c.Following[name] != st {
				t.Errorf("%s: %s %q, want %q", topo, name, c.Following[name], st)
			}
		}
		lagged := false
		for _, s := range r.Series {
			_, lagged = s.Lag["lag_bytes:r1"]
			if lagged {
				break
			}
		}
		if !lagged || r.Summary.OK == 0 || !r.Summary.ChecksOK {
			t.Errorf("%s: lag sampled %v, ok %d, checks %v", topo, lagged, r.Summary.OK, r.Summary.ChecksOK)
		}
	}
	if !strings.Contains(out, "topology=2-chain") {
		t.Errorf("the matrix summary lacks the topologies:\n%s", out)
	}
	noServersLeft(t, cells)
}

// TestClusterFailover: the primary killed under insert, cut off from its
// replica by a partition of the cluster's network a second before (each
// server in a network namespace of its own). Asynchronous replication loses
// acknowledged commits (and the run's check says so: exit 1); synchronous
// loses none. Each promotes r1, has exactly one writable server after, and
// leaves no server running. Each run ends a second after its result says r1
// was promoted, however long the promotion took (5 s on a busy machine,
// past a fixed 4 s run, which then saw no commit after the kill).
func TestClusterFailover(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	for _, c := range []struct {
		repl string
		code int
	}{{"async", ExitUnmet}, {"sync", 0}} {
		r := failoverRun(t, c.code, "--topology", "1", "--replication", c.repl)
		f := r.Cluster.Failover
		repl := r.Cluster.Replication
		if repl != c.repl || f == nil || f.Promoted != "r1" || f.SplitBrain || f.DowntimeSeconds <= 0 || f.FirstAckT <= f.KillT || f.Error != "" {
			t.Fatalf("%s: %+v", repl, f)
		}
		if len(r.Cluster.Writable) != 1 || r.Cluster.Writable[0] != "r1" {
			t.Errorf("%s: writable after: %v", repl, r.Cluster.Writable)
		}
		if n := r.Cluster.Nodes; len(n) != 2 || n[0].Addr == "" || n[1].Addr == "" || n[0].Addr == n[1].Addr {
			t.Errorf("%s: the servers are not on a network of their own: %+v", repl, n)
		}
		cut := false
		for _, e := range r.Events {
			cut = cut || strings.Contains(e.Detail, "primary cut off from r1 (nftables")
		}
		if !cut {
			t.Errorf("%s: no partition on the time line: %+v", repl, r.Events)
		}
		switch repl {
		case "async":
			if f.Lost == 0 || r.Summary.ChecksOK {
				t.Errorf("async with a lagging replica lost nothing: %+v", f)
			}
		case "sync":
			if f.Lost != 0 || !r.Summary.ChecksOK {
				t.Errorf("sync lost %d acknowledged commits: %v", f.Lost, f.LostSample)
			}
		}
		if r.Stats == nil || len(r.Stats.Delta) != 0 || !strings.Contains(r.Stats.Note, "replaced by a failover") {
			t.Errorf("%s: two servers' counters differenced: %+v", repl, r.Stats)
		}
		t.Logf("%s: %s", repl, strings.TrimSpace(f.Error+" "+r.Cluster.Topology))
		noServersLeft(t, []*result.Result{r})
	}
}

// faultedRun runs insert on a managed PostgreSQL cluster of --topology 1
// under --fault spec with more args, checks that it exited 0 with a fault
// recorded, and returns its result and summary.
func faultedRun(t *testing.T, spec string, args ...string) (*result.Result, string) {
	t.Helper()
	root := t.TempDir()
	args = append([]string{"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", spec, "--warmup", "0",
		"--results", root, "--ceiling", "off", "--crash-recovery=false"}, args...)
	code, out, errs := runCLI(t, nil, args...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	r := onlyResult(t, root)
	if r.Fault == nil || r.Fault.Error != "" {
		t.Fatalf("fault: %+v", r.Fault)
	}
	return r, out
}

// TestClusterPartition: a replica cut off from the primary by a partition
// of the cluster's network (--fault partition=r1@D,heal@H) falls behind
// while the primary goes on, and streams again once healed: the fault and
// its heal are on the time line, some second in between has the replica
// behind, no acknowledged commit is lost, and no server is left.
func TestClusterPartition(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	r, out := faultedRun(t, "partition=r1@1s,heal@3s", "--duration", "5s")
	f := r.Fault
	if f.Kind != "partition" || f.Net != "partition: r1 | primary (nftables)" || f.MadeT <= 0 || f.HealedT <= f.MadeT {
		t.Fatalf("fault: %+v", f)
	}
	if !f.Ledger || f.Acknowledged == 0 || f.Lost != 0 {
		t.Errorf("the primary kept going: %d of %d acknowledged commits lost", f.Lost, f.Acknowledged)
	}
	behind := false
	for _, sec := range r.Series {
		if sec.T > f.MadeT+0.5 && sec.T <= f.HealedT && sec.Lag["lag_bytes:r1"] > 0 {
			behind = true
		}
	}
	if !behind {
		t.Errorf("r1 was never behind while cut off: %+v", r.Series)
	}
	if r.Cluster.Following["r1"] != "streaming from primary" {
		t.Errorf("after the heal r1 is %q", r.Cluster.Following["r1"])
	}
	var kinds []string
	for _, e := range r.Events {
		if e.Kind == "fault" {
			kinds = append(kinds, e.Detail)
		}
	}
	if len(kinds) != 2 || !strings.HasPrefix(kinds[0], "partition: r1 | primary") || !strings.HasPrefix(kinds[1], "network healed") {
		t.Errorf("fault events: %q", kinds)
	}
	if !strings.Contains(out, "partition: r1 | primary (nftables) at") {
		t.Errorf("the summary lacks the fault:\n%s", out)
	}
	noServersLeft(t, []*result.Result{r})
}

// TestClusterNodeKilled: a synchronous replica killed and restarted under
// load (--fault kill-at=D,node=r1): the primary waits for it, loses nothing,
// and it streams again after; the recovery is noted with its name.
func TestClusterNodeKilled(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	r, _ := faultedRun(t, "kill-at=1s,node=r1", "--replication", "sync", "--duration", "4s")
	f := r.Fault
	if f.Kind != "kill" || f.KillT <= 0 || f.BackT <= f.KillT || !strings.HasPrefix(f.RecoveryNote, "r1 killed and restarted") {
		t.Fatalf("fault: %+v", f)
	}
	if !f.Ledger || f.Acknowledged == 0 || f.Lost != 0 {
		t.Errorf("%d of %d acknowledged commits lost", f.Lost, f.Acknowledged)
	}
	if f.Node != "r1" || r.Stats == nil || r.Stats.Note != "" || r.Stats.Delta["commits"] <= 0 {
		t.Errorf("a replica's restart: node %q, the primary's counters %+v", f.Node, r.Stats)
	}
	if r.Cluster.Following["r1"] != "streaming from primary" || len(r.Cluster.Writable) != 1 || r.Cluster.Writable[0] != "primary" {
		t.Errorf("after the restart: writable %v, r1 %q", r.Cluster.Writable, r.Cluster.Following["r1"])
	}
	noServersLeft(t, []*result.Result{r})
}

// failoverRun runs `cluster failover insert` with args, the primary killed
// 2 s into the measure phase and cut off from its replicas a second before;
// the run ends a second after its result says a replica was promoted,
// however long the promotion took. It checks the exit code (want) and
// returns the one result.
func failoverRun(t *testing.T, want int, args ...string) *result.Result {
	t.Helper()
	root := t.TempDir()
	stop := filepath.Join(t.TempDir(), "stop")
	go func() {
		defer os.WriteFile(stop, nil, 0o644)
		if workloadtest.Live(root, time.Minute, workloadtest.Event("promoted")) {
			time.Sleep(time.Second)
		}
	}()
	args = append(append([]string{"cluster", "failover", "insert"}, args...),
		"--at", "2s", "--pause", "1s", "--duration", "2m", "--warmup", "0", "--results", root, "--ceiling", "off", "--stop-file", stop)
	code, out, errs := runCLI(t, nil, args...)
	if code != want {
		t.Fatalf("%v: exit %d, want %d\n%s\n%s", args, code, want, out, errs)
	}
	return onlyResult(t, root)
}

// TestClusterReadsFromReplicas: with --read-from replicas a read-only
// workload's clients run on the replicas: the primary commits next to
// nothing while 400 units succeed.
func TestClusterReadsFromReplicas(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "cluster", "run", "tpcb", "--select-only", "--topology", "2-direct", "--read-from", "replicas",
		"--clients", "2", "--units", "400", "--warmup", "0", "--results", root, "--ceiling", "off", "--crash-recovery=false")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	r := onlyResult(t, root)
	if r.Summary.OK != 400 || r.Stats == nil || r.Stats.Delta["commits"] > r.Summary.OK/10 {
		t.Fatalf("%d units, the primary committed %v", r.Summary.OK, r.Stats)
	}
	noServersLeft(t, []*result.Result{r})
}

// TestClusterFailsCleanly: a cluster whose replicas cannot be made (the
// primary allows no WAL sender) fails, and leaves no server running.
func TestClusterFailsCleanly(t *testing.T) {
	needPostgres(t)
	root := t.TempDir()
	// Reachable by the servers' account: their folders go under root.
	for d := root; d != "/tmp" && d != "/"; d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755)
	}
	code, out, errs := runCLI(t, nil, "cluster", "run", "insert", "--topology", "2-chain", "--set", "max_wal_senders=0",
		"--duration", "2s", "--results", root, "--ceiling", "off")
	if code == ExitOK || !strings.Contains(errs, "r1") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), root) {
			t.Errorf("a server was left running: %s", strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}

func TestClusterBadInput(t *testing.T) {
	for name, args := range map[string][]string{
		"failover without replicas": {"run", "insert", "--db", "postgres:managed", "--failover", "at=1s"},
		"topology on sqlite":        {"run", "insert", "--topology", "1"},
		"sync replication lazily":   {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--replication", "sync", "--durability", "lazy"},
		"failover of tpcb":          {"run", "tpcb", "--db", "postgres:managed", "--topology", "1", "--failover", "at=1s"},
		"cluster without workload":  {"cluster", "run"},
		"cluster failover no at":    {"cluster", "failover", "insert", "--topology", "1"},
		"cluster what":              {"cluster", "explode", "insert"},
		"writes on replicas":        {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--read-from", "replicas", "--duration", "1s"},
		"partition without when":    {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "partition=r1"},
		"partition of one server":   {"run", "insert", "--db", "postgres:managed", "--fault", "partition=primary@1s"},
		"partition of sqlite":       {"run", "insert", "--fault", "partition=primary@1s"},
		"three sides":               {"run", "insert", "--db", "postgres:managed", "--topology", "2-direct", "--fault", "partition=primary|r1|r2@1s"},
		"heal before the cut":       {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "partition=r1@5s,heal@2s"},
		"kill a stranger":           {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "kill-at=1s,node=r2"},
		"partition a stranger":      {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "partition=r9@1s"},
		"loss at the clients":       {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "loss=clients:5%@1s"},
		"kill a node of one server": {"run", "insert", "--db", "postgres:managed", "--fault", "kill-at=1s,node=r1"},
		"kill a cluster unnamed":    {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "kill-at=1s"},
		"no loss":                   {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "loss=r1:0%@1s"},
		"partition after the run":   {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "partition=r1@5s", "--duration", "2s"},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			code, _, errs := runCLI(t, nil, append(args, "--results", dir)...)
			assertOneLine(t, code, errs, ExitUsage, "")
		})
	}
}

// TestClusterFailoverThatDidNotHappen: a failover asked for and never made
// (the run's 30 units were done before --at) is not a success: exit 3, the
// last line saying why, alone and as the cells of --cycles (a cell that exits
// 3 did not complete, whatever its result's status). It exited 0.
func TestClusterFailoverThatDidNotHappen(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "cluster", "failover", "insert", "--topology", "1", "--at", "20s", "--units", "30",
		"--warmup", "0", "--results", root, "--ceiling", "off")
	if code != ExitFailed || !strings.HasPrefix(lastLine(errs), "dbgauge: the failover failed: the measure phase ended first") {
		t.Fatalf("exit %d, last line %q\n%s\n%s", code, lastLine(errs), out, errs)
	}
	root = t.TempDir()
	code, out, errs = runCLI(t, nil, "cluster", "failover", "insert", "--topology", "1", "--at", "20s", "--units", "30", "--cycles", "2",
		"--warmup", "0", "--results", root, "--ceiling", "off")
	want := "exit 3: 2 of 2 cells did not complete (dbgauge run insert --resume "
	if code != ExitFailed || !strings.HasPrefix(lastLine(out), want) || !strings.Contains(lastLine(out), "001-r1 (the run): exit status 3: the failover failed: the measure phase ended first") {
		t.Fatalf("exit %d, last line %q, want %q…\n%s\n%s", code, lastLine(out), want, out, errs)
	}
	noServersLeft(t, cellResults(t, root))
}

// TestClusterFaultThatDidNotHappen: a partition asked for and never made
// (the run's 30 units were done before it) is not a success either: exit
// 3, the last line saying why. It exited 0.
func TestClusterFaultThatDidNotHappen(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "--db", "postgres:managed", "--topology", "1", "--fault", "partition=r1@20s",
		"--units", "30", "--warmup", "0", "--results", root, "--ceiling", "off", "--crash-recovery=false")
	if code != ExitFailed || !strings.HasPrefix(lastLine(errs), "dbgauge: the fault failed: the measure phase ended first") {
		t.Fatalf("exit %d, last line %q\n%s\n%s", code, lastLine(errs), out, errs)
	}
	noServersLeft(t, []*result.Result{onlyResult(t, root)})
}
