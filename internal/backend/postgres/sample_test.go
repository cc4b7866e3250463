package postgres

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestSample: the counters each version has are read; a CHECKPOINT moves
// "checkpoints"; the samples' own transactions are not the workload
// database's (Stats' commits do not count them); closing the DB closes the
// sampler's connection.
func TestSample(t *testing.T) {
	for _, n := range []int{15, 18} {
		major := strconv.Itoa(n)
		t.Run(major, func(t *testing.T) {
			ctx := context.Background()
			bdb := openVersion(t, n)
			defer bdb.Close()
			d := bdb.(managedDB).db
			checkpoint := func() {
				c, err := d.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.ExecScript(ctx, "CHECKPOINT"); err != nil {
					t.Fatal(err)
				}
				_ = c.Close()
			}
			// The workload's commits around a CHECKPOINT, without samples…
			st0, err := d.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			checkpoint()
			st1, err := d.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// … and with two samples around it: the same.
			s0 := backendtest.Sample(t, d)
			for _, k := range []string{"commits", "blks_read", "wal_bytes", "checkpoints", "checkpoint_buffers", "bgwriter_buffers"} {
				if _, ok := s0[k]; !ok {
					t.Errorf("%s: no %s in %v", major, k, s0)
				}
			}
			checkpoint()
			// The checkpointer publishes its counters as it gets to it, not
			// as the CHECKPOINT returns: read again for up to 10 s.
			var s1 map[string]int64
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				s1 = backendtest.Sample(t, d)
				if s1["checkpoints"] > s0["checkpoints"] || time.Now().After(deadline) {
					break
				}
			}
			if s1["checkpoints"] <= s0["checkpoints"] {
				t.Errorf("a CHECKPOINT: checkpoints %d, and still %d 10 s later", s0["checkpoints"], s1["checkpoints"])
			}
			st2, err := d.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if without, with := st1["commits"]-st0["commits"], st2["commits"]-st1["commits"]; with != without {
				t.Errorf("commits around a CHECKPOINT: %d, and %d with two samples: the samples' own were counted", without, with)
			}
			if s1["commits"] < st2["commits"]-st1["commits"] {
				t.Errorf("the database's commits read by Sample: %d, fewer than Stats saw between", s1["commits"])
			}
			_ = bdb.Close()
			if d.samples.conn != nil {
				t.Error("closed: the sampler's connection is left open")
			}
		})
	}
}

// TestSampleAutovacuum: an autovacuum of the workload's table that lasts
// a while (its cost delay made long) is seen by Waits, and Sample counts
// it; before any read of the waits, Sample has no such counter, since
// nothing watched.
func TestSampleAutovacuum(t *testing.T) {
	ctx := context.Background()
	bdb, err := open(ctx, backend.Options{DB: managed, Dir: t.TempDir(), Durability: backend.Off, Prepare: backend.Once,
		Set: []backend.KeyValue{{Key: "autovacuum_naptime", Value: "1s"}}})
	testenv.Need(t, err)
	defer bdb.Close()
	d := bdb.(managedDB).db
	c, err := d.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s0 := backendtest.Sample(t, d)
	if _, ok := s0["autovacuums"]; ok {
		t.Errorf("no read of the waits yet, yet autovacuums in %v", s0)
	}
	if err := c.ExecScript(ctx, `CREATE TABLE t (id int PRIMARY KEY, v int) WITH (autovacuum_vacuum_threshold = 0, autovacuum_vacuum_scale_factor = 0,
		autovacuum_analyze_threshold = 0, autovacuum_analyze_scale_factor = 0, autovacuum_vacuum_cost_delay = 100, autovacuum_vacuum_cost_limit = 1);
		INSERT INTO t SELECT g, 0 FROM generate_series(1, 2000) g; UPDATE t SET v = v + 1`); err != nil {
		t.Fatal(err)
	}
	var s1 map[string]int64
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := d.Waits(ctx); err != nil {
			t.Fatal(err)
		}
		s1 = backendtest.Sample(t, d)
		if s1["autovacuums"] > 0 && s1["autoanalyzes"] > 0 {
			break
		}
	}
	if s1["autovacuums"] < 1 || s1["autoanalyzes"] < 1 {
		t.Fatalf("30 s after 2,000 dead rows in a table that asks for autovacuum at once: autovacuums %d, autoanalyzes %d", s1["autovacuums"], s1["autoanalyzes"])
	}
	// The same task seen again is not counted again.
	n := s1["autovacuums"] + s1["autoanalyzes"]
	for range 3 {
		if _, err := d.Waits(ctx); err != nil {
			t.Fatal(err)
		}
	}
	s2 := backendtest.Sample(t, d)
	if m := s2["autovacuums"] + s2["autoanalyzes"]; m > n+1 {
		t.Errorf("three more reads counted %d more tasks on a table updated once", m-n)
	}
}

// TestAutovacuumTask: the worker's words, as pg_stat_activity shows them.
func TestAutovacuumTask(t *testing.T) {
	for q, want := range map[string][2]int64{
		"autovacuum: VACUUM public.t":                                 {1, 0},
		"autovacuum: VACUUM ANALYZE public.t":                         {1, 1},
		"autovacuum: VACUUM public.t (to prevent wraparound)":         {1, 0},
		"autovacuum: ANALYZE public.pgbench_accounts":                 {0, 1},
		"autovacuum: BRIN summarize public.t_brin 1":                  {0, 0},
		"autovacuum: VACUUM ANALYZE public.t (to prevent wraparound)": {1, 1},
	} {
		if v, a := autovacuumTask(q); v != want[0] || a != want[1] {
			t.Errorf("%q: vacuum %d, analyze %d; want %v", q, v, a, want)
		}
	}
}
