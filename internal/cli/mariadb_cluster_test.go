package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// TestMariaDBTopologies: dbgauge cluster run on mariadb:managed builds 1
// and 2-chain with semi-sync replication: every replica replicating its
// upstream by GTID (IO and SQL threads running, read back), the primary
// alone writable, semi-sync on the primary (AFTER_SYNC) and on its direct
// replica only (a chain's r2 is asynchronous), read back from each server;
// each replica's lag in bytes and transactions sampled, the primary never
// fallen back to async; no server left after.
func TestMariaDBTopologies(t *testing.T) {
	inParallel(t)
	needMariaDB(t)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "cluster", "run", "insert", "--db", "mariadb:managed", "--topology", "1,2-chain", "--replication", "semi-sync",
		"--duration", "2s", "--warmup", "0", "--results", root, "--ceiling", "off", "--crash-recovery=false")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	want := map[string]map[string]string{ // each replica: what it replicates from
		"1":       {"r1": "replicating from primary (IO Yes, SQL Yes)"},
		"2-chain": {"r1": "replicating from primary (IO Yes, SQL Yes)", "r2": "replicating from r1 (IO Yes, SQL Yes)"},
	}
	cells := cellResults(t, root)
	if len(cells) != 2 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, r := range cells {
		topo := r.Config.Knobs.Text("topology")
		c := r.Cluster
		if c == nil || c.Topology != topo || c.Replication != "semi-sync" || len(c.Nodes) != 1+len(want[topo]) || !c.Nodes[1].Sync ||
			len(c.Writable) != 1 || c.Writable[0] != "primary" {
			t.Fatalf("%s: %+v", topo, c)
		}
		for name, st := range want[topo] {
			if c.Following[name] != st {
				t.Errorf("%s: %s %q, want %q", topo, name, c.Following[name], st)
			}
		}
		s := r.Engine.Settings
		if s["rpl_semi_sync_master_enabled"] != "ON" || s["rpl_semi_sync_master_wait_point"] != "AFTER_SYNC" || s["r1 rpl_semi_sync_slave_enabled"] != "ON" ||
			s["r1 read_only"] != "ON" || s["read_only"] != "OFF" || s["log_bin"] != "ON" || s["r1 server_id"] == s["server_id"] {
			t.Errorf("%s: settings read back: %v", topo, s)
		}
		if topo == "2-chain" && (c.Nodes[2].Sync || s["r2 rpl_semi_sync_slave_enabled"] != "OFF") {
			t.Errorf("2-chain: r2 is semi-sync: %+v, %q", c.Nodes[2], s["r2 rpl_semi_sync_slave_enabled"])
		}
		bytes, trx, fellBack := false, false, false
		for _, sec := range r.Series {
			_, b := sec.Lag["lag_bytes:r1"]
			_, x := sec.Lag["lag_trx:r1"]
			bytes, trx = bytes || b, trx || x
			fellBack = fellBack || sec.Lag["semi_sync_off:primary"] != 0 || sec.Lag["semi_sync_no_tx:primary"] != 0
		}
		if !bytes || !trx || fellBack || r.Summary.OK == 0 || !r.Summary.ChecksOK {
			t.Errorf("%s: lag in bytes %v, in transactions %v, semi-sync fell back %v, ok %d, checks %v", topo, bytes, trx, fellBack, r.Summary.OK, r.Summary.ChecksOK)
		}
	}
	noServersLeft(t, cells)
}

// TestMariaDBFailover: the MariaDB primary of 2-direct killed under insert,
// cut off from its replicas by a partition of the cluster's network a
// second before. Asynchronous replication loses acknowledged commits (the
// run's check says so: exit 1); semi-sync, whose commits wait for a
// replica's acknowledgement, loses none. Each promotes a direct replica,
// repoints the other at it by GTID, has exactly one writable server after,
// and leaves no server running. Each run ends a second after its result
// says a replica was promoted.
func TestMariaDBFailover(t *testing.T) {
	inParallel(t)
	needMariaDB(t)
	for _, c := range []struct {
		repl string
		code int
	}{{"async", ExitUnmet}, {"semi-sync", 0}} {
		r := failoverRun(t, c.code, "--db", "mariadb:managed", "--topology", "2-direct", "--replication", c.repl)
		f := r.Cluster.Failover
		if r.Cluster.Replication != c.repl || f == nil || (f.Promoted != "r1" && f.Promoted != "r2") || f.SplitBrain || f.DowntimeSeconds <= 0 ||
			f.FirstAckT <= f.KillT || f.Error != "" || f.Acknowledged == 0 {
			t.Fatalf("%s: %+v", c.repl, f)
		}
		other := map[string]string{"r1": "r2", "r2": "r1"}[f.Promoted]
		if len(r.Cluster.Writable) != 1 || r.Cluster.Writable[0] != f.Promoted ||
			r.Cluster.Following[other] != "replicating from "+f.Promoted+" (IO Yes, SQL Yes)" {
			t.Errorf("%s: after: writable %v, following %v", c.repl, r.Cluster.Writable, r.Cluster.Following)
		}
		if n := r.Cluster.Nodes; len(n) != 3 || n[0].Addr == "" || n[1].Addr == "" || n[0].Addr == n[1].Addr {
			t.Errorf("%s: the servers are not on a network of their own: %+v", c.repl, n)
		}
		cut := false
		for _, e := range r.Events {
			cut = cut || strings.Contains(e.Detail, "primary cut off from r1, r2 (nftables")
		}
		if !cut {
			t.Errorf("%s: no partition on the time line: %+v", c.repl, r.Events)
		}
		switch c.repl {
		case "async":
			if f.Lost == 0 || r.Summary.ChecksOK {
				t.Errorf("async with its primary cut off lost nothing: %+v", f)
			}
		case "semi-sync":
			if f.Lost != 0 || !r.Summary.ChecksOK {
				t.Errorf("semi-sync lost %d acknowledged commits: %v", f.Lost, f.LostSample)
			}
		}
		t.Logf("%s: promoted %s, writes down %.2f s, %d of %d acknowledged commits lost", c.repl, f.Promoted, f.DowntimeSeconds, f.Lost, f.Acknowledged)
		noServersLeft(t, []*result.Result{r})
	}
}

