package session_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

func needPostgres(t *testing.T) {
	t.Helper()
	if _, err := postgres.FindServer(""); err != nil {
		testenv.Need(t, err) // .ci/run installs PostgreSQL: in CI this never skips
	}
}

// TestPostgresDurability: each level's settings as read back, WAL bytes per
// call and WAL syncs in the result.
func TestPostgresDurability(t *testing.T) {
	needPostgres(t)
	want := map[string][2]string{"sync": {"on", "on"}, "lazy": {"off", "on"}, "off": {"on", "off"}}
	for dur, w := range want {
		t.Run("durability="+dur, func(t *testing.T) {
			res := workloadtest.Run(t, spec(t, "nms"), map[string]string{"db": "postgres:managed", "durability": dur, "units": "200", "lines": "300"})
			s := res.Engine.Settings
			if s["synchronous_commit"] != w[0] || s["fsync"] != w[1] {
				t.Fatalf("read back synchronous_commit=%s fsync=%s, want %s %s", s["synchronous_commit"], s["fsync"], w[0], w[1])
			}
			if dur == "lazy" && s["wal_writer_delay"] != "100ms" {
				t.Fatalf("lazy: wal_writer_delay=%s", s["wal_writer_delay"])
			}
			if res.Summary.LogBytesPerUnit <= 0 || res.Summary.LogBytesPerHour <= 0 {
				t.Fatalf("no WAL bytes per call: %+v", res.Summary)
			}
			if _, ok := res.Stats.Delta["flushes"]; !ok {
				t.Fatal("no WAL syncs in the statistics")
			}
			if res.Server == nil || res.Server.StartupSeconds <= 0 || res.Server.ShutdownSeconds <= 0 {
				t.Fatalf("server start-up and shut-down not recorded: %+v", res.Server)
			}
			if st, err := os.Stat(res.Server.Log); err != nil || st.Size() == 0 {
				t.Fatalf("the server's log is not kept: %v", err)
			}
			if h := res.Harness; h == nil || h.InProcess || h.CPUPerUnitUs <= 0 {
				t.Fatalf("harness: %+v: want dbgauge's CPU per call, the server apart", h)
			}
			t.Logf("%s: %.0f WAL bytes/call, %d WAL syncs for %d calls", dur, res.Summary.LogBytesPerUnit, res.Stats.Delta["flushes"], res.Summary.OK)
		})
	}
}

// TestPostgresCommitsPerCall proves --commit op from the server's side:
// pg_stat_database's commits and the transaction ids the server handed out.
func TestPostgresCommitsPerCall(t *testing.T) {
	needPostgres(t)
	const calls = 40
	for _, c := range []struct {
		commit  string
		perCall int64
	}{{"op", 15}, {"unit", 1}} {
		t.Run("commit="+c.commit, func(t *testing.T) {
			res := workloadtest.Run(t, spec(t, "nms"), map[string]string{
				"db": "postgres:managed", "commit": c.commit, "units": strconv.Itoa(calls), "lines": "300", "set": "autovacuum=off",
			})
			d := res.Stats.Delta
			want := c.perCall * calls
			if d["write_xacts"] != want {
				t.Errorf("the server handed out %d transaction ids for %d calls, want %d", d["write_xacts"], calls, want)
			}
			// pg_stat_database also counts the transactions in which the
			// server parsed each statement the first time (one per statement).
			if got := d["commits"]; got < want || got > want+8 {
				t.Errorf("pg_stat_database counted %d commits for %d calls, want %d (+ at most 8 first parses)", got, calls, want)
			}
		})
	}
}

