package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/sqlite"
)

// TestSample: Sample's byte counters follow SQLite's files: each commit
// writes at least a page to the WAL and none to the database file, which a
// checkpoint then writes; the page count, a level, is Stats' only.
func TestSample(t *testing.T) {
	ctx := context.Background()
	const n = 20
	db := backendtest.Open(t, sqlite.Spec, backend.Options{DB: "sqlite", Durability: backend.Sync, Conns: 1})
	c := backendtest.Conn(t, ctx, db.(backend.SQLDB), "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
	noErr(t, c.ExecScript(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"))
	s0 := backendtest.Sample(t, db.(backend.Sampler))
	if _, ok := s0["page_count"]; ok {
		t.Errorf("the page count is a level, not a counter: %v", s0)
	}
	ins := &backend.Stmt{SQL: "INSERT INTO t (id, v) VALUES (?, ?)"}
	for i := range n {
		noErr(t, c.Begin(ctx))
		if _, err := c.Exec(ctx, ins, i, strings.Repeat("v", 1000)); err != nil {
			t.Fatal(err)
		}
		noErr(t, c.Commit(ctx))
	}
	s1 := backendtest.Sample(t, db.(backend.Sampler))
	pageSize := int64(4096)
	if d := s1["commits"] - s0["commits"]; d != n {
		t.Errorf("commits moved by %d for %d", d, n)
	}
	if d := s1["wal_bytes"] - s0["wal_bytes"]; d < n*pageSize {
		t.Errorf("the WAL's bytes moved by %d over %d commits of a %d-byte page each at least", d, n, pageSize)
	}
	if d := s1["db_bytes_written"] - s0["db_bytes_written"]; d != 0 {
		t.Errorf("%d bytes written to the database file before any checkpoint", d)
	}
	noErr(t, c.ExecScript(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"))
	s2 := backendtest.Sample(t, db.(backend.Sampler))
	if d := s2["db_bytes_written"] - s1["db_bytes_written"]; d < pageSize {
		t.Errorf("a checkpoint wrote %d bytes to the database file", d)
	}
}
