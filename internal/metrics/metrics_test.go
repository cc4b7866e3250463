package metrics

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestTickMergesShards(t *testing.T) {
	shape := Shape{Units: []string{"a", "b"}, Ops: []string{"x"}}
	s := NewSet(shape, 8)
	t0 := time.Now()
	s.Start(t0)
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := s.Recorder(c)
			for i := range 100 {
				r.Unit(i%2, time.Duration(i+1)*time.Millisecond)
				r.Op(0, time.Microsecond)
			}
			r.Failed(0, dberr.New(dberr.Retryable, dberr.Busy, "SQLITE_BUSY", errors.New("locked")))
			r.Failed(1, dberr.New(dberr.Canceled, dberr.Interrupted, "", errors.New("stop")))
			r.Retry(dberr.New(dberr.Retryable, dberr.Busy, "SQLITE_BUSY", errors.New("locked")))
			r.Lost(1)
		}()
	}
	wg.Wait()
	iv := s.Tick(t0.Add(time.Second))
	// Lost units were never recorded as units (the run engine holds them
	// until their group commits): they are counted apart, not taken off.
	if iv.OK() != 800 || iv.Lost() != 8 || iv.Failed() != 8 || iv.Retries() != 8 {
		t.Fatalf("ok %d lost %d failed %d retries %d; want 800, 8, 8, 8", iv.OK(), iv.Lost(), iv.Failed(), iv.Retries())
	}
	if got := iv.All().Max(); got < 99_000 || got > 101_000 {
		t.Fatalf("max %dµs, want ~100ms", got)
	}
	p := NewPhase("measure", shape, t0)
	p.Add(iv)
	rec := p.Record(true)
	if rec.Rate != 800 || rec.Lost != 8 || len(rec.Failures) != 1 || rec.Failures[0].Count != 8 || rec.Retried[0].Count != 8 {
		t.Fatalf("phase record: rate %v failures %+v retried %+v", rec.Rate, rec.Failures, rec.Retried)
	}
	h, err := Decode(rec.All)
	if err != nil || h.TotalCount() != 800 {
		t.Fatalf("decoded histogram: %v, %v", h, err)
	}
	if next := s.Tick(t0.Add(2 * time.Second)); next.OK() != 0 || next.Failed() != 0 {
		t.Fatal("Tick did not reset the shards")
	}
}

// TestAboveBound: a latency over an hour is recorded at the bound and
// counted as above it, per unit kind, operation and lag; one of 59 minutes
// is recorded as it is (the bound was 10 minutes, and nothing said so).
func TestAboveBound(t *testing.T) {
	shape := Shape{Units: []string{"a", "b"}, Ops: []string{"x"}}
	s := NewSet(shape, 1)
	t0 := time.Now()
	s.Start(t0)
	r := s.Recorder(0)
	r.Unit(0, 59*time.Minute)
	r.Unit(1, 2*time.Hour)
	r.Unit(1, time.Millisecond)
	r.Op(0, 3*time.Hour)
	r.Lag(90*time.Minute, true)
	p := NewPhase("measure", shape, t0)
	p.Add(s.Tick(t0.Add(time.Second)))
	rec := p.Record(false)
	if rec.Units[0].MaxUs < 59*60_000_000*999/1000 || rec.Units[0].Above != 0 {
		t.Errorf("59 minutes: max %dµs, %d above; want it as it is", rec.Units[0].MaxUs, rec.Units[0].Above)
	}
	if rec.Units[1].Above != 1 || rec.All.Above != 1 || rec.All.BoundUs != 3_600_000_000 || rec.All.Count != 3 {
		t.Errorf("2 hours: %+v of all %+v; want 1 above the bound of an hour", rec.Units[1], rec.All)
	}
	if rec.Ops[0].Above != 1 || rec.Lag == nil || rec.Lag.Above != 1 || rec.Units[0].BoundUs != 0 {
		t.Errorf("operation %+v, lag %+v: want 1 above each", rec.Ops[0], rec.Lag)
	}
}

func TestClamp(t *testing.T) {
	h := NewHistogram()
	recordUs(h, -time.Second)
	recordUs(h, 24*time.Hour)
	if h.TotalCount() != 2 || h.Max() < highestUs*99/100 {
		t.Fatalf("clamped values: count %d max %d", h.TotalCount(), h.Max())
	}
}

