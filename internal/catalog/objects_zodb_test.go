package catalog

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/objects"
)

// timeOps runs each operation untimed: the test counts loads, not time.
type timeOps struct{}

func (timeOps) Time(_ int, fn func() error) error { return fn() }

// loaded reads, from objects' reads_found_their_objects check, how many
// objects were read and how many the engine's object caches loaded from
// their storage.
var loaded = regexp.MustCompile(`^(\d+) objects read;.*the engine's caches: while the clock ran the clients' object caches loaded (\d+) objects`)

// TestReadPhasesUseZODBsCaches: on zodb (a FileStorage, the worker in
// process) objects' read phases go through each client's ZODB Connection,
// as ZODB counts it: warm, cold and hot load every object they read from
// the storage (their pass empties the Connection's cache, as zodbshootout's
// hot does), steamin none (the objects read before the clock stay
// unpickled), and every object read is the one written. A pass is one
// request to the worker, with a clear before it (not one an object: one
// round trip amortised over the pass, as zodbshootout times a pass in its
// process). Here, in catalog, since a workload never imports an engine.
func TestReadPhasesUseZODBsCaches(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	python := testenv.PythonEnv(t, zodb.Env)
	db, err := zodb.Open(ctx, zodb.Config{Engine: "zodb", Python: python, Shared: true,
		Storage: zodb.Storage{Kind: "file", Path: filepath.Join(dir, "Data.fs")}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, phase := range []string{"warm", "cold", "hot", "steamin"} {
		v := knob.NewValues(objects.Spec.Knobs)
		for k, s := range map[string]string{"phase": phase, "conferences": "20", "contributions": "2", "objects": "8", "object-bytes": "100", "load-workers": "1", "warmup": "0s"} {
			v.Set(k, s)
		}
		w, err := objects.Spec.New(workload.Common{Clients: 2, Seed: 1}, v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Load(ctx, db); err != nil {
			t.Fatal(err)
		}
		var reads int64
		for id := range 2 {
			c, err := w.Client(ctx, db, id, workload.NewRand(1, uint64(id)))
			if err != nil {
				t.Fatal(err)
			}
			reqs := db.Worker().Requests()
			for range 24 { // 3 passes of 2 conferences of 4 objects
				if err := c.Do(ctx, 0, timeOps{}); err != nil {
					t.Fatalf("%s: %v", phase, err)
				}
				reads++
			}
			if n := db.Worker().Requests() - reqs; n > 3*2 {
				t.Errorf("%s: client %d's 3 passes took %d requests to the worker, want at most 2 a pass (a clear, a read)", phase, id, n)
			}
			if err := c.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		want := reads
		if phase == "steamin" {
			want = 0
		}
		checks, err := w.(workload.Checker).Check(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range checks {
			if !ch.OK {
				t.Errorf("%s: %s: %s", phase, ch.Name, ch.Detail)
			}
			if ch.Name != "reads_found_their_objects" {
				continue
			}
			m := loaded.FindStringSubmatch(ch.Detail)
			if m == nil {
				t.Fatalf("%s: the read phases did not go through the engine's caches: %s", phase, ch.Detail)
			}
			read, got := atoi(t, m[1]), atoi(t, m[2])
			if read != reads || got != want {
				t.Errorf("%s: the Connections loaded %d objects for %d reads (%d done), want %d", phase, got, read, reads, want)
			}
		}
	}
}

func atoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestChangedObjectIsCaught: a pass over objects judged before the clock
// asks the worker for their CRC-32s, not their values; an object whose
// value changed since (here: overwritten with bytes that are no object) is
// read again whole and judged, so that the run reports it, as a read of its
// value would.
func TestChangedObjectIsCaught(t *testing.T) {
	ctx := context.Background()
	python := testenv.PythonEnv(t, zodb.Env)
	db, err := zodb.Open(ctx, zodb.Config{Engine: "zodb", Python: python, Shared: true,
		Storage: zodb.Storage{Kind: "file", Path: filepath.Join(t.TempDir(), "Data.fs")}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v := knob.NewValues(objects.Spec.Knobs)
	for k, s := range map[string]string{"phase": "hot", "conferences": "4", "contributions": "2", "objects": "8", "object-bytes": "100", "load-workers": "1", "warmup": "0s"} {
		v.Set(k, s)
	}
	w, err := objects.Spec.New(workload.Common{Clients: 1, Seed: 1}, v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Load(ctx, db); err != nil {
		t.Fatal(err)
	}
	c, err := w.Client(ctx, db, 0, workload.NewRand(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	// The room of client 0's first conference (oid 1), after the client
	// read and judged it.
	kv, err := db.KVConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := workload.InKVTx(ctx, kv, func() error {
		return kv.Put(ctx, "objects", binary.BigEndian.AppendUint64(nil, 1), []byte("not an object"))
	}); err != nil {
		t.Fatal(err)
	}
	_ = kv.Close()
	var failed int
	for range 8 { // a pass: 2 conferences of 4 objects
		if err := c.Do(ctx, 0, timeOps{}); err != nil {
			failed++
		}
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if failed != 1 {
		t.Errorf("%d of the pass's reads failed, want 1 (the object changed)", failed)
	}
	checks, err := w.(workload.Checker).Check(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range checks {
		if ch.Name == "reads_found_their_objects" && (ch.OK || !strings.Contains(ch.Detail, "1 not the object asked for")) {
			t.Errorf("reads_found_their_objects: ok %v: %s; want 1 not the object asked for", ch.OK, ch.Detail)
		}
	}
}
