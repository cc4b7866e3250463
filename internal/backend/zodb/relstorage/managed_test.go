package relstorage_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/zodb/relstorage"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// open opens relstorage+postgres:managed at d as catalog registers it (the
// postgres engine's server handed over), on the real PostgreSQL.
func open(t *testing.T, d backend.Durability) backend.DB {
	t.Helper()
	testenv.PythonEnv(t, relstorage.Env)
	spec, ok := catalog.Backend("relstorage+postgres:managed")
	if !ok {
		t.Fatal("catalog has no relstorage+postgres:managed")
	}
	return backendtest.Open(t, spec, backend.Options{Durability: d})
}

// TestManagedServer starts a managed PostgreSQL for real and a RelStorage
// in a worker per client: two clients that read a record and write it, the
// second refused by ZODB's ConflictError (retryable); objects read through
// a Connection, cleared down to RelStorage's local cache (objectsCleared);
// the settings read
// back from a connection made as RelStorage makes its own, none holding
// the password; PostgreSQL's own WAL flushes counted, at least one a
// commit; a kill -9 of the server, after which the client's RelStorage
// reads the acknowledged commit back; as root the server runs as an
// account of its own.
func TestManagedServer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db := open(t, backend.Sync)
	if os.Geteuid() == 0 && db.(backend.Server).ServerInfo().Account == "root" {
		t.Errorf("postgres runs as root")
	}
	st := db.(backend.Statser)
	before, err := st.Stats(ctx)
	backendtest.Must(t, err)
	a, b := backendtest.KVConn(t, db), backendtest.KVConn(t, db)
	err = backendtest.WriteWrite(t, a, b, "t")
	if cl, kind, code := dberr.Describe(err); cl != dberr.Retryable || kind != dberr.Serialization || code != "ConflictError" {
		t.Fatalf("the second commit gave %v (%s %s %s), want a retryable ConflictError", err, cl, kind, code)
	}
	// b tries again and commits; a, whose RelStorage committed last on its
	// own, sees b's commit at its next transaction (RelStorage's
	// lastTransaction is as of its last poll: the worker polls at each
	// transaction's first read, as a ZODB Connection does).
	for i, c := range []backend.KVConn{b, a} {
		backendtest.Must(t, c.Begin(ctx, true))
		v, _, err := c.Get(ctx, "t", []byte("k"))
		backendtest.Must(t, err)
		if want := []string{"1", "2"}[i]; string(v) != want {
			t.Fatalf("client %d read %q, want %q: a snapshot older than the last commit", i, v, want)
		}
		backendtest.Must(t, c.Put(ctx, "t", []byte("k"), []byte{'2' + byte(i)}))
		backendtest.Must(t, c.Commit(ctx))
	}
	e, err := db.Engine(ctx)
	backendtest.Must(t, err)
	if e.Settings["synchronous_commit"] != "on" || e.Settings["keep_history"] != "true" || e.Settings["RelStorage_version"] != "4.3.0" {
		t.Errorf("read back %v", e.Settings)
	}
	for k, v := range e.Settings {
		if strings.Contains(v, "postgres://") || strings.Contains(v, "password") {
			t.Errorf("setting %s shows the DSN, its password with it", k)
		}
	}
	// A backend publishes its WAL counters when it exits: the counters are
	// read, as the session reads them, after the clients closed.
	backendtest.Must(t, a.Close())
	backendtest.Must(t, b.Close())
	after, err := st.Stats(ctx)
	backendtest.Must(t, err)
	commits, flushes := after["commits"]-before["commits"], after["flushes"]-before["flushes"]
	if commits < 4 || flushes < commits || after["conflicts"]-before["conflicts"] != 1 {
		t.Errorf("counted %d commits, %d WAL flushes, %d conflicts; want a flush a commit and the one conflict", commits, flushes, after["conflicts"]-before["conflicts"])
	}

	objectsCleared(ctx, t, db)

	a = backendtest.KVConn(t, db)
	backendtest.Must(t, a.Begin(ctx, false))
	_, _, err = a.Get(ctx, "t", []byte("k"))
	backendtest.Must(t, err)
	backendtest.Must(t, a.Rollback(ctx))
	backendtest.Must(t, db.(backend.Recoverer).CrashRestart(ctx))
	var v []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		backendtest.Must(t, a.Begin(ctx, false))
		v, _, err = a.Get(ctx, "t", []byte("k"))
		_ = a.Rollback(ctx)
		if err == nil || time.Now().After(deadline) {
			break
		}
		if cl, _, _ := dberr.Describe(err); cl != dberr.Unavailable {
			t.Fatalf("a read after the server's restart gave %v (%s), want unavailable until it reconnects", err, cl)
		}
	}
	if err != nil || string(v) != "3" {
		t.Fatalf("after the crash restart: %q, %v; want the value the first client committed", v, err)
	}
	if ok, detail, err := db.(backend.Checker).Integrity(ctx); !ok || err != nil {
		t.Errorf("integrity: %v %s %v", ok, detail, err)
	}
}

// objectsCleared: an object session's Clear at the storage level empties
// RelStorage's local cache with the Connection's (a fresh RelStorage, as
// on ZEO), says so, and the objects are loaded again, their values right.
func objectsCleared(ctx context.Context, t *testing.T, db backend.DB) {
	t.Helper()
	c := backendtest.KVConn(t, db)
	backendtest.Must(t, c.Begin(ctx, true))
	keys := [][]byte{[]byte("o1"), []byte("o2"), []byte("o3")}
	for i, k := range keys {
		backendtest.Must(t, c.Put(ctx, "t", k, []byte{'v', byte(i)}))
	}
	backendtest.Must(t, c.Commit(ctx))
	s, err := c.(backend.ObjectStore).Objects(ctx, "t", 100)
	backendtest.Must(t, err)
	defer s.Close()
	for round, want := range []int64{3, 6} {
		vs, err := s.Read(ctx, keys, true)
		backendtest.Must(t, err)
		for i, v := range vs {
			if string(v) != string([]byte{'v', byte(i)}) {
				t.Fatalf("round %d: object %d read %q", round, i, v)
			}
		}
		st, err := s.Stats(ctx)
		backendtest.Must(t, err)
		if st.Loads != want || st.StorageCache != "RelStorage's local cache of 10 MB" {
			t.Fatalf("round %d: %+v, want %d loads and RelStorage's local cache named", round, st, want)
		}
		if round == 0 {
			what, err := s.Clear(ctx, backend.CacheStorage)
			backendtest.Must(t, err)
			if what != "object cache and RelStorage's local cache of 10 MB" {
				t.Fatalf("Clear(storage) emptied %q", what)
			}
		}
	}
}
