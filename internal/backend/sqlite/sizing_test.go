package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/sqlite"
	"github.com/dbgauge/dbgauge/internal/knob"
)

func open(t *testing.T, o backend.Options) (backend.DB, error) {
	t.Helper()
	o.Durability, o.Prepare, o.Conns = backend.Sync, backend.Once, 1
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	return sqlite.Spec.Open(context.Background(), o)
}

// TestPageSizeAndCacheReadBack: --page-size and --cache reach SQLite (a new
// database's page size, each connection's cache_size in KiB) and are read
// back from it, for two values of each.
func TestPageSizeAndCacheReadBack(t *testing.T) {
	for _, c := range []struct{ page, cache int64 }{{4096, 2 << 20}, {16384, 64 << 20}} {
		t.Run(fmt.Sprintf("page_size=%d/cache=%d", c.page, c.cache), func(t *testing.T) {
			db, err := open(t, backend.Options{DB: "sqlite", PageSize: c.page, CacheBytes: c.cache})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			e, err := db.Engine(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if e.Settings["page_size"] != fmt.Sprint(c.page) || e.PageSize != c.page {
				t.Errorf("page_size read back %q (%d), want %d", e.Settings["page_size"], e.PageSize, c.page)
			}
			if e.Settings["cache_size"] != fmt.Sprint(-c.cache/1024) || e.CacheBytes != c.cache {
				t.Errorf("cache_size read back %q (%d bytes), want -%d KiB", e.Settings["cache_size"], e.CacheBytes, c.cache/1024)
			}
		})
	}
}

// TestPageSizeRefused: a page size SQLite ignores (not a power of two) and
// one an existing database does not have are bad input, not a silent
// default.
func TestPageSizeRefused(t *testing.T) {
	bad := func(t *testing.T, err error) {
		t.Helper()
		var k *knob.Error
		if !errors.As(err, &k) {
			t.Fatalf("got %v, want bad input", err)
		}
		t.Log(err)
	}
	t.Run("set=page_size=3000", func(t *testing.T) {
		_, err := open(t, backend.Options{DB: "sqlite", Set: []backend.KeyValue{{Key: "page_size", Value: "3000"}}})
		bad(t, err)
	})
	t.Run("existing=4096/asked=8192", func(t *testing.T) {
		path := "sqlite:" + t.TempDir() + "/x.db"
		db, err := open(t, backend.Options{DB: path, PageSize: 4096})
		if err != nil {
			t.Fatal(err)
		}
		_ = db.Close()
		_, err = open(t, backend.Options{DB: path, PageSize: 8192})
		bad(t, err)
	})
	t.Run("page-size=8192/set=page_size=4096", func(t *testing.T) {
		_, err := open(t, backend.Options{DB: "sqlite", PageSize: 8192, Set: []backend.KeyValue{{Key: "page_size", Value: "4096"}}})
		bad(t, err)
	})
}
