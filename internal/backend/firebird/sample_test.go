package firebird

import (
	"context"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestSample: Sample's counters move with the workload's writes, record by
// record and page by page, while its own reads (a transaction each) are
// not counted as the workload's; it leaves out the gaps, which are levels.
func TestSample(t *testing.T) {
	db := openManaged(t)
	ctx := context.Background()
	c := backendtest.Conn(t, ctx, db, "CREATE TABLE IF NOT EXISTS t1 (id BIGINT PRIMARY KEY, v INTEGER)")
	s0 := backendtest.Sample(t, db)
	if s1 := backendtest.Sample(t, db); s1["commits"] != s0["commits"] {
		t.Errorf("nothing ran between two samples, yet commits %d → %d: the samples' own were counted", s0["commits"], s1["commits"])
	}
	if _, ok := s0["oldest_active_gap"]; ok {
		t.Errorf("a gap is a level, not a counter: %v", s0)
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(ctx, &backend.Stmt{SQL: sql}, args...); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		exec("INSERT INTO t1 (id, v) VALUES (?, 0)", i)
	}
	for i := range 5 {
		exec("UPDATE t1 SET v = v + 1 WHERE id = ?", i)
	}
	exec("DELETE FROM t1 WHERE id < ?", 3)
	// An update rolled back: its new version is backed out.
	backendtest.Must(t, c.Begin(ctx))
	exec("UPDATE t1 SET v = v + 1 WHERE id = ?", 9)
	backendtest.Must(t, c.Rollback(ctx))
	s2 := backendtest.Sample(t, db)
	for k, want := range map[string]int64{"inserts": 10, "updates": 6, "deletes": 3, "backouts": 1} {
		if d := s2[k] - s0[k]; d != want {
			t.Errorf("%s moved by %d, want %d", k, d, want)
		}
	}
	if d := s2["commits"] - s0["commits"]; d < 16 {
		t.Errorf("commits moved by %d over 16 transactions", d)
	}
	for _, k := range []string{"page_fetches", "page_marks", "page_writes", "flushes", "idx_reads"} {
		if s2[k] <= s0[k] {
			t.Errorf("%s did not move over 16 writing transactions: %d → %d", k, s0[k], s2[k])
		}
	}
}
