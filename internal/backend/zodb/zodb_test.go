package zodb

import (
	"context"
	"errors"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/pyworker"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// openFile opens a fresh FileStorage through the real worker and ZODB.
func openFile(t *testing.T) *DB {
	t.Helper()
	python := testenv.PythonEnv(t, Env)
	d, err := Open(context.Background(), Config{Engine: "zodb", Python: python, Shared: true,
		Storage: Storage{Kind: "file", Path: filepath.Join(t.TempDir(), "Data.fs")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestConflictIsRetryable: two clients read a record and write it; the
// second commit is refused by ZODB's ConflictError (its store's serial is
// not the one committed), classified retryable, and leaves the first
// client's value; the second client's snapshot kept the old value until
// then.
func TestConflictIsRetryable(t *testing.T) {
	ctx := context.Background()
	d := openFile(t)
	a, b := backendtest.KVConn(t, d), backendtest.KVConn(t, d)
	backendtest.Must(t, a.CreateTable(ctx, "t"))
	backendtest.Must(t, a.Begin(ctx, true))
	backendtest.Must(t, a.Put(ctx, "t", []byte("k"), []byte("v0")))
	backendtest.Must(t, a.Commit(ctx))

	backendtest.Must(t, a.Begin(ctx, true))
	backendtest.Must(t, b.Begin(ctx, true))
	for _, c := range []backend.KVConn{a, b} {
		if v, ok, err := c.Get(ctx, "t", []byte("k")); err != nil || !ok || string(v) != "v0" {
			t.Fatalf("Get = %q %v %v", v, ok, err)
		}
	}
	backendtest.Must(t, a.Put(ctx, "t", []byte("k"), []byte("a")))
	backendtest.Must(t, a.Commit(ctx))
	if v, _, _ := b.Get(ctx, "t", []byte("k")); string(v) != "v0" {
		t.Errorf("b's snapshot read %q after a's commit, want v0", v)
	}
	backendtest.Must(t, b.Put(ctx, "t", []byte("k"), []byte("b")))
	err := b.Commit(ctx)
	if cl, kind, code := dberr.Describe(err); cl != dberr.Retryable || kind != dberr.Serialization || code != "ConflictError" {
		t.Fatalf("the second commit gave %v (%s %s %s), want a retryable ConflictError", err, cl, kind, code)
	}
	backendtest.Must(t, b.Begin(ctx, false))
	if v, _, _ := b.Get(ctx, "t", []byte("k")); string(v) != "a" {
		t.Errorf("after the conflict the record holds %q, want a", v)
	}
	backendtest.Must(t, b.Rollback(ctx))
	st, err := d.Stats(ctx)
	backendtest.Must(t, err)
	if st["commits"] != 2 || st["conflicts"] != 1 || st["worker_requests"] == 0 || st["worker_cpu_us"] <= 0 {
		t.Errorf("stats %v, want the clients' 2 commits, 1 conflict, the worker's cost", st)
	}
}

// TestPutNewStoresNewObjects: PutNew's records are stored as new objects,
// with no serial read first: they commit and read back, keys and values
// reused by the caller meanwhile; a key that exists makes the commit
// conflict and keeps the record, where a Put of it overwrites.
func TestPutNewStoresNewObjects(t *testing.T) {
	ctx := context.Background()
	d := openFile(t)
	c := backendtest.KVConn(t, d)
	b, ok := c.(backend.BulkLoader)
	if !ok {
		t.Fatal("the connection is not a backend.BulkLoader")
	}
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	backendtest.Must(t, c.Begin(ctx, true))
	k, v := []byte("k1"), []byte("v1")
	backendtest.Must(t, b.PutNew(ctx, "t", [][]byte{k, []byte("k2")}, [][]byte{v, []byte("v2")}))
	copy(k, "xx")
	copy(v, "yy")
	backendtest.Must(t, c.Commit(ctx))

	backendtest.Must(t, c.Begin(ctx, true))
	for _, kv := range [][2]string{{"k1", "v1"}, {"k2", "v2"}} {
		if got, ok, err := c.Get(ctx, "t", []byte(kv[0])); err != nil || !ok || string(got) != kv[1] {
			t.Fatalf("Get(%s) = %q %v %v, want %s", kv[0], got, ok, err, kv[1])
		}
	}
	backendtest.Must(t, c.Rollback(ctx))

	backendtest.Must(t, c.Begin(ctx, true))
	backendtest.Must(t, b.PutNew(ctx, "t", [][]byte{[]byte("k1")}, [][]byte{[]byte("new")}))
	err := c.Commit(ctx)
	if cl, _, code := dberr.Describe(err); cl != dberr.Retryable || code != "ConflictError" {
		t.Fatalf("PutNew over an existing key committed with %v (%s %s), want a ConflictError", err, cl, code)
	}
	backendtest.Must(t, c.Begin(ctx, true))
	if got, _, _ := c.Get(ctx, "t", []byte("k1")); string(got) != "v1" {
		t.Fatalf("after the refused PutNew k1 holds %q, want v1", got)
	}
	backendtest.Must(t, c.Rollback(ctx))

	backendtest.Must(t, c.Begin(ctx, true))
	backendtest.Must(t, c.Put(ctx, "t", []byte("k1"), []byte("put")))
	backendtest.Must(t, c.Commit(ctx))
	backendtest.Must(t, c.Begin(ctx, false))
	if got, _, _ := c.Get(ctx, "t", []byte("k1")); string(got) != "put" {
		t.Errorf("a Put over k1 left %q, want put", got)
	}
	backendtest.Must(t, c.Rollback(ctx))
}

// TestWorkerDiedIsAnError: a worker killed under a client is an error that
// says so, with what it printed, classified as a connection lost, never a
// hang.
func TestWorkerDiedIsAnError(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := openFile(t)
	c := backendtest.KVConn(t, d)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	d.Worker().Kill()
	<-d.Worker().Done()
	backendtest.Must(t, c.Begin(ctx, false))
	_, _, err := c.Get(ctx, "t", []byte("k"))
	var died *pyworker.DiedError
	if !errors.As(err, &died) || !strings.Contains(err.Error(), "zodb worker") || !strings.Contains(died.How, "killed") {
		t.Fatalf("a read from a killed worker gave %v", err)
	}
	if cl, kind, _ := dberr.Describe(err); cl != dberr.Unavailable || kind != dberr.Connection {
		t.Errorf("classified %s %s, want unavailable connection", cl, kind)
	}
}

// TestOnlySyncIsOffered: FileStorage fsyncs every commit; lazy and off are
// refused as bad input, before a worker starts.
func TestOnlySyncIsOffered(t *testing.T) {
	for _, d := range []backend.Durability{backend.Lazy, backend.Off} {
		_, err := Spec.Open(context.Background(), backend.Options{DB: "zodb", Dir: t.TempDir(), Durability: d})
		var bad *knob.Error
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), "fsyncs at every commit") {
			t.Errorf("durability=%s gave %v", d, err)
		}
	}
}

// TestEnvGivenElsewhere: --zodb-env names a folder without a virtualenv:
// bad input naming the flag.
func TestEnvGivenElsewhere(t *testing.T) {
	_, err := Spec.Open(context.Background(), backend.Options{DB: "zodb", Dir: t.TempDir(), Durability: backend.Sync, Own: Own{Env: t.TempDir()}})
	var bad *knob.Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "--zodb-env") {
		t.Fatalf("an empty --zodb-env gave %v", err)
	}
}

// TestObjectsThroughTheConnection: records read through an object session
// are loaded by its ZODB Connection once, kept unpickled in its pickle
// cache for the next transaction (no load: zodbshootout's hot), and loaded
// again after the cache is emptied (warm, cold): the Connection's own
// load counts say so, and every value read is the one written.
func TestObjectsThroughTheConnection(t *testing.T) {
	ctx := context.Background()
	d := openFile(t)
	c := backendtest.KVConn(t, d)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	backendtest.Must(t, c.Begin(ctx, true))
	var keys [][]byte
	for i := range 20 {
		k := []byte{'k', byte(i)}
		keys = append(keys, k)
		backendtest.Must(t, c.Put(ctx, "t", k, []byte{'v', byte(i)}))
	}
	backendtest.Must(t, c.Commit(ctx))
	s, err := c.(backend.ObjectStore).Objects(ctx, "t", 100)
	backendtest.Must(t, err)
	defer s.Close()
	read := func(begin bool, wantLoads int64) {
		t.Helper()
		vs, err := s.Read(ctx, append(keys, []byte("missing")), begin)
		backendtest.Must(t, err)
		for i, v := range vs[:len(keys)] {
			if string(v) != string([]byte{'v', byte(i)}) {
				t.Fatalf("object %d read %q", i, v)
			}
		}
		if vs[len(keys)] != nil {
			t.Fatalf("a missing key read %q", vs[len(keys)])
		}
		st, err := s.Stats(ctx)
		backendtest.Must(t, err)
		if st.Loads != wantLoads || st.ServerLoads != -1 || st.Cached < int64(len(keys)) {
			t.Fatalf("stats %+v; want %d loads, no server (-1), %d objects cached or more (the root)", st, wantLoads, len(keys))
		}
	}
	clearTo := func(level backend.CacheLevel) {
		t.Helper()
		what, err := s.Clear(ctx, level)
		backendtest.Must(t, err)
		if what != "object cache" { // a FileStorage has no cache of its own
			t.Errorf("Clear(%s) emptied %q", level, what)
		}
		if st, err := s.Stats(ctx); err != nil || st.Cached != 0 {
			t.Fatalf("after Clear(%s): %+v %v, want no object unpickled", level, st, err)
		}
	}
	read(true, 20)
	read(true, 20) // a new transaction: the objects are still unpickled
	read(false, 20)
	clearTo(backend.CacheConnection)
	read(true, 40)
	clearTo(backend.CacheStorage)
	read(true, 60)
	// Sums reads the same objects the same way: each value's CRC-32, -1
	// for a missing one, and a ghost loaded once.
	sums := func(wantLoads int64) {
		t.Helper()
		got, err := s.Sums(ctx, append(keys, []byte("missing")), true)
		backendtest.Must(t, err)
		for i, sum := range got[:len(keys)] {
			if want := int64(crc32.ChecksumIEEE([]byte{'v', byte(i)})); sum != want {
				t.Fatalf("object %d: sum %d, want %d", i, sum, want)
			}
		}
		if got[len(keys)] != -1 {
			t.Fatalf("a missing key's sum is %d, want -1", got[len(keys)])
		}
		if st, err := s.Stats(ctx); err != nil || st.Loads != wantLoads {
			t.Fatalf("stats %+v %v; want %d loads", st, err, wantLoads)
		}
	}
	sums(60)
	clearTo(backend.CacheConnection)
	sums(80)
}
