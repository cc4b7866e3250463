package objects

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// TestReadPhasesUseZODBsCaches: on zodb (a FileStorage, the worker in
// process) the read phases go through each client's ZODB Connection, as
// ZODB counts it: warm and cold load every object they read from the
// storage (their pass empties the Connection's cache), hot and steamin none
// (the objects read before the clock stay unpickled), and every object read
// is the one written.
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
	for _, phase := range []string{phWarm, phCold, phHot, phSteamin} {
		v := knob.NewValues(Spec.Knobs)
		for k, s := range map[string]string{"phase": phase, "conferences": "20", "contributions": "2", "objects": "8", "object-bytes": "100", "load-workers": "1", "warmup": "0s"} {
			v.Set(k, s)
		}
		wl, err := Spec.New(workload.Common{Clients: 2, Seed: 1}, v)
		if err != nil {
			t.Fatal(err)
		}
		w := wl.(*objects)
		if _, err := w.Load(ctx, db); err != nil {
			t.Fatal(err)
		}
		if w.cfg.Caches != cachesEngine {
			t.Fatalf("%s: caches %q, want the engine's", phase, w.cfg.Caches)
		}
		var reads int64
		for id := range 2 {
			c, err := w.Client(ctx, db, id, workload.NewRand(1, uint64(id)))
			if err != nil {
				t.Fatal(err)
			}
			for range 24 { // 3 passes of 2 conferences of 4 objects
				if err := c.Do(ctx, 0, nopOps{}); err != nil {
					t.Fatalf("%s: %v", phase, err)
				}
				reads++
			}
			if err := c.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
		want := reads
		if phase == phHot || phase == phSteamin {
			want = 0
		}
		if got := w.oLoads.Load(); got != want || w.looked.Load() != reads {
			t.Errorf("%s: the Connections loaded %d objects for %d reads, want %d", phase, got, w.looked.Load(), want)
		}
		checks, err := w.Check(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range checks {
			if !ch.OK {
				t.Errorf("%s: %s: %s", phase, ch.Name, ch.Detail)
			}
		}
	}
}