// TestOperationsGoWithTheirUnit: an operation's latency waits in its
// client's recorder, without a lock, until its unit's outcome (or Flush)
// takes the shard's lock: an interval counts the operations of the units
// that ended in it, and never loses one; a recorder holding many hands
// them over on its own.
func TestOperationsGoWithTheirUnit(t *testing.T) {
	s := NewSet(Shape{Units: []string{"u"}, Ops: []string{"x"}}, 1)
	t0 := time.Now()
	s.Start(t0)
	r := s.Recorder(0)
	r.Op(0, time.Millisecond)
	r.Op(0, time.Millisecond)
	if iv := s.Tick(t0.Add(time.Second)); iv.ops[0] != nil && iv.ops[0].TotalCount() != 0 {
		t.Fatalf("%d operations counted before their unit ended", iv.ops[0].TotalCount())
	}
	r.Failed(0, errors.New("boom"))
	r.Op(0, time.Millisecond)
	r.Flush()
	if iv := s.Tick(t0.Add(2 * time.Second)); iv.ops[0] == nil || iv.ops[0].TotalCount() != 3 {
		t.Fatalf("after the unit's failure and a flush: %v operations, want 3", iv.ops[0])
	}
	for range maxOps + 1 {
		r.Op(0, time.Millisecond)
	}
	if iv := s.Tick(t0.Add(3 * time.Second)); iv.ops[0] == nil || iv.ops[0].TotalCount() != maxOps+1 {
		t.Fatalf("a recorder holding %d operations handed over %v", maxOps+1, iv.ops[0])
	}
}

// TestBatchesOverflow: a shard that holds more latencies than one batch
// between ticks records them itself; the interval still has every one,
// at the right operation, and the next interval starts empty.
func TestBatchesOverflow(t *testing.T) {
	s := NewSet(Shape{Units: []string{"u"}, Ops: []string{"x", "y"}}, 1)
	t0 := time.Now()
	s.Start(t0)
	r := s.Recorder(0)
	n := 3*maxBatch + 7
	for i := range n {
		r.Op(1, 5*time.Millisecond) // a unit's operations come before it
		r.Unit(0, time.Duration(1+i%100)*time.Microsecond)
	}
	iv := s.Tick(t0.Add(time.Second))
	if iv.OK() != int64(n) {
		t.Fatalf("%d units in the interval, want %d", iv.OK(), n)
	}
	if iv.ops[0] != nil && iv.ops[0].TotalCount() != 0 {
		t.Fatalf("operation x has %d values, want none", iv.ops[0].TotalCount())
	}
	if got := iv.ops[1].TotalCount(); got != int64(n) {
		t.Fatalf("operation y has %d values, want %d", got, n)
	}
	if p := iv.ops[1].ValueAtQuantile(50); p < 4990 || p > 5010 {
		t.Fatalf("operation y's median %dµs, want 5000", p)
	}
	if max := iv.All().Max(); max != 100 {
		t.Fatalf("units' max %dµs, want 100", max)
	}
	if iv := s.Tick(t0.Add(2 * time.Second)); iv.OK() != 0 {
		t.Fatalf("the next interval starts with %d units", iv.OK())
	}
}

// TestNothingAndFailuresByKind: units that found nothing to do are counted
// by the reason their error gives, and failed units by kind for each unit
// kind, through shards, ticks and the phase.
func TestNothingAndFailuresByKind(t *testing.T) {
	shape := Shape{Units: []string{"a", "b"}}
	s := NewSet(shape, 4)
	p := NewPhase("measure", shape, time.Now())
	nothing := dberr.New(dberr.Expected, dberr.Nothing, "ex_empty", errors.New("nothing to do: empty"))
	for i := range 4 {
		r := s.Recorder(i)
		r.Nothing(0, nothing)
		r.Failed(1, dberr.New(dberr.Retryable, dberr.Lock, "335544345", errors.New("lock conflict")))
		if i%2 == 0 {
			r.Failed(1, dberr.New(dberr.Rollback, dberr.Check, "23514", errors.New("check")))
		}
		p.Add(s.Tick(time.Now()))
	}
	rec := p.Record(false)
	if len(rec.NothingBy) != 1 || rec.NothingBy[0].Code != "ex_empty" || rec.NothingBy[0].Count != 4 || rec.Nothing != 4 {
		t.Errorf("nothing by reason %+v (nothing %d)", rec.NothingBy, rec.Nothing)
	}
	if got := rec.UnitsFailedBy["b"]; got["lock"] != 4 || got["check"] != 2 || len(rec.UnitsFailedBy) != 1 {
		t.Errorf("failures by kind %+v", rec.UnitsFailedBy)
	}
}
