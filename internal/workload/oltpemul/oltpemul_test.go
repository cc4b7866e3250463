package oltpemul_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/oltpemul"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestSQLite runs every business action with four clients on SQLite after a
// fill, and the checks prove the books.
func TestSQLite(t *testing.T) {
	res := workloadtest.Run(t, oltpemul.Spec, map[string]string{"init-docs": "300", "clients": "4", "duration": "2s", "mode": "small", "wares": "50"})
	m := res.Phase("measure")
	for _, u := range m.Units {
		if u.Count == 0 && u.Name != "aggregate" {
			t.Errorf("no %s succeeded", u.Name)
		}
	}
	if res.Dataset.Facts["documents"] == "" || res.Summary.PerMinute != 60*res.Summary.Rate {
		t.Errorf("facts %v, P %v for %v/s", res.Dataset.Facts, res.Summary.PerMinute, res.Summary.Rate)
	}
	if len(res.Checks) != 7 {
		t.Errorf("%d checks", len(res.Checks))
	}
}

func TestBadKnobs(t *testing.T) {
	for _, args := range []map[string]string{{"mode": "huge"}, {"commit": "op"}, {"wares": "0"}, {"init-docs": "-1"}} {
		v := session.NewValues(oltpemul.Spec)
		for k, s := range args {
			v.Set(k, s)
		}
		_, err := session.NewPlan(session.Request{Workload: oltpemul.Spec, Values: v})
		var bad *knob.Error
		if !errors.As(err, &bad) {
			t.Errorf("%v: %v, want bad input", args, err)
		}
	}
}

// TestEmptyCatalogue runs oltp-emul on SQLite with an empty catalogue: no
// wares, no contractors, no documents, no aggregation row. Every business
// action finds nothing to do, and the run must say so: every unit nothing to
// do, none ok, none failed, and a throughput of 0, not the rate at which the
// engine answered "no".
func TestEmptyCatalogue(t *testing.T) {
	ctx := context.Background()
	sqlite, ok := catalog.Backend("sqlite")
	if !ok {
		t.Fatal("no sqlite backend")
	}
	db, err := sqlite.Open(ctx, backend.Options{DB: "sqlite", Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once, Conns: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v := session.NewValues(oltpemul.Spec)
	v.Set("init-docs", "0")
	v.Set("wares", "20")
	common := workload.Common{Commit: workload.Commit{Mode: workload.PerUnit, Every: 1}, Clients: 2, Seed: 1}
	w, err := oltpemul.Spec.New(common, v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Load(ctx, db); err != nil {
		t.Fatal(err)
	}
	c, err := db.(backend.SQLDB).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"oe_wares", "oe_balances", "oe_contractors", "oe_money", "oe_agg"} {
		if err := c.ExecScript(ctx, "DELETE FROM "+table); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()

	const units = 600
	out, err := run.Run(ctx, run.Config{Clients: 2, Units: units, Retries: 3, Seed: 1}, w.Shape(),
		func(ctx context.Context, id int, rng *rand.Rand) (workload.Client, error) {
			return w.Client(ctx, db, id, rng)
		}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Err != nil {
		t.Fatalf("the run stopped: %v", out.Err)
	}
	m := out.Phases[len(out.Phases)-1].Record(false)
	if m.OK != 0 || m.Failed != 0 || m.Nothing != units {
		t.Fatalf("ok %d, failed %d, nothing to do %d; want 0, 0, %d (failures %+v)", m.OK, m.Failed, m.Nothing, units, m.Failures)
	}
	if m.Rate != 0 {
		t.Errorf("throughput %v/s of units that did nothing, want 0", m.Rate)
	}
	for _, u := range m.Units {
		if u.Nothing == 0 || u.Count != 0 {
			t.Errorf("%s: %d nothing to do, %d ok; want some nothing to do, none ok", u.Name, u.Nothing, u.Count)
		}
	}
}