// TestReplicationOfAnotherEngine: each --replication value on the engine
// that lacks it is bad input, in one line, before anything starts.
func TestReplicationOfAnotherEngine(t *testing.T) {
	for name, args := range map[string][]string{
		"semi-sync on postgres": {"run", "insert", "--db", "postgres:managed", "--topology", "1", "--replication", "semi-sync"},
		"sync on mariadb":       {"run", "insert", "--db", "mariadb:managed", "--topology", "1", "--replication", "sync"},
		"remote_apply on maria": {"run", "insert", "--db", "mariadb:managed", "--topology", "1", "--replication", "remote_apply"},
		"a matrix's one cell":   {"cluster", "run", "insert", "--db", "mariadb:managed", "--topology", "1", "--replication", "async,sync"},
		"maria replicas of dsn": {"run", "insert", "--db", "mysql://u:secret@127.0.0.1:1/db", "--topology", "1"},
		"replication on zrs":    {"run", "insert", "--db", "zrs:managed", "--topology", "1", "--replication", "semi-sync"},
	} {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			code, _, errs := runCLI(t, nil, append(args, "--results", dir)...)
			assertOneLine(t, code, errs, ExitUsage, "secret")
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a result folder was left: %v", entries)
			}
		})
	}
}

// TestMariaDBPartition: with semi-sync and 2-direct, r1 cut off from the
// primary and r2 by a partition of the cluster's network
// (--fault partition=r1@D,heal@H) falls behind while the primary's commits
// go on, acknowledged by r2 alone, and r1 replicates again once healed: the
// fault and its heal on the time line, some second in between with r1
// transactions behind, no acknowledged commit lost, the primary never
// fallen back to async, no server left.
func TestMariaDBPartition(t *testing.T) {
	inParallel(t)
	needMariaDB(t)
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "--db", "mariadb:managed", "--topology", "2-direct", "--replication", "semi-sync",
		"--fault", "partition=r1@1s,heal@3s", "--duration", "5s", "--warmup", "0", "--results", root, "--ceiling", "off", "--crash-recovery=false")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	r := onlyResult(t, root)
	f := r.Fault
	if f == nil || f.Error != "" || f.Kind != "partition" || !strings.HasPrefix(f.Net, "partition: r1 | primary, r2") || f.HealedT <= f.MadeT {
		t.Fatalf("fault: %+v", f)
	}
	if !f.Ledger || f.Acknowledged == 0 || f.Lost != 0 {
		t.Errorf("%d of %d acknowledged commits lost", f.Lost, f.Acknowledged)
	}
	behind, fellBack, during := false, false, false
	for _, sec := range r.Series {
		if sec.T > f.MadeT+0.5 && sec.T <= f.HealedT {
			behind = behind || sec.Lag["lag_trx:r1"] > 0
			during = during || sec.OK > 0
		}
		fellBack = fellBack || sec.Lag["semi_sync_off:primary"] != 0
	}
	if !behind || !during || fellBack {
		t.Errorf("while r1 was cut off: r1 behind %v, commits acknowledged %v; semi-sync fell back %v", behind, during, fellBack)
	}
	if r.Cluster.Following["r1"] != "replicating from primary (IO Yes, SQL Yes)" || len(r.Cluster.Writable) != 1 {
		t.Errorf("after the heal: %v, writable %v", r.Cluster.Following, r.Cluster.Writable)
	}
	noServersLeft(t, []*result.Result{r})
}
