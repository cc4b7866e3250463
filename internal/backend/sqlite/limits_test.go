package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// TestLimits: many connections' page caches and SQLite's single writer are
// said before the run, and only when they apply.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		set     []backend.KeyValue
		conns   int
		writes  bool
		caches  bool // the note on page caches
		writers bool // the note on the single writer
	}{
		{name: "1000 readers", conns: 1000, caches: true},
		{name: "1000 readers with mmap", set: []backend.KeyValue{{Key: "mmap_size", Value: "268435456"}}, conns: 1000},
		{name: "8 writers", conns: 8, writes: true, writers: true},
		{name: "1 writer", conns: 1, writes: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, err := open(t, backend.Options{DB: "sqlite", Set: c.set})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			notes, err := db.(backend.Limiter).Limits(ctx, c.conns, c.writes)
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(notes, "\n")
			if got := strings.Contains(all, "page cache of 2.0 MiB") && strings.Contains(all, "up to 1.9 GiB"); got != c.caches {
				t.Errorf("page-cache note %v, want %v: %q", got, c.caches, all)
			}
			if got := strings.Contains(all, "one connection write at a time"); got != c.writers {
				t.Errorf("single-writer note %v, want %v: %q", got, c.writers, all)
			}
		})
	}
}
