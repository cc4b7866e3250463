package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestSample: the counters each version has are read; a CHECKPOINT moves
// "checkpoints"; the samples' own transactions are not the workload
// database's (Stats' commits do not count them); closing the DB closes the
// sampler's connection.
func TestSample(t *testing.T) {
	for _, major := range []string{"15", "18"} {
		t.Run(major, func(t *testing.T) {
			n := map[string]int{"15": 15, "18": 18}[major]
			if _, err := FindVersion(n); err != nil {
				testenv.Need(t, err) // .ci/run installs them: in CI this never skips
			}
			ctx := context.Background()
			bdb, err := open(ctx, backend.Options{DB: managed + "@" + major, Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once})
			if err != nil {
				t.Fatal(err)
			}
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
			s0, err := d.Sample(ctx)
			if err != nil {
				t.Fatal(err)
			}
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
				if s1, err = d.Sample(ctx); err != nil {
					t.Fatal(err)
				}
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
