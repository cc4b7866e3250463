package bbolt

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestSample: Sample's counters move with write transactions by what bbolt
// did (pages allocated, spilled and written, two fdatasyncs a synced
// commit) and with a read transaction; the free pages, a level, are
// left out.
func TestSample(t *testing.T) {
	ctx := context.Background()
	d := backendtest.Open(t, Spec, backend.Options{Durability: backend.Sync}).(*db)
	c := backendtest.KVConn(t, d)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	s0 := backendtest.Sample(t, d)
	if _, ok := s0["free_pages"]; ok {
		t.Errorf("free pages are a level, not a counter: %v", s0)
	}
	for i := range 20 {
		backendtest.Must(t, c.Begin(ctx, true))
		backendtest.Must(t, c.Put(ctx, "t", fmt.Appendf(nil, "k%03d", i), []byte(strings.Repeat("v", 1000))))
		backendtest.Must(t, c.Commit(ctx))
	}
	backendtest.Must(t, c.Begin(ctx, false))
	if _, _, err := c.Get(ctx, "t", []byte("k000")); err != nil {
		t.Fatal(err)
	}
	backendtest.Must(t, c.Commit(ctx))
	s1 := backendtest.Sample(t, d)
	for k, want := range map[string]int64{"commits": 20, "commit_syncs": 40, "flushes": 40} {
		if n := s1[k] - s0[k]; n != want {
			t.Errorf("%s moved by %d over 20 synced write transactions, want %d", k, n, want)
		}
	}
	for _, k := range []string{"pages_written", "pages_allocated", "spills", "read_txs"} {
		if s1[k] <= s0[k] {
			t.Errorf("%s did not move: %d → %d", k, s0[k], s1[k])
		}
	}
}
