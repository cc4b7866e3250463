package objects_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/objects"
)

// ctxKV is a real bbolt database whose commits answer a canceled context
// as a server engine's driver does (bbolt itself never looks at it).
type ctxKV struct{ backend.KVDB }

func (d ctxKV) KVConn(ctx context.Context) (backend.KVConn, error) {
	c, err := d.KVDB.KVConn(ctx)
	return ctxConn{c}, err
}

type ctxConn struct{ backend.KVConn }

func (c ctxConn) Commit(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		_ = c.Rollback(context.WithoutCancel(ctx))
		return err
	}
	return c.KVConn.Commit(ctx)
}

type nopOps struct{}

func (nopOps) Time(_ int, fn func() error) error { return fn() }

// TestCanceledCloseKeepsItsLost: under --commit every:4 a client's two
// finished adds wait in its open transaction; the run ends by cancellation,
// and Close's commit fails with it: the two units are lost, and Close says
// so (a *workload.Lost), for the run engine to count them.
func TestCanceledCloseKeepsItsLost(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dsn := "bbolt:" + filepath.Join(dir, "objects.db")
	be, ok := catalog.Backend(dsn)
	if !ok {
		t.Fatal("no bbolt backend")
	}
	db, err := be.Open(ctx, backend.Options{DB: dsn, Dir: dir, Durability: backend.Off})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v := knob.NewValues(objects.Spec.Knobs)
	for k, s := range map[string]string{"phase": "add", "conferences": "10", "contributions": "2", "objects": "30", "object-bytes": "100", "load-workers": "1"} {
		v.Set(k, s)
	}
	w, err := objects.Spec.New(workload.Common{Commit: workload.Commit{Mode: workload.PerUnits, Every: 4}, Clients: 1, Seed: 1}, v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Load(ctx, db); err != nil {
		t.Fatal(err)
	}
	kv := ctxKV{db.(backend.KVDB)}
	c, err := w.Client(ctx, kv, 0, workload.NewRand(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := c.Do(ctx, 0, nopOps{}); err != nil {
			t.Fatal(err)
		}
	}
	if p := c.(workload.Pender).Pending(); p != 2 {
		t.Fatalf("%d units pending, want 2", p)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	err = c.Close(canceled)
	if n := workload.LostUnits(err); n != 2 {
		t.Fatalf("Close after a canceled commit: %v, %d units lost; want 2", err, n)
	}
}