// TestPostgresWorkloads runs each workload on a managed PostgreSQL, two
// servers at a time (-parallel is GOMAXPROCS): each run has a server of its
// own and none judges a rate.
func TestPostgresWorkloads(t *testing.T) {
	needPostgres(t)
	run := func(name string, test func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t)
		})
	}
	run("nms/procedure", func(t *testing.T) {
		// Four clients calling the procedure deadlock now and then (PostgreSQL
		// detects it after deadlock_timeout, 1 s): the units, not the default
		// 1 s of workloadtest, must end this run.
		res := workloadtest.Run(t, spec(t, "nms"), map[string]string{"db": "postgres:managed", "procedure": "true", "units": "100", "duration": "60s", "lines": "300", "clients": "4"})
		if m := res.Phase("measure"); m.Ops[len(m.Ops)-1].Count != 100 {
			t.Fatalf("%d procedure calls, want 100 (failures %+v)", m.Ops[len(m.Ops)-1].Count, m.Failures)
		}
		if sl := res.ServerLog; sl == nil || sl.Lines == 0 {
			t.Errorf("the server's log was not read into the result: %+v", sl)
		}
	})
	run("nms/procedure/every:5", func(t *testing.T) {
		workloadtest.Run(t, spec(t, "nms"), map[string]string{"db": "postgres:managed", "procedure": "true", "commit": "every:5", "units": "50", "lines": "300"})
	})
	run("nms/socket/prepare=each", func(t *testing.T) {
		workloadtest.Run(t, spec(t, "nms"), map[string]string{"db": "postgres:managed", "socket": "true", "units": "50", "lines": "300", "prepare": "each"})
	})
	run("tpcb", func(t *testing.T) {
		res := workloadtest.Run(t, spec(t, "tpcb"), map[string]string{"db": "postgres:managed", "units": "300", "clients": "4"})
		// The server's CPU over the measure phase: its backends' too (four
		// clients, four backends besides the postmaster's helpers).
		if sc := res.ServerCPU; sc == nil || sc.Seconds <= 0 || sc.CPUPerUnitUs <= 0 || sc.Processes < 5 {
			t.Errorf("the server's CPU: %+v", sc)
		}
		if h := res.Harness; h == nil || h.CPUPerUnitUs <= 0 {
			t.Errorf("tpcb's 4 clients on PostgreSQL: the harness's CPU: %+v", h)
		}
	})
	run("tpcb/select-only/cpus", func(t *testing.T) {
		// --cpus server=N: the server and every process it starts on CPU N,
		// read back; the harness judged beside it.
		srvCPU := strconv.Itoa(runtime.NumCPU() - 1)
		res := workloadtest.Run(t, spec(t, "tpcb"), map[string]string{"db": "postgres:managed", "duration": "2s", "select-only": "true", "clients": "4", "cpus": "server=" + srvCPU})
		if res.Summary.Failed > 0 || res.Harness == nil {
			t.Errorf("tpcb select-only: %d failed, harness %+v", res.Summary.Failed, res.Harness)
		} else if res.Harness.Limit == "" || res.Harness.Verdict == "" || res.Harness.MachineCPUs < 1 {
			t.Errorf("tpcb select-only: no harness verdict: %+v", res.Harness)
		}
		if res.Server == nil || res.Server.CPUs != srvCPU || res.ServerCPU == nil || res.ServerCPU.CPUCount != 1 {
			t.Errorf("--cpus server=%s: server %+v, its CPU %+v", srvCPU, res.Server, res.ServerCPU)
		}
	})
	run("insert/kv", func(t *testing.T) {
		workloadtest.Run(t, spec(t, "insert"), map[string]string{"db": "postgres:managed", "units": "200", "api": "kv"})
	})
	// kv through sqlkv: YCSB A's updates, and E's range scans (ScanFrom).
	run("kv/ycsb-a", func(t *testing.T) {
		workloadtest.Run(t, spec(t, "kv"), map[string]string{"db": "postgres:managed", "records": "2000", "preset": "ycsb-a", "units": "400", "clients": "4"})
	})
	run("kv/ycsb-e", func(t *testing.T) {
		workloadtest.Run(t, spec(t, "kv"), map[string]string{"db": "postgres:managed", "records": "2000", "preset": "ycsb-e", "units": "200", "clients": "2"})
	})
	run("oltp-emul", func(t *testing.T) {
		// OLTP-EMUL's separate workers in REPEATABLE READ, FIFO rows taken with
		// SKIP LOCKED: eight clients, no failures, the books balance.
		res := workloadtest.Run(t, spec(t, "oltp-emul"), map[string]string{"db": "postgres:managed", "init-docs": "300", "clients": "8", "duration": "3s", "working-mode": "small_01"})
		if res.Summary.Failed > 0 {
			t.Errorf("oltp-emul on PostgreSQL: %d failed units: %+v", res.Summary.Failed, res.Phase("measure").Failures)
		}
	})
}

