package session_test

import (
	"compress/gzip"
	"database/sql"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3" // to corrupt a database behind dbgauge's back

	"github.com/dbgauge/dbgauge/internal/backend/firebird"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

func spec(t *testing.T, name string) workload.Spec {
	t.Helper()
	s, ok := catalog.Workload(name)
	if !ok {
		t.Fatalf("no workload %q", name)
	}
	return s
}

// TestEveryWorkloadOnEveryBackend runs each workload on each backend (a
// throwaway instance of it: a managed server for PostgreSQL), through each
// API the pair allows, under each commit mode, and its checks.
func TestEveryWorkloadOnEveryBackend(t *testing.T) {
	// A missing server skips its own pairs only (and fails them in CI).
	servers := map[string]func() error{
		"postgres": func() error { _, err := postgres.FindServer(""); return err },
		"mariadb":  func() error { _, _, err := mariadb.FindServer(); return err },
		"firebird": func() error { _, _, _, _, err := firebird.FindServer(); return err },
	}
	for _, w := range catalog.Workloads() {
		for _, b := range catalog.Backends() {
			if _, ok := elsewhere[w.Name+"/"+b.Name]; ok {
				continue
			}
			var apis []string
			for _, a := range w.APIs {
				if a == b.API {
					apis = append(apis, "auto")
				} else if a == "kv" && b.API == "sql" {
					apis = append(apis, "kv") // key-value over SQL, through sqlkv
				}
			}
			commits := []string{"op", "unit", "every:3"}
			recovers := true // recoveryOnce
			if only, ok := sharedPath[b.Name]; ok {
				if !slices.Contains(only, w.Name) {
					continue
				}
				apis, commits, recovers = []string{"auto"}, []string{"unit"}, w.Name == only[0]
			}
			for _, api := range apis {
				commits := commits
				if api == "kv" && b.Serves() {
					commits = []string{"unit"} // kvOverSQLOnce
				}
				for _, commit := range commits {
					if c, _ := workload.ParseCommit(commit); !w.Accepts(c.Mode) {
						continue // refused with a clear error, tested with the workload
					}
					name := fmt.Sprintf("%s/db=%s/api=%s/commit=%s", w.Name, b.Name, api, commit)
					t.Run(name, func(t *testing.T) {
						if find := servers[b.Name]; find != nil {
							testenv.Need(t, find())
						}
						// Two at a time (-parallel is GOMAXPROCS): a
						// managed server's start is mostly waiting.
						t.Parallel()
						args := map[string]string{
							"db": b.Throwaway, "api": api, "commit": commit, "clients": "2", "lines": "300",
							// 60 units or a second, whichever ends first: the
							// test is that each runs and its checks hold.
							"units": "60", "duration": "1s",
							"init-docs": "100", "wares": "30", "records": "500", "conferences": "200",
							"workload-file": filepath.Join("..", "..", "examples", "deposits.toml"), // script: a user's own, with its ledger
						}
						if b.Serves() && (!recovers || commit != "unit" || api != apis[0]) {
							args["crash-recovery"] = "false" // recoveryOnce
						}
						if w.Name == "append" {
							// append's checks are the anomalies its history
							// shows: none only where the level prevents them all.
							args["isolation"] = "serializable"
						}
						if b.Name == "firebird" {
							// Firebird's lock manager looks for a deadlock only after
							// DeadlockTimeout (10 s by default): nms's two clients
							// under every:3 meet one or two in a run.
							args["set"] = "DeadlockTimeout=1"
							if w.Name == "tpcc" {
								// A warehouse is 600,000 rows, made with forced
								// writes off (as a user's load would be): the
								// test is that tpcc runs and its checks hold.
								args["durability"] = "off"
							}
						}
						if w.Name == "append" && b.Name == "firebird" {
							appendOnFirebird(t, w, args)
							return
						}
						workloadtest.Run(t, w, args)
					})
				}
			}
		}
	}
}

// appendOnFirebird runs append at Firebird's serializable, SNAPSHOT TABLE
// STABILITY, whose snapshot is taken when a transaction begins and its
// table locks when it first touches a table: a cycle of anti-dependencies
// (G-single, G2-item) can form among three transactions (docs/isolation.md,
// found by this test), every other anomaly is prevented.
func appendOnFirebird(t *testing.T, w workload.Spec, args map[string]string) {
	t.Helper()
	res := workloadtest.Exec(t, w, args)
	if res.Status != result.Completed || len(res.Checks) < 2 {
		t.Fatalf("status %s (%s), %d checks", res.Status, res.Reason, len(res.Checks))
	}
	for _, c := range res.Checks {
		if !c.OK && !strings.HasPrefix(c.Name, "G-single ") && !strings.HasPrefix(c.Name, "G2-item ") {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
}

// Two of a server's paths run once per workload here, since what they add
// is the same whatever the commit mode or the API:
//
//   - kvOverSQLOnce: key-value over a server's SQL (sqlkv) under commit=unit
//     only. sqlkv's transactions are its own code over the engine's SQL
//     connection, run here under every commit mode on SQLite; each server's
//     transactions under every commit mode run here through its own SQL.
//   - recoveryOnce: the crash-recovery timing (a kill -9 after the run, the
//     restart timed) on one cell a workload and server: commit=unit through
//     the pair's first API (on a sharedPath engine, its first workload's
//     only). The others leave it out (--crash-recovery=false); each engine's
//     kill -9 and power cuts are the crash command's tests.
//
// sharedPath are the engines that reach the engine through another's code
// (its driver, dialect and statements; the zodb worker's storage API),
// which the whole matrix runs: here only the workloads that judge what the
// engine keeps, once each. Galera is MariaDB's SQL on MariaDB's servers,
// each cell a cluster of two whose start took 33 s on average (885 s for 27
// cells, more than the rest together): the full matrix runs on mariadb, and
// Galera's own (certification, a node killed, a partition, quorum) in
// TestCluster (internal/backend/mariadb/galera). ZRS and RelStorage are the
// worker's storage API, which the matrix runs on zodb and zeo (ZRS is a ZEO
// server whose FileStorage replicates): their own runs in TestZRSTopologies,
// TestZRSFailover and relstorage's tests. NEO is the same worker on Python
// 2.7, each cell a cluster of a master, an admin and a storage node: its
// own runs (a storage node killed) in TestStorageNodeKilled.
var sharedPath = map[string][]string{
	"galera":     {"insert", "append"},
	"zrs":        {"insert", "kv"},
	"neo":        {"insert", "kv"},
	"relstorage": {"insert", "kv", "objects"},
}

// elsewhere are the pairs another test runs, and more, at the cost of one
// run here: which test.
var elsewhere = map[string]string{
	// TPC-C's population is fixed by the spec: 600,000 rows a warehouse.
	"tpcc/sqlite": "TestRunOnSQLite (internal/workload/tpcc) runs tpcc on SQLite, and more: reuse, figures, a corrupted district",
}

// TestCommitsCountedByTheEngine proves the commit granularity from the
// engine's side: SQLite's own commit hook counts the commits of the measure
// phase, not the workload.
func TestCommitsCountedByTheEngine(t *testing.T) {
	const units = 40
	cases := []struct {
		workload, commit string
		perUnit          float64
	}{
		{"nms", "op", 15}, // seed 000 note 2: 15 commits per call
		{"nms", "unit", 1},
		{"nms", "every:4", 0.25},
		{"insert", "op", 1},
		{"insert", "every:10", 0.1},
	}
	for _, c := range cases {
		t.Run(c.workload+"/commit="+c.commit, func(t *testing.T) {
			res := workloadtest.Run(t, spec(t, c.workload), map[string]string{
				"db": "sqlite", "commit": c.commit, "units": strconv.Itoa(units), "lines": "200",
			})
			if res.Summary.OK != units {
				t.Fatalf("%d units ok, want %d", res.Summary.OK, units)
			}
			if res.Stats == nil {
				t.Fatal("no engine statistics in the result")
			}
			want := int64(c.perUnit * units)
			if got := res.Stats.Delta["commits"]; got != want {
				t.Fatalf("the engine counted %d commits for %d units, want %d", got, units, want)
			}
		})
	}
}

// TestSynchronousReadBack: the result holds what SQLite reports, not what
// was asked.
func TestSynchronousReadBack(t *testing.T) {
	for dur, want := range map[string]string{"sync": "FULL", "lazy": "NORMAL", "off": "OFF"} {
		t.Run("durability="+dur, func(t *testing.T) {
			res := workloadtest.Run(t, spec(t, "nms"), map[string]string{"durability": dur, "units": "20", "lines": "100"})
			if got := res.Engine.Settings["synchronous"]; got != want {
				t.Fatalf("synchronous read back %q, want %q", got, want)
			}
			if got := res.Engine.Settings["journal_mode"]; got != "wal" {
				t.Fatalf("journal_mode read back %q, want wal", got)
			}
		})
	}
	// A raw setting overrides the mapping, and the result says so.
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{"set": "synchronous=EXTRA", "units": "5"})
	if got := res.Engine.Settings["synchronous"]; got != "EXTRA" {
		t.Fatalf("--set synchronous=EXTRA read back %q", got)
	}
}

// TestFourHundredClients: many SQLite writers finish with classified,
// counted failures only, and the data stays consistent.
func TestFourHundredClients(t *testing.T) {
	if testing.Short() {
		t.Skip("400 connections")
	}
	res := workloadtest.Run(t, spec(t, "nms"), map[string]string{
		"clients": "400", "duration": "3s", "set": "busy_timeout=100", "retries": "1", "lines": "900",
	})
	m := res.Phase("measure")
	var failed int64
	for _, f := range m.Failures {
		if f.Class == dberr.Fatal.String() || f.Kind == string(dberr.Other) {
			t.Errorf("unclassified failure: %+v", f)
		}
		failed += f.Count
	}
	if failed != m.Failed {
		t.Errorf("failures by cause add up to %d, the phase says %d", failed, m.Failed)
	}
	if m.Failed == 0 || m.Retries == 0 {
		t.Errorf("400 writers with a 100 ms busy timeout: want busy failures and retries, got %d and %d", m.Failed, m.Retries)
	}
	// Over time, by class: the seconds' counts by class add up to the phases'.
	var byClass, retried int64
	for _, s := range res.Series {
		for _, n := range s.FailedBy {
			byClass += n
		}
		for _, n := range s.RetriedBy {
			retried += n
		}
	}
	var all, allRetried int64
	for _, p := range res.Phases {
		all, allRetried = all+p.Failed, allRetried+p.Retries
	}
	if byClass != all || retried != allRetried {
		t.Errorf("failures by class over time add up to %d (phases: %d), retried %d (phases: %d)", byClass, all, retried, allRetried)
	}
	// What dbgauge itself used: SQLite runs inside it.
	if h := res.Harness; h == nil || h.Clients != 400 || !h.InProcess || h.RSSPeakBytes <= 0 || h.CPUPerUnitUs <= 0 || h.Cores <= 0 {
		t.Errorf("harness: %+v", h)
	} else {
		t.Logf("harness: %.1f µs of CPU per call, %.1f MiB at most", h.CPUPerUnitUs, float64(h.RSSPeakBytes)/(1<<20))
	}
	t.Logf("400 clients: %d ok, %d failed, %d retries, %.0f calls/s", m.OK, m.Failed, m.Retries, m.Rate)
}

// TestBboltLines runs nms on bbolt at the seed's three sizes.
func TestBboltLines(t *testing.T) {
	for _, lines := range []string{"900", "2500", "25000"} {
		t.Run("lines="+lines, func(t *testing.T) {
			res := workloadtest.Run(t, spec(t, "nms"), map[string]string{"db": "bbolt", "lines": lines, "duration": "1s"})
			if res.Dataset.Facts["vsats"] != lines {
				t.Fatalf("dataset has %s VSATs, want %s", res.Dataset.Facts["vsats"], lines)
			}
		})
	}
}

// TestDatasetReuse: a second run on the same file reuses a matching dataset
// and rebuilds one that does not match.
func TestDatasetReuse(t *testing.T) {
	for _, db := range []string{"sqlite", "bbolt"} {
		t.Run(db, func(t *testing.T) {
			path := db + ":" + t.TempDir() + "/data.db"
			run := func(lines string) bool {
				return workloadtest.Run(t, spec(t, "nms"), map[string]string{"db": path, "lines": lines, "units": "30"}).Dataset.Reused
			}
			if run("300") {
				t.Fatal("the first run reused a dataset")
			}
			if !run("300") {
				t.Fatal("the second run with the same --lines did not reuse the dataset")
			}
			if run("400") {
				t.Fatal("a run with other --lines reused the dataset")
			}
		})
	}
}

// TestOLTPEmulCorruptBalance changes one saldo behind the workload's back,
// between two runs on one database: the second run's checks fail and name
// the ware.
func TestOLTPEmulCorruptBalance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "oe.db")
	args := map[string]string{"db": "sqlite:" + path, "init-docs": "200", "working-mode": "debug_04", "duration": "1s"}
	workloadtest.Run(t, spec(t, "oltp-emul"), args)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE oe_invnt_saldo SET qty_avl = qty_avl + 1, cost_inc = cost_inc + 100 WHERE id = 7`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	res := workloadtest.Exec(t, spec(t, "oltp-emul"), args)
	failed := map[string]string{}
	for _, c := range res.Checks {
		if !c.OK {
			failed[c.Name] = c.Detail
		}
	}
	if !strings.Contains(failed["saldo_equals_documents"], "ware 7:") || len(failed) != 1 || res.Summary.ChecksOK {
		t.Errorf("failed checks %v, checks_ok %v; want saldo_equals_documents to name ware 7, alone", failed, res.Summary.ChecksOK)
	}
}

// TestInterval: --interval 2s makes the series one point per two seconds,
// adding up to the phase's count, with exact (merged) percentiles.
func TestInterval(t *testing.T) {
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{"duration": "4s", "interval": "2s", "durability": "off"})
	var ok int64
	n := 0
	for _, s := range res.Series {
		if s.Phase != "measure" {
			continue
		}
		ok += s.OK
		n++
		if s.Dt > 2.2 || (s.Dt < 1.8 && n < 2) {
			t.Errorf("point of %.2f s: %+v", s.Dt, s)
		}
		if s.OK > 0 && (s.P99Us < s.P50Us || s.MaxUs < s.P99Us) {
			t.Errorf("percentiles out of order: %+v", s)
		}
	}
	if n < 2 || n > 3 || ok != res.Summary.OK {
		t.Errorf("%d measure points adding to %d, summary %d", n, ok, res.Summary.OK)
	}
	if res.Config.Interval.String() != "2s" {
		t.Errorf("interval recorded as %s", res.Config.Interval)
	}
}

// TestLogUnits: --log-units writes one line per unit, readable with zcat.
func TestLogUnits(t *testing.T) {
	res := workloadtest.Run(t, spec(t, "nms"), map[string]string{"units": "300", "log-units": "true", "lines": "300"})
	if res.UnitLog != session.UnitLogFile {
		t.Fatalf("unit_log %q", res.UnitLog)
	}
	// The SQLite file, and so its folder's device, is the result folder.
	f, err := os.Open(filepath.Join(res.Environment.DataDir.Path, session.UnitLogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(gz).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 301 || rows[0][0] != "t_s" || rows[1][4] != "ok" {
		t.Fatalf("%d rows, first %v %v", len(rows), rows[0], rows[min(1, len(rows)-1)])
	}
	for _, r := range rows[1:] {
		if us, err := strconv.Atoi(r[3]); err != nil || us <= 0 || r[2] != "call" || r[1] != "0" {
			t.Fatalf("row %v", r)
		}
	}
}

// TestStorage: the data's size when the measure phase began and ended, and
// its growth per hour, are in the result.
func TestStorage(t *testing.T) {
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{"db": "sqlite", "units": "3000", "warmup": "0"})
	st := res.Storage
	if st == nil {
		t.Fatal("no storage in the result")
	}
	if st.DataBegin <= 0 || st.DataEnd <= st.DataBegin || st.MeasuredSeconds <= 0 || st.DataPerHour <= 0 {
		t.Errorf("3000 rows inserted, yet %+v", st)
	}
}
