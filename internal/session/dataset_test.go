package session_test

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// checkDataset: --dataset resolved into records from the cache read back,
// the load came within tol of the size asked, and the result says so.
func checkDataset(t *testing.T, res *result.Result, want int64, tol float64) {
	t.Helper()
	d := res.Dataset
	tg := d.Target
	if tg == nil {
		t.Fatalf("no dataset target recorded: %+v", d)
	}
	if tg.BaseBytes != res.Engine.CacheBytes || tg.Bytes != want {
		t.Errorf("asked %d bytes of a %d-byte base; want %d of the cache read back (%d)", tg.Bytes, tg.BaseBytes, want, res.Engine.CacheBytes)
	}
	if got := res.Dataset.Facts["loaded"]; got != strconv.FormatInt(tg.Items, 10) || tg.Items <= 0 {
		t.Errorf("loaded %s records, resolved %d", got, tg.Items)
	}
	if d.Bytes <= 0 || math.Abs(tg.Achieved-1) > tol {
		t.Errorf("the data took %d bytes after the load, ×%.2f of %d asked (tolerance ±%.0f %%)", d.Bytes, tg.Achieved, tg.Bytes, 100*tol)
	}
	t.Logf("--dataset %s: %d records, %d bytes after the load (%s), ×%.3f", tg.Asked, tg.Items, d.Bytes, d.BytesFrom, tg.Achieved)
}

// TestDatasetSQLite: --cache 1MB --dataset 2x makes about 2 MiB of records.
func TestDatasetSQLite(t *testing.T) {
	res := workloadtest.Run(t, spec(t, "kv"), map[string]string{"cache": "1MB", "dataset": "2x", "units": "500", "clients": "2"})
	checkDataset(t, res, 2<<20, 0.15)
}

// TestDatasetPostgres: the same on managed PostgreSQL (shared_buffers), with
// the cache hit ratio from blks_hit and blks_read.
func TestDatasetPostgres(t *testing.T) {
	needPostgres(t)
	res := workloadtest.Run(t, spec(t, "kv"), map[string]string{"db": "postgres:managed", "cache": "8MB", "dataset": "0.5x",
		"units": "3000", "clients": "2", "crash-recovery": "false"})
	checkDataset(t, res, 4<<20, 0.3)
	if p := res.Summary.CacheHitPct; p == nil || *p <= 0 || *p > 100 || res.Summary.CacheLookups <= 0 {
		t.Errorf("no cache hit ratio: %v of %d lookups (delta %v)", p, res.Summary.CacheLookups, res.Stats)
	}
}

// TestDatasetRefused: bad --dataset input is one line and exit 2, before
// anything runs.
func TestDatasetRefused(t *testing.T) {
	for name, c := range map[string]struct {
		workload string
		knobs    map[string]string
	}{
		"with-records":         {"kv", map[string]string{"dataset": "2x", "records": "1000"}},
		"no-cache":             {"kv", map[string]string{"dataset": "2x", "db": "bbolt"}},
		"workload-cannot-size": {"insert", map[string]string{"dataset": "2x"}},
		"not-a-multiple":       {"kv", map[string]string{"dataset": "lots"}},
		"zero":                 {"kv", map[string]string{"dataset": "0x"}},
		"of-without-dataset":   {"kv", map[string]string{"dataset-of": "ram"}},
		"of-what":              {"kv", map[string]string{"dataset": "1x", "dataset-of": "disk"}},
	} {
		t.Run(name, func(t *testing.T) {
			w := spec(t, c.workload)
			v := session.NewValues(w)
			v.Set("results", t.TempDir())
			for k, s := range c.knobs {
				v.Set(k, s)
			}
			_, err := session.NewPlan(session.Request{Workload: w, Values: v})
			var bad *knob.Error
			if !errors.As(err, &bad) {
				t.Fatalf("want bad input, got %v", err)
			}
			t.Log(err)
		})
	}
	// bbolt has no cache of its own, but the machine's memory will do.
	w := spec(t, "kv")
	v := session.NewValues(w)
	for k, s := range map[string]string{"results": t.TempDir(), "db": "bbolt", "dataset": "0.001x", "dataset-of": "ram"} {
		v.Set(k, s)
	}
	if _, err := session.NewPlan(session.Request{Workload: w, Values: v}); err != nil {
		t.Errorf("--dataset-of ram on bbolt: %v", err)
	}
}
