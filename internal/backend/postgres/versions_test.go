package postgres

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestEachVersion: a managed server of each version asked for by @MAJOR
// reports that version and its defaults, its counters are read (18 counts
// the WAL's flushes in pg_stat_io; 13 has no pg_stat_wal), and its
// integrity check passes on a table with an index (13 has no verify_heapam:
// its heaps go unchecked, and the detail says so).
func TestEachVersion(t *testing.T) {
	for _, n := range []int{13, 15, 18} {
		major := strconv.Itoa(n)
		t.Run(major, func(t *testing.T) {
			ctx := context.Background()
			db := openVersion(t, n)
			defer db.Close()
			e, err := db.Engine(ctx)
			if err != nil || !strings.HasPrefix(e.Version, major+".") || e.Defaults["max_connections"] == "" {
				t.Fatalf("version %q, %d defaults: %v", e.Version, len(e.Defaults), err)
			}
			conn, err := db.(backend.SQLDB).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := conn.ExecScript(ctx, "CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t SELECT g, 'x' FROM generate_series(1, 1000) g"); err != nil {
				t.Fatal(err)
			}
			_ = conn.Close()
			// pg_stat_wal, which counts the flushes, arrived in 14.
			st, err := db.(backend.Statser).Stats(ctx)
			if _, counted := st["flushes"]; err != nil || st["commits"] == 0 || counted != (major != "13") || counted && st["flushes"] == 0 {
				t.Errorf("stats on %s: %d commits, %d flushes: %v", major, st["commits"], st["flushes"], err)
			}
			ok, detail, err := db.(backend.Checker).Integrity(ctx)
			if err != nil || !ok || !strings.Contains(detail, "1 B-tree indexes") {
				t.Errorf("integrity: %v %q %v", ok, detail, err)
			}
			if unchecked := strings.Contains(detail, "unchecked"); unchecked != (major == "13") {
				t.Errorf("integrity on %s: %q", major, detail)
			}
		})
	}
}

// openVersion opens a managed server of PostgreSQL major at sync, once the
// test has found that version installed (a test without it is skipped,
// never in CI); the caller closes it.
func openVersion(t *testing.T, major int) backend.DB {
	t.Helper()
	if _, err := FindVersion(major); err != nil {
		testenv.Need(t, err) // .ci/run installs them: in CI this never skips
	}
	db, err := open(context.Background(), backend.Options{DB: managed + "@" + strconv.Itoa(major), Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once})
	if err != nil {
		t.Fatal(err)
	}
	return db
}
