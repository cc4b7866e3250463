package pebble

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// TestConformance runs the backend suite on pebble, as the catalog does for
// every registered backend.
func TestConformance(t *testing.T) { backendtest.Run(t, Spec, nil) }

func openT(t *testing.T, o backend.Options) *db {
	t.Helper()
	return backendtest.Open(t, Spec, o).(*db)
}

func stat(t *testing.T, d *db, name string) int64 {
	t.Helper()
	m, err := d.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v, ok := m[name]
	if !ok {
		t.Fatalf("Stats has no %s: %v", name, m)
	}
	return v
}

// TestLazyBackgroundSync checks that the lazy mode fsyncs the WAL in the
// background: the counter moves, and so does pebble's count of WAL fsyncs.
func TestLazyBackgroundSync(t *testing.T) {
	d := openT(t, backend.Options{Durability: backend.Lazy})
	bg0, ws0 := stat(t, d, "background_syncs"), stat(t, d, "flushes")
	time.Sleep(350 * time.Millisecond)
	bg, ws := stat(t, d, "background_syncs")-bg0, stat(t, d, "flushes")-ws0
	if bg < 2 {
		t.Errorf("%d background syncs in 350ms at 100ms, want ≥ 2", bg)
	}
	if ws < bg {
		t.Errorf("pebble counted %d WAL fsyncs for %d background syncs", ws, bg)
	}
	// Off never syncs in the background.
	off := openT(t, backend.Options{Durability: backend.Off})
	time.Sleep(150 * time.Millisecond)
	if n := stat(t, off, "background_syncs"); n != 0 {
		t.Errorf("durability off made %d background syncs", n)
	}
}

// TestSyncCommitsFsync checks that every commit under sync is a WAL fsync,
// and that off commits without one.
func TestSyncCommitsFsync(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		dur  backend.Durability
		sync bool
	}{{backend.Sync, true}, {backend.Off, false}} {
		d := openT(t, backend.Options{Durability: c.dur})
		kc, _ := d.KVConn(ctx)
		backendtest.Must(t, kc.CreateTable(ctx, "t"))
		c0, s0 := stat(t, d, "commits"), stat(t, d, "flushes")
		for i := range 5 {
			backendtest.Must(t, kc.Begin(ctx, true))
			backendtest.Must(t, kc.Put(ctx, "t", fmt.Appendf(nil, "k%d", i), []byte("v")))
			backendtest.Must(t, kc.Commit(ctx))
		}
		if n := stat(t, d, "commits") - c0; n != 5 {
			t.Errorf("%s: %d commits counted for 5", c.dur, n)
		}
		syncs := stat(t, d, "flushes") - s0
		// Pebble records an fsync's latency after it wakes the committer:
		// the last one may show a moment later.
		for deadline := time.Now().Add(time.Second); c.sync && syncs < 5 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
			syncs = stat(t, d, "flushes") - s0
		}
		if c.sync && syncs < 5 {
			t.Errorf("sync: %d WAL fsyncs for 5 commits", syncs)
		}
		if !c.sync && syncs != 0 {
			t.Errorf("off: %d WAL fsyncs for 5 commits", syncs)
		}
		_ = kc.Close()
	}
}

