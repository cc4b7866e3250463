//go:build cgo

package gdbm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// TestConformance runs the backend suite on gdbm, as the catalog's does.
func TestConformance(t *testing.T) { backendtest.Run(t, Spec, nil) }

func openDB(t *testing.T, o backend.Options) *db {
	t.Helper()
	return backendtest.Open(t, Spec, o).(*db)
}

func stats(t *testing.T, d *db) map[string]int64 {
	t.Helper()
	m, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// commit writes n records key0…key(n-1) = v in one transaction.
func commit(t *testing.T, c backend.KVConn, table string, n int, v string) {
	t.Helper()
	ctx := context.Background()
	backendtest.Must(t, c.Begin(ctx, true))
	for i := range n {
		backendtest.Must(t, c.Put(ctx, table, fmt.Appendf(nil, "key%d", i), []byte(v)))
	}
	backendtest.Must(t, c.Commit(ctx))
}

// The lazy mode's flusher syncs written files in the background, and only
// the flusher syncs.
func TestLazyBackgroundSync(t *testing.T) {
	d := openDB(t, backend.Options{Durability: backend.Lazy, Set: []backend.KeyValue{{Key: "SyncInterval", Value: "10ms"}}})
	e, err := d.Engine(context.Background())
	backendtest.Must(t, err)
	if got := e.Settings["background_sync"]; got != "10ms" {
		t.Errorf("background_sync = %q, want 10ms", got)
	}
	c := backendtest.KVConn(t, d)
	backendtest.Must(t, c.CreateTable(context.Background(), "t"))
	waitSyncs := func(atLeast int64) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for stats(t, d)["background_syncs"] < atLeast {
			if time.Now().After(deadline) {
				t.Fatalf("background_syncs = %d after 5 s, want at least %d", stats(t, d)["background_syncs"], atLeast)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	commit(t, c, "t", 10, "a")
	waitSyncs(1)
	n := stats(t, d)["background_syncs"]
	commit(t, c, "t", 10, "b")
	waitSyncs(n + 1)
	m := stats(t, d)
	if m["commit_syncs"] != 0 {
		t.Errorf("lazy mode synced %d times at commit, want 0", m["commit_syncs"])
	}
	if m["flushes"] != m["background_syncs"] {
		t.Errorf("flushes %d != background_syncs %d", m["flushes"], m["background_syncs"])
	}
	// Nothing written, nothing synced: the flusher skips clean files.
	time.Sleep(50 * time.Millisecond)
	idle := stats(t, d)["background_syncs"]
	time.Sleep(50 * time.Millisecond)
	if got := stats(t, d)["background_syncs"]; got != idle {
		t.Errorf("the flusher synced %d clean files", got-idle)
	}
	backendtest.Must(t, d.Close())
	if _, err := d.Stats(context.Background()); err == nil {
		t.Error("Stats after Close succeeded")
	}
}

// sync syncs at every writing commit; off never syncs.
func TestSyncAndOffCounters(t *testing.T) {
	for _, dur := range []backend.Durability{backend.Sync, backend.Off} {
		t.Run(string(dur), func(t *testing.T) {
			d := openDB(t, backend.Options{Durability: dur})
			c := backendtest.KVConn(t, d)
			backendtest.Must(t, c.CreateTable(context.Background(), "t"))
			before := stats(t, d)
			for range 3 {
				commit(t, c, "t", 2, "v")
			}
			backendtest.Must(t, c.Begin(context.Background(), true)) // writes nothing
			backendtest.Must(t, c.Commit(context.Background()))
			after := stats(t, d)
			if got := after["commits"] - before["commits"]; got != 4 {
				t.Errorf("commits %d, want 4", got)
			}
			if got := after["write_xacts"] - before["write_xacts"]; got != 3 {
				t.Errorf("write_xacts %d, want 3", got)
			}
			want := int64(3)
			if dur == backend.Off {
				want = 0
			}
			if got := after["flushes"] - before["flushes"]; got != want {
				t.Errorf("flushes %d, want %d", got, want)
			}
			if after["records.t"] != 2 || after["puts"]-before["puts"] != 6 {
				t.Errorf("records.t %d puts %d, want 2 and 6", after["records.t"], after["puts"]-before["puts"])
			}
		})
	}
}

// A transaction reads its own writes; other connections see them only at
// commit; Scan merges them in key order; Rollback discards them.
func TestBufferedTransaction(t *testing.T) {
	ctx := context.Background()
	d := openDB(t, backend.Options{})
	c, other := backendtest.KVConn(t, d), backendtest.KVConn(t, d)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	backendtest.Must(t, c.Begin(ctx, true))
	for _, k := range []string{"d", "b", "a"} {
		backendtest.Must(t, c.Put(ctx, "t", []byte(k), []byte("1"+k)))
	}
	backendtest.Must(t, c.Commit(ctx))

	backendtest.Must(t, c.Begin(ctx, true))
	backendtest.Must(t, c.Put(ctx, "t", []byte("c"), []byte("2c")))
	backendtest.Must(t, c.Put(ctx, "t", []byte("a"), []byte("2a")))
	backendtest.Must(t, c.Delete(ctx, "t", []byte("d")))
	backendtest.Must(t, c.Put(ctx, "t", []byte("e"), []byte{})) // an empty value is a value
	if v, ok, err := c.Get(ctx, "t", []byte("a")); err != nil || !ok || string(v) != "2a" {
		t.Errorf("own write: Get a = %q %v %v", v, ok, err)
	}
	if _, ok, _ := c.Get(ctx, "t", []byte("d")); ok {
		t.Error("own delete: d is still there")
	}
	scan := func(c backend.KVConn) string {
		var s []string
		backendtest.Must(t, c.Scan(ctx, "t", func(k, v []byte) error { s = append(s, string(k)+"="+string(v)); return nil }))
		return strings.Join(s, " ")
	}
	if got, want := scan(c), "a=2a b=1b c=2c e="; got != want {
		t.Errorf("scan inside the transaction = %q, want %q", got, want)
	}
	backendtest.Must(t, other.Begin(ctx, false))
	if got, want := scan(other), "a=1a b=1b d=1d"; got != want {
		t.Errorf("another connection sees %q before commit, want %q", got, want)
	}
	backendtest.Must(t, other.Rollback(ctx))
	backendtest.Must(t, c.Commit(ctx))
	backendtest.Must(t, other.Begin(ctx, false))
	if got, want := scan(other), "a=2a b=1b c=2c e="; got != want {
		t.Errorf("after commit: %q, want %q", got, want)
	}
	if v, ok, err := other.Get(ctx, "t", []byte("e")); err != nil || !ok || len(v) != 0 {
		t.Errorf("empty value: %q %v %v", v, ok, err)
	}
	if err := other.Put(ctx, "t", []byte("x"), nil); err == nil {
		t.Error("a write in a read-only transaction succeeded")
	}
	backendtest.Must(t, other.Rollback(ctx))

	backendtest.Must(t, c.Begin(ctx, true))
	backendtest.Must(t, c.Delete(ctx, "t", []byte("a")))
	backendtest.Must(t, c.Rollback(ctx))
	backendtest.Must(t, c.Begin(ctx, false))
	if _, ok, _ := c.Get(ctx, "t", []byte("a")); !ok {
		t.Error("a rolled-back delete removed a")
	}
	if err := c.Put(ctx, "nope", []byte("k"), nil); err == nil {
		t.Error("Put on a missing table succeeded")
	}
	backendtest.Must(t, c.Rollback(ctx))
	if err := c.Commit(ctx); err == nil {
		t.Error("Commit without a transaction succeeded")
	}
}

// gdbm takes an empty key and an empty value.
func TestEmptyKey(t *testing.T) {
	ctx := context.Background()
	c := backendtest.KVConn(t, openDB(t, backend.Options{}))
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	backendtest.Must(t, c.Begin(ctx, true))
	backendtest.Must(t, c.Put(ctx, "t", nil, []byte("empty key")))
	backendtest.Must(t, c.Put(ctx, "t", []byte("k"), nil))
	backendtest.Must(t, c.Commit(ctx))
	backendtest.Must(t, c.Begin(ctx, false))
	if v, ok, err := c.Get(ctx, "t", []byte{}); err != nil || !ok || string(v) != "empty key" {
		t.Errorf("empty key: %q %v %v", v, ok, err)
	}
	if v, ok, err := c.Get(ctx, "t", []byte("k")); err != nil || !ok || len(v) != 0 {
		t.Errorf("empty value: %q %v %v", v, ok, err)
	}
	backendtest.Must(t, c.Rollback(ctx))
}

// Write transactions run one at a time: concurrent read-modify-writes of
// one counter lose nothing, while a reader scans.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	d := openDB(t, backend.Options{Durability: backend.Off})
	setup := backendtest.KVConn(t, d)
	backendtest.Must(t, setup.CreateTable(ctx, "n"))
	const clients, each = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, clients+1)
	for w := range clients {
		c := backendtest.KVConn(t, d)
		wg.Go(func() {
			for i := range each {
				if err := c.Begin(ctx, true); err != nil {
					errs <- err
					return
				}
				v, _, err := c.Get(ctx, "n", []byte("counter"))
				if err != nil {
					errs <- err
					return
				}
				var n uint64
				if len(v) == 8 {
					n = binary.BigEndian.Uint64(v)
				}
				if err := c.Put(ctx, "n", []byte("counter"), binary.BigEndian.AppendUint64(nil, n+1)); err != nil {
					errs <- err
					return
				}
				if err := c.Put(ctx, "n", fmt.Appendf(nil, "w%d-%03d", w, i), []byte("x")); err != nil {
					errs <- err
					return
				}
				if err := c.Commit(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	r := backendtest.KVConn(t, d)
	wg.Go(func() {
		for range 20 {
			if err := r.Begin(ctx, false); err != nil {
				errs <- err
				return
			}
			var prev []byte
			err := r.Scan(ctx, "n", func(k, _ []byte) error {
				if prev != nil && string(prev) >= string(k) {
					return fmt.Errorf("scan out of order: %q then %q", prev, k)
				}
				prev = k
				return nil
			})
			_ = r.Rollback(ctx)
			if err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	backendtest.Must(t, setup.Begin(ctx, false))
	v, ok, err := setup.Get(ctx, "n", []byte("counter"))
	backendtest.Must(t, err)
	if !ok || binary.BigEndian.Uint64(v) != clients*each {
		t.Errorf("counter = %v (%v), want %d", v, ok, clients*each)
	}
	backendtest.Must(t, setup.Rollback(ctx))
	if got := stats(t, d)["records.n"]; got != clients*each+1 {
		t.Errorf("records.n = %d, want %d", got, clients*each+1)
	}
}

// A writer waiting for the writer slot gives up when its context ends.
func TestBeginHonoursContext(t *testing.T) {
	d := openDB(t, backend.Options{})
	a, b := backendtest.KVConn(t, d), backendtest.KVConn(t, d)
	backendtest.Must(t, a.Begin(context.Background(), true))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b.Begin(ctx, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Begin while another writer holds the slot: %v, want deadline exceeded", err)
	}
	backendtest.Must(t, a.Rollback(context.Background()))
	backendtest.Must(t, b.Begin(context.Background(), true))
	backendtest.Must(t, b.Rollback(context.Background()))
}

// gdbm:PATH keeps its tables across a reopen; the catalog lists them;
// Integrity walks every key; DropTable removes the file.
func TestReopenIntegrityDrop(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "data.gdbm")
	d := openDB(t, backend.Options{DB: "gdbm:" + path})
	c := backendtest.KVConn(t, d)
	backendtest.Must(t, c.CreateTable(ctx, "vsat"))
	backendtest.Must(t, c.CreateTable(ctx, "odd/name"))
	commit(t, c, "vsat", 500, "v")
	commit(t, c, "odd/name", 3, "o")
	backendtest.Must(t, c.Close())
	backendtest.Must(t, d.Close())
	for _, f := range []string{"data.gdbm", "data.vsat.gdbm", "data.odd%2Fname.gdbm"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("file %s: %v", f, err)
		}
	}

	d = openDB(t, backend.Options{DB: "gdbm:" + path})
	e, err := d.Engine(ctx)
	backendtest.Must(t, err)
	if e.Path != path || e.Driver != "cgo libgdbm" || e.Version == "" {
		t.Errorf("engine %+v", e)
	}
	ok, detail, err := d.Integrity(ctx)
	backendtest.Must(t, err)
	if !ok || !strings.Contains(detail, "505 keys") { // 500 + 3 records, 2 catalog entries
		t.Errorf("Integrity = %v, %q", ok, detail)
	}
	t.Log(detail)
	m := stats(t, d)
	if m["records.vsat"] != 500 || m["records.odd/name"] != 3 || m["tables"] != 2 || m["buckets.vsat"] < 1 || m["file_bytes.vsat"] <= 0 {
		t.Errorf("stats %v", m)
	}
	c = backendtest.KVConn(t, d)
	backendtest.Must(t, c.Begin(ctx, false))
	var keys []string
	backendtest.Must(t, c.Scan(ctx, "vsat", func(k, _ []byte) error { keys = append(keys, string(k)); return nil }))
	if len(keys) != 500 || !slices.IsSorted(keys) {
		t.Errorf("scan after reopen: %d keys, sorted %v", len(keys), slices.IsSorted(keys))
	}
	backendtest.Must(t, c.Rollback(ctx))
	backendtest.Must(t, c.DropTable(ctx, "vsat"))
	if _, err := os.Stat(filepath.Join(dir, "data.vsat.gdbm")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dropped table's file: %v", err)
	}
	backendtest.Must(t, d.Close())
	d = openDB(t, backend.Options{DB: "gdbm:" + path})
	if d.hasTable("vsat") || !d.hasTable("odd/name") {
		t.Error("the catalog did not keep the drop")
	}
}

// A file the catalog lists but that is gone is an error, not an empty table.
func TestMissingTableFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.gdbm")
	d := openDB(t, backend.Options{DB: "gdbm:" + path})
	backendtest.Must(t, backendtest.KVConn(t, d).CreateTable(context.Background(), "t"))
	backendtest.Must(t, d.Close())
	backendtest.Must(t, os.Remove(filepath.Join(dir, "data.t.gdbm")))
	_, err := Spec.Open(context.Background(), backend.Options{DB: "gdbm:" + path, Dir: dir, Durability: backend.Sync, Prepare: backend.Once})
	if err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("open with a table file missing: %v", err)
	}
}

// --set values reach gdbm and are read back; bad ones are refused as bad
// input.
func TestSettings(t *testing.T) {
	d := openDB(t, backend.Options{Set: []backend.KeyValue{
		{Key: "cache_size", Value: "37"}, {Key: "block_size", Value: "8192"}, {Key: "mmap", Value: "false"},
		{Key: "centfree", Value: "true"}, {Key: "coalesce_blocks", Value: "true"},
	}})
	e, err := d.Engine(context.Background())
	backendtest.Must(t, err)
	// gdbm rounds the cache up to a power of two.
	want := map[string]string{"cache_size": "64", "cache_auto": "false", "block_size": "8192", "mmap": "false", "centfree": "true", "coalesce_blocks": "true", "sync_mode": "false"}
	for k, v := range want {
		if got := e.Settings[k]; got != v {
			t.Errorf("%s read back %q, want %q", k, got, v)
		}
	}
	t.Logf("engine %s %s: %v", e.Version, e.Driver, e.Settings)
	// The defaults read back as gdbm's defaults.
	e, err = openDB(t, backend.Options{}).Engine(context.Background())
	backendtest.Must(t, err)
	for k, v := range map[string]string{"cache_auto": "true", "mmap": "true", "centfree": "false", "coalesce_blocks": "false"} {
		if got := e.Settings[k]; got != v {
			t.Errorf("default %s read back %q, want %q", k, got, v)
		}
	}
	for _, kv := range []backend.KeyValue{
		{Key: "cache_size", Value: "-1"}, {Key: "block_size", Value: "big"}, {Key: "mmap", Value: "maybe"},
		{Key: "SyncInterval", Value: "0"}, {Key: "PageSize", Value: "4096"},
	} {
		_, err := Spec.Open(context.Background(), backend.Options{DB: "gdbm", Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once, Set: []backend.KeyValue{kv}})
		var ke *knob.Error
		if !errors.As(err, &ke) {
			t.Errorf("--set %s=%s: %v, want a *knob.Error", kv.Key, kv.Value, err)
		}
		if kv.Key == "PageSize" && (err == nil || !strings.Contains(err.Error(), "cache_size")) {
			t.Errorf("an unknown key's error does not name the keys that exist: %v", err)
		}
	}
}
