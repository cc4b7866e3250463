package neo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestStorageNodeKilled starts a cluster of two storage nodes with one
// replica for real, commits through a client while storage1 is killed
// (SIGKILL) and started again on its data, then kills storage2 for good:
// every acknowledged commit is read back by a fresh client from storage1
// alone, which must have caught up with the commits made without it. As
// root the nodes run as an account of their own.
func TestStorageNodeKilled(t *testing.T) {
	testenv.PythonEnv(t, Env)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bdb, err := Spec.Open(ctx, backend.Options{DB: managedForm, Dir: t.TempDir(), Durability: backend.Sync, Own: own{storages: 2, replicas: 1}})
	if err != nil {
		t.Fatal(err)
	}
	d := bdb.(*db)
	defer d.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 && d.ServerInfo().Account == "root" {
		t.Errorf("NEO's nodes run as root")
	}
	e, err := d.Engine(ctx)
	must(err)
	if s := e.Settings; s["cluster_state"] != "RUNNING" || s["replicas"] != "1" || s["storage_nodes"] != "2" || s["neoppod_version"] != "1.12.0" || s["python"] != "2.7.18" {
		t.Errorf("read back: %v", s)
	}
	c, err := d.KVConn(ctx)
	must(err)
	defer c.Close()
	must(c.CreateTable(ctx, "t"))

	// A client commits, one key a transaction, until told to stop;
	// acked are the keys whose commit returned.
	var (
		mu    sync.Mutex
		acked []string
		stop  = make(chan struct{})
		done  = make(chan error, 1)
	)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			k := fmt.Sprintf("k%05d", i)
			err := c.Begin(ctx, true)
			if err == nil {
				err = c.Put(ctx, "t", []byte(k), []byte("v"+k))
			}
			if err == nil {
				err = c.Commit(ctx)
			}
			if err != nil {
				_ = c.Rollback(ctx)
				done <- err
				return
			}
			mu.Lock()
			acked = append(acked, k)
			mu.Unlock()
		}
	}()
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	before := len(acked)
	mu.Unlock()
	must(d.OnNode("storage1").CrashRestart(ctx))
	mu.Lock()
	during := len(acked) - before
	mu.Unlock()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	must(<-done)
	if before == 0 || during == 0 {
		t.Errorf("%d commits before the kill, %d while storage1 was down and caught up: the client did not go on", before, during)
	}
	if !strings.HasPrefix(d.RecoveryNote, "storage1 killed") {
		t.Errorf("recovery note: %q", d.RecoveryNote)
	}

	// storage2 gone for good: storage1 serves every partition alone.
	must(d.c.ByName("storage2").Kill())
	must(d.c.WaitRunning(ctx, nil))
	fresh, err := d.KVConn(ctx) // a worker of its own: its NEO client cache is empty
	must(err)
	defer fresh.Close()
	must(fresh.Begin(ctx, false))
	for _, k := range acked {
		v, ok, err := fresh.Get(ctx, "t", []byte(k))
		must(err)
		if !ok || string(v) != "v"+k {
			t.Fatalf("acknowledged %s read back from storage1 alone as %q (found %v), of %d acknowledged", k, v, ok, len(acked))
		}
	}
	must(fresh.Rollback(ctx))

	// A scan walks ranges of the transactions at once (ScanRanges): it
	// finds each acknowledged key once, in key order, its last value.
	must(fresh.Begin(ctx, true))
	must(fresh.Put(ctx, "t", []byte(acked[0]), []byte("last")))
	must(fresh.Commit(ctx))
	must(fresh.Begin(ctx, false))
	var scanned []string
	must(fresh.Scan(ctx, "t", func(k, v []byte) error {
		if want := "v" + string(k); string(k) == acked[0] {
			want = "last"
			if string(v) != want {
				t.Errorf("the scan read %s = %q, want its last value %q", k, v, want)
			}
		} else if string(v) != want {
			t.Errorf("the scan read %s = %q, want %q", k, v, want)
		}
		scanned = append(scanned, string(k))
		return nil
	}))
	must(fresh.Rollback(ctx))
	if !slices.Equal(scanned, acked) {
		t.Errorf("the scan found %d keys, want the %d acknowledged, each once in order", len(scanned), len(acked))
	}
	ok, detail, err := d.Integrity(ctx)
	must(err)
	if !ok {
		t.Errorf("integrity: %s", detail)
	}
	t.Logf("%d commits acknowledged (%d while storage1 was killed and caught up), all read back from storage1 alone; %s", len(acked), during, detail)
}

// TestReplicasBelowNodes: --replicas must be less than --storage-nodes, as
// bad input.
func TestReplicasBelowNodes(t *testing.T) {
	v := knob.NewValues(Knobs)
	v.Set("storage-nodes", "2")
	v.Set("replicas", "2")
	var bad *knob.Error
	if _, err := ownKnobs(v); !errors.As(err, &bad) {
		t.Fatalf("--storage-nodes 2 --replicas 2: %v, want bad input", err)
	}
	v.Set("replicas", "1")
	x, err := ownKnobs(v)
	if err != nil || x.(own).storages != 2 || x.(own).replicas != 1 {
		t.Fatalf("--storage-nodes 2 --replicas 1: %+v, %v", x, err)
	}
}
