package zodb

import (
	"context"
	"errors"
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
