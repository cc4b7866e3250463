//go:build cgo

package gdbm

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestSample: Sample's counters move with the work: puts and commits as
// dbgauge counts them, and gdbm's own bucket cache accesses, one at least
// for each read; the files' shapes, levels, are left out.
func TestSample(t *testing.T) {
	ctx := context.Background()
	d := openDB(t, backend.Options{Durability: backend.Sync})
	c := backendtest.KVConn(t, d)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	s0 := backendtest.Sample(t, d)
	if _, ok := s0["records"]; ok {
		t.Errorf("records are a level, not a counter: %v", s0)
	}
	commit(t, c, "t", 50, "v")
	backendtest.Must(t, c.Begin(ctx, false))
	for i := range 50 {
		if _, found, err := c.Get(ctx, "t", fmt.Appendf(nil, "key%d", i)); err != nil || !found {
			t.Fatalf("key%d: found %v, %v", i, found, err)
		}
	}
	backendtest.Must(t, c.Commit(ctx))
	s1 := backendtest.Sample(t, d)
	if n := s1["puts"] - s0["puts"]; n != 50 {
		t.Errorf("puts moved by %d for 50", n)
	}
	if n := s1["flushes"] - s0["flushes"]; n < 1 {
		t.Errorf("a synced commit: flushes moved by %d", n)
	}
	if n := s1["cache_accesses"] - s0["cache_accesses"]; n < 50 {
		t.Errorf("50 reads: gdbm's bucket cache accesses moved by %d", n)
	}
	if s1["cache_hits"] > s1["cache_accesses"] {
		t.Errorf("cache hits %d above its accesses %d", s1["cache_hits"], s1["cache_accesses"])
	}
}
