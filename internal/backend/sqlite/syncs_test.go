package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/sqlite"
)

// TestSyncsCounted: the VFS shim counts the xSync calls SQLite makes, by
// file: with synchronous=FULL every commit syncs the WAL; with OFF nothing
// is ever synced, a checkpoint included; with NORMAL the WAL and the
// database file are synced only at a checkpoint. Two databases open at
// once count apart.
func TestSyncsCounted(t *testing.T) {
	ctx := context.Background()
	const n = 25
	counts := map[backend.Durability]map[string]int64{}
	for _, d := range []backend.Durability{backend.Sync, backend.Lazy, backend.Off} {
		db := backendtest.Open(t, sqlite.Spec, backend.Options{DB: "sqlite", Durability: d, Conns: 1})
		c := backendtest.Conn(t, ctx, db.(backend.SQLDB), "CREATE TABLE t (id INTEGER PRIMARY KEY)")
		before := stats(t, db)
		ins := &backend.Stmt{SQL: "INSERT INTO t (id) VALUES (?)"}
		for i := range n {
			noErr(t, c.Begin(ctx))
			if _, err := c.Exec(ctx, ins, i); err != nil {
				t.Fatal(err)
			}
			noErr(t, c.Commit(ctx))
		}
		mid := stats(t, db)
		noErr(t, c.ExecScript(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"))
		after := stats(t, db)
		counts[d] = map[string]int64{
			"commits": mid["commits"] - before["commits"], "flushes": mid["flushes"] - before["flushes"],
			"wal_syncs":      mid["wal_syncs"] - before["wal_syncs"],
			"checkpoint_wal": after["wal_syncs"] - mid["wal_syncs"], "checkpoint_db": after["db_syncs"] - mid["db_syncs"],
		}
		if mid["flushes"] < mid["wal_syncs"]+mid["db_syncs"] {
			t.Errorf("durability=%s: flushes %d count fewer than the WAL's %d and the file's %d", d, mid["flushes"], mid["wal_syncs"], mid["db_syncs"])
		}
	}
	t.Logf("%v", counts)
	sync, lazy, off := counts[backend.Sync], counts[backend.Lazy], counts[backend.Off]
	if sync["commits"] != n || sync["wal_syncs"] < n {
		t.Errorf("synchronous=FULL: %d WAL syncs for %d commits, want one each at least", sync["wal_syncs"], sync["commits"])
	}
	if lazy["flushes"] != 0 || lazy["checkpoint_wal"] < 1 || lazy["checkpoint_db"] < 1 {
		t.Errorf("synchronous=NORMAL: %d syncs for %d commits (want none), then %d of the WAL and %d of the file at the checkpoint (want some)",
			lazy["flushes"], lazy["commits"], lazy["checkpoint_wal"], lazy["checkpoint_db"])
	}
	if off["flushes"] != 0 || off["checkpoint_wal"]+off["checkpoint_db"] != 0 {
		t.Errorf("synchronous=OFF: %v, want no sync at all", off)
	}
}

func stats(t *testing.T, db backend.DB) map[string]int64 {
	t.Helper()
	m, err := db.(backend.Statser).Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"flushes", "wal_syncs", "db_syncs"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("no %s in %v", k, m)
		}
	}
	return m
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(fmt.Sprint(err))
	}
}