// TestNoPasswordLeaks: the managed server's random password, and the
// password of a DSN, appear in no file dbgauge writes.
func TestNoPasswordLeaks(t *testing.T) {
	needPostgres(t)
	p, err := postgres.Start(context.Background(), postgres.ServerConfig{Config: server.Config{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.StopClean()
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{"db": p.DSN(false), "units": "50"})
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), p.Password) {
		t.Fatal("the password is in result.json")
	}
	if !strings.Contains(res.Config.DB, "xxxxx") {
		t.Fatalf("the DSN is not masked: %s", res.Config.DB)
	}
	managed := workloadtest.Run(t, spec(t, "insert"), map[string]string{"db": "postgres:managed", "units": "50"})
	dir := filepath.Dir(managed.Server.Log)
	_ = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), "password=") && strings.Contains(string(b), "@127.0.0.1") {
				t.Errorf("%s holds a connection string with its password", path)
			}
		}
		return nil
	})
}

// TestPostgresObjectsCold: objects --phase cold on a managed server loads
// through COPY, restarts the server cleanly before the clients (its log stays
// clean) and records it; every object read decodes and is the one asked for.
func TestPostgresObjectsCold(t *testing.T) {
	needPostgres(t)
	res := workloadtest.Run(t, spec(t, "objects"), map[string]string{"db": "postgres:managed", "phase": "cold", "conferences": "300",
		"contributions": "5", "objects": "140", "clients": "2", "duration": "1s", "durability": "off", "ceiling": "off"})
	f := res.Dataset.Facts["caches_cleared"]
	if !strings.Contains(f, "server restarted") {
		t.Fatalf("caches_cleared = %q: want the server restarted", f)
	}
	if res.Dataset.Reused || res.Dataset.Facts["objects"] != strconv.Itoa(300*7+100) {
		t.Fatalf("dataset %+v", res.Dataset)
	}
	if l := res.ServerLog; l != nil && len(l.Anomalies) > 0 {
		t.Fatalf("the restart left anomalies in the server's log: %+v", l.Anomalies)
	}
}

// TestPostgresTelemetry: every whole second of a run on a managed server has
// the machine's side (dbgauge's CPU, the server's, its data folder's device
// where it is known) and, from the second sample on, the engine's counters
// (its commits and WAL bytes moved while tpcb ran).
func TestPostgresTelemetry(t *testing.T) {
	needPostgres(t)
	res := workloadtest.Run(t, spec(t, "tpcb"), map[string]string{"db": "postgres:managed", "duration": "4s", "warmup": "0", "clients": "2"})
	engine := 0
	for _, s := range res.Series {
		if s.Partial || s.Dt < 0.5 {
			continue
		}
		m := s.Machine
		if m == nil || m.HarnessCores <= 0 || m.ServerCores == nil || *m.ServerCores <= 0 || (res.Environment.DataDir.Device != "") != (m.Disk != nil) {
			t.Fatalf("second %.1f: machine %+v (device %q)", s.T, m, res.Environment.DataDir.Device)
		}
		if s.Engine["commits"] > 0 && s.Engine["wal_bytes"] > 0 {
			engine++
		}
	}
	if engine == 0 {
		t.Fatalf("no second has the engine's commits and WAL bytes: %+v", res.Series)
	}
	// Two clients always in a transaction or a statement: the engine saw
	// them waiting on something, most first, the shares adding up.
	total := 0.0
	for i, w := range res.Waits {
		total += w.SharePct
		if i > 0 && w.Waiting > res.Waits[i-1].Waiting {
			t.Fatalf("waits not most first: %+v", res.Waits)
		}
	}
	if len(res.Waits) == 0 || total < 99.9 || total > 100.1 {
		t.Fatalf("waits %+v", res.Waits)
	}
}