// TestTransactions checks what the conformance suite does not: a write
// transaction reads its own writes, a read transaction reads a snapshot,
// DropTable empties the range, and several clients write at once.
func TestTransactions(t *testing.T) {
	ctx := context.Background()
	d := openT(t, backend.Options{})
	a, _ := d.KVConn(ctx)
	b, _ := d.KVConn(ctx)
	defer a.Close()
	defer b.Close()
	backendtest.Must(t, a.CreateTable(ctx, "t"))
	backendtest.Must(t, a.CreateTable(ctx, "t2")) // a neighbour whose name extends t's

	backendtest.Must(t, a.Begin(ctx, true))
	backendtest.Must(t, a.Put(ctx, "t", []byte("k"), []byte("own")))
	backendtest.Must(t, a.Put(ctx, "t2", []byte("k"), []byte("neighbour")))
	v, ok, err := a.Get(ctx, "t", []byte("k"))
	if err != nil || !ok || string(v) != "own" {
		t.Errorf("a transaction does not read its own write: %q %v %v", v, ok, err)
	}
	var keys []string
	backendtest.Must(t, a.Scan(ctx, "t", func(k, _ []byte) error { keys = append(keys, string(k)); return nil }))
	if !slices.Equal(keys, []string{"k"}) {
		t.Errorf("scan inside the transaction gave %q, want [k]", keys)
	}
	// Not committed: another connection sees nothing.
	backendtest.Must(t, b.Begin(ctx, false))
	if _, ok, _ := b.Get(ctx, "t", []byte("k")); ok {
		t.Error("an uncommitted write is visible to another connection")
	}
	backendtest.Must(t, a.Commit(ctx))
	// b's snapshot predates the commit.
	if _, ok, _ := b.Get(ctx, "t", []byte("k")); ok {
		t.Error("a read transaction sees a commit made after it began")
	}
	backendtest.Must(t, b.Rollback(ctx))
	if err := b.Put(ctx, "t", []byte("x"), nil); err == nil {
		t.Error("Put without a transaction succeeded")
	}
	backendtest.Must(t, b.Begin(ctx, false))
	if err := b.Begin(ctx, false); err == nil {
		t.Error("a second Begin on one connection succeeded")
	}
	if err := b.Put(ctx, "t", []byte("x"), nil); err == nil {
		t.Error("Put in a read transaction succeeded")
	}
	backendtest.Must(t, b.Rollback(ctx))

	// Several writers at once, each committing its own keys.
	const writers, each = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			c, _ := d.KVConn(ctx)
			defer c.Close()
			for i := range each {
				if err := c.Begin(ctx, true); err != nil {
					errs <- err
					return
				}
				if err := c.Put(ctx, "t", fmt.Appendf(nil, "w%d-%03d", w, i), []byte("v")); err != nil {
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
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	count := func(table string) int {
		n := 0
		backendtest.Must(t, a.Begin(ctx, false))
		backendtest.Must(t, a.Scan(ctx, table, func(_, _ []byte) error { n++; return nil }))
		backendtest.Must(t, a.Rollback(ctx))
		return n
	}
	if n := count("t"); n != writers*each+1 {
		t.Errorf("%d records after concurrent writers, want %d", n, writers*each+1)
	}

	// DropTable deletes the range, not the neighbour's; a new table of the same name is empty.
	backendtest.Must(t, a.DropTable(ctx, "t"))
	backendtest.Must(t, a.DropTable(ctx, "t")) // missing: not an error
	backendtest.Must(t, a.CreateTable(ctx, "t"))
	if n := count("t"); n != 0 {
		t.Errorf("%d records in a dropped and recreated table", n)
	}
	if n := count("t2"); n != 1 {
		t.Errorf("dropping t left %d records in t2, want 1", n)
	}
	if err := a.CreateTable(ctx, "bad\x00name"); err == nil {
		t.Error("a table name with a NUL byte was accepted")
	}

	ok, detail, err := d.Integrity(ctx)
	if err != nil || !ok {
		t.Errorf("Integrity: ok=%v err=%v %s", ok, err, detail)
	}
	if !strings.Contains(detail, "CheckLevels") || !strings.Contains(detail, "2 tables, 1 records") {
		t.Errorf("Integrity detail %q", detail)
	}
}

// TestReopen checks that committed data and tables survive a close, and that
// the integrity check runs on data flushed to tables.
func TestReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	o := backend.Options{DB: "pebble:" + dir + "/data", Durability: backend.Sync}
	d := openT(t, o)
	c, _ := d.KVConn(ctx)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	backendtest.Must(t, c.Begin(ctx, true))
	for i := range 100 {
		backendtest.Must(t, c.Put(ctx, "t", fmt.Appendf(nil, "%03d", i), []byte("v")))
	}
	backendtest.Must(t, c.Commit(ctx))
	_ = c.Close()
	backendtest.Must(t, d.pebble.Flush())
	backendtest.Must(t, d.Close())

	d = openT(t, o)
	if d.path != dir+"/data" {
		t.Errorf("path %q", d.path)
	}
	c, _ = d.KVConn(ctx)
	defer c.Close()
	backendtest.Must(t, c.Begin(ctx, false))
	n := 0
	backendtest.Must(t, c.Scan(ctx, "t", func(_, _ []byte) error { n++; return nil }))
	backendtest.Must(t, c.Rollback(ctx))
	if n != 100 {
		t.Errorf("%d records after reopening, want 100", n)
	}
	ok, detail, err := d.Integrity(ctx)
	if err != nil || !ok || !strings.Contains(detail, "100 records") {
		t.Errorf("Integrity: ok=%v err=%v %s", ok, err, detail)
	}
}

// TestSettings checks that --set values reach pebble and are read back, and
// that bad ones are refused as bad input.
func TestSettings(t *testing.T) {
	ctx := context.Background()
	d := openT(t, backend.Options{Durability: backend.Lazy, Set: []backend.KeyValue{
		{Key: "MemTableSize", Value: "8MB"}, {Key: "L0CompactionThreshold", Value: "2"},
		{Key: "BytesPerSync", Value: "1048576"}, {Key: "WALBytesPerSync", Value: "64KB"},
		{Key: "CacheSize", Value: "16MB"}, {Key: "SyncInterval", Value: "50ms"},
	}})
	e, err := d.Engine(ctx)
	backendtest.Must(t, err)
	want := map[string]string{
		"MemTableSize": "8388608", "L0CompactionThreshold": "2", "BytesPerSync": "1048576",
		"WALBytesPerSync": "65536", "CacheSize": "16777216", "wal_sync": "background every 50ms",
		"commit_sync": "false", "DisableWAL": "false",
	}
	for k, v := range want {
		if got := e.Settings[k]; got != v {
			t.Errorf("%s read back %q, want %q", k, got, v)
		}
	}
	if e.Name != "pebble" || !strings.HasPrefix(e.Driver, module) || e.Settings["FormatMajorVersion"] == "" {
		t.Errorf("engine %+v", e)
	}

	off := openT(t, backend.Options{Durability: backend.Off, Set: []backend.KeyValue{{Key: "DisableWAL", Value: "true"}}})
	e, err = off.Engine(ctx)
	backendtest.Must(t, err)
	if e.Settings["DisableWAL"] != "true" || e.Settings["wal_sync"] != "none" {
		t.Errorf("off with DisableWAL read back %v", e.Settings)
	}

	for _, c := range []struct {
		dur  backend.Durability
		set  backend.KeyValue
		want string
	}{
		{backend.Sync, backend.KeyValue{Key: "NoSuch", Value: "1"}, "MemTableSize"},
		{backend.Sync, backend.KeyValue{Key: "MemTableSize", Value: "lots"}, "size in bytes"},
		{backend.Sync, backend.KeyValue{Key: "MemTableSize", Value: "8GB"}, "refuses"},
		{backend.Sync, backend.KeyValue{Key: "DisableWAL", Value: "true"}, "durability off"},
		{backend.Lazy, backend.KeyValue{Key: "DisableWAL", Value: "true"}, "durability off"},
		{backend.Sync, backend.KeyValue{Key: "SyncInterval", Value: "0s"}, "duration"},
	} {
		_, err := Spec.Open(ctx, backend.Options{DB: "pebble", Dir: t.TempDir(), Durability: c.dur, Set: []backend.KeyValue{c.set}})
		var bad *knob.Error
		if !errors.As(err, &bad) || !strings.Contains(err.Error()+bad.Hint, c.want) {
			t.Errorf("--set %s=%s under %s: %v, want a bad-input error mentioning %q", c.set.Key, c.set.Value, c.dur, err, c.want)
		}
	}
}

// TestSample: Sample's counters move with writes, a memtable flush and a
// compaction, each by what pebble did; the levels are left out.
func TestSample(t *testing.T) {
	ctx := context.Background()
	d := openT(t, backend.Options{Durability: backend.Sync})
	s0 := backendtest.Sample(t, d)
	if _, ok := s0["read_amp"]; ok {
		t.Errorf("read amplification is a level, not a counter: %v", s0)
	}
	c, err := d.KVConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	write := func() {
		for i := range 100 {
			backendtest.Must(t, c.Begin(ctx, true))
			backendtest.Must(t, c.Put(ctx, "t", fmt.Appendf(nil, "k%03d", i), []byte(strings.Repeat("v", 100))))
			backendtest.Must(t, c.Commit(ctx))
		}
	}
	write()
	s1 := backendtest.Sample(t, d)
	// Pebble records an fsync's latency after it wakes the committer: the
	// last one may show a moment later (TestSyncCommitsFsync).
	for deadline := time.Now().Add(time.Second); s1["flushes"]-s0["flushes"] < 101 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		s1 = backendtest.Sample(t, d)
	}
	if n := s1["commits"] - s0["commits"]; n != 101 { // the CREATE TABLE's catalog key, and 100
		t.Errorf("commits moved by %d for 101", n)
	}
	if s1["flushes"]-s0["flushes"] < 101 {
		t.Errorf("WAL fsyncs moved by %d over 101 synced commits", s1["flushes"]-s0["flushes"])
	}
	if n := s1["wal_bytes_in"] - s0["wal_bytes_in"]; n < 100*100 {
		t.Errorf("wal_bytes_in moved by %d over 10,000 bytes of values", n)
	}
	backendtest.Must(t, d.pebble.Flush())
	s2 := backendtest.Sample(t, d)
	if n := s2["memtable_flushes"] - s1["memtable_flushes"]; n != 1 {
		t.Errorf("memtable_flushes moved by %d over one Flush", n)
	}
	if s2["bytes_flushed"] <= s1["bytes_flushed"] {
		t.Errorf("bytes_flushed did not move over a flush: %d", s2["bytes_flushed"])
	}
	// A second table in L0 overlapping the first, then a manual compaction.
	write()
	backendtest.Must(t, d.pebble.Flush())
	s3 := backendtest.Sample(t, d)
	backendtest.Must(t, d.pebble.Compact(ctx, []byte{0}, []byte{0xff}, false))
	s4 := backendtest.Sample(t, d)
	if s4["compactions"] <= s3["compactions"] || s4["bytes_compacted"] <= s3["bytes_compacted"] {
		t.Errorf("a manual compaction: compactions %d → %d, bytes %d → %d", s3["compactions"], s4["compactions"], s3["bytes_compacted"], s4["bytes_compacted"])
	}
}
