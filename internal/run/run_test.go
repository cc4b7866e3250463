package run

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// These tests drive the run engine with synthetic clients: they test the
// engine's counting and pacing, not a database (backends are tested against
// real engines in catalog and bench).

type fakeClient struct {
	do    func(kind int, ops workload.Ops) error
	close func() error
}

func (f *fakeClient) Do(_ context.Context, kind int, ops workload.Ops) error { return f.do(kind, ops) }
func (f *fakeClient) Close(context.Context) error {
	if f.close != nil {
		return f.close()
	}
	return nil
}

var shape = workload.Shape{Units: []workload.Weighted{{Name: "u", Weight: 1}}, Ops: []string{"op"}}

func opener(do func(kind int, ops workload.Ops) error) Opener {
	return func(context.Context, int, *rand.Rand) (workload.Client, error) { return &fakeClient{do: do}, nil }
}

func measure(t *testing.T, out *Outcome) *metrics.Phase {
	t.Helper()
	p := out.Phases[len(out.Phases)-1]
	if p.Name != Measure {
		t.Fatalf("last phase is %q", p.Name)
	}
	return p
}

func TestUnitsAreExact(t *testing.T) {
	var ops atomic.Int64
	out, err := Run(context.Background(), Config{Clients: 4, Units: 1000}, shape,
		opener(func(_ int, o workload.Ops) error {
			ops.Add(1)
			return o.Time(0, func() error { return nil })
		}), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := measure(t, out).Record(false)
	if rec.OK != 1000 || ops.Load() != 1000 || out.Reason != Completed {
		t.Fatalf("ok %d, units done %d, reason %q; want 1000, 1000, completed", rec.OK, ops.Load(), out.Reason)
	}
	if rec.Ops[0].Count != 1000 {
		t.Fatalf("%d operations timed, want 1000", rec.Ops[0].Count)
	}
}

func TestRetriesThenSuccess(t *testing.T) {
	busy := dberr.New(dberr.Retryable, dberr.Busy, "BUSY", errors.New("busy"))
	n := 0
	out, err := Run(context.Background(), Config{Clients: 1, Units: 10, Retries: 3}, shape,
		opener(func(int, workload.Ops) error {
			n++
			if n%3 != 0 {
				return busy // fails twice, then succeeds
			}
			return nil
		}), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := measure(t, out).Record(false)
	if rec.OK != 10 || rec.Failed != 0 || rec.Retries != 20 || rec.Retried[0].Count != 20 {
		t.Fatalf("ok %d failed %d retries %d retried %+v; want 10, 0, 20", rec.OK, rec.Failed, rec.Retries, rec.Retried)
	}
}

func TestRetriesExhausted(t *testing.T) {
	busy := dberr.New(dberr.Retryable, dberr.Busy, "BUSY", errors.New("busy"))
	out, _ := Run(context.Background(), Config{Clients: 2, Units: 5, Retries: 2}, shape,
		opener(func(int, workload.Ops) error { return busy }), nil, nil)
	rec := measure(t, out).Record(false)
	if rec.OK != 0 || rec.Failed != 5 || rec.Retries != 10 || rec.Failures[0].Code != "BUSY" {
		t.Fatalf("ok %d failed %d retries %d failures %+v", rec.OK, rec.Failed, rec.Retries, rec.Failures)
	}
}

func TestFatalStopsTheRun(t *testing.T) {
	out, err := Run(context.Background(), Config{Clients: 3, Duration: time.Minute}, shape,
		opener(func(int, workload.Ops) error { return errors.New("no such table") }), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != Fatal || out.Err == nil {
		t.Fatalf("reason %q err %v, want a fatal stop", out.Reason, out.Err)
	}
}

func TestStopIsClean(t *testing.T) {
	stop := make(chan struct{})
	time.AfterFunc(300*time.Millisecond, func() { close(stop) })
	inFlight := atomic.Int64{}
	out, _ := Run(context.Background(), Config{Clients: 2, Duration: time.Minute}, shape,
		opener(func(int, workload.Ops) error {
			inFlight.Add(1)
			defer inFlight.Add(-1)
			time.Sleep(5 * time.Millisecond)
			return nil
		}), stop, nil)
	if out.Reason != Interrupted || inFlight.Load() != 0 {
		t.Fatalf("reason %q, %d units still in flight", out.Reason, inFlight.Load())
	}
	if measure(t, out).Record(false).Failed != 0 {
		t.Fatal("a clean stop failed units")
	}
}

func TestWarmupIsItsOwnPhase(t *testing.T) {
	out, _ := Run(context.Background(), Config{Clients: 1, Warmup: 300 * time.Millisecond, Duration: 300 * time.Millisecond}, shape,
		opener(func(int, workload.Ops) error { time.Sleep(time.Millisecond); return nil }), nil, nil)
	if len(out.Phases) != 2 || out.Phases[0].Name != Warmup || !out.Phases[0].Discarded || out.Phases[0].OK() == 0 {
		t.Fatalf("phases %+v", out.Phases)
	}
	returned := time.Now()
	if d := out.Phases[1].End.Sub(out.Phases[1].Start); d < 300*time.Millisecond || out.Phases[1].End.After(returned) {
		t.Fatalf("measure phase lasted %v and ended %v before Run returned: want its 300ms at least, ended by then", d, returned.Sub(out.Phases[1].End))
	}
}

// TestOpenLoopCountsTheBacklog: asked for 200 units/s from one client that
// needs 10 ms a unit, the engine delivers about 100/s and the latency, counted
// from the intended start, grows with the backlog (no coordinated omission).
func TestOpenLoopCountsTheBacklog(t *testing.T) {
	out, _ := Run(context.Background(), Config{Clients: 1, Rate: 200, Duration: time.Second}, shape,
		opener(func(int, workload.Ops) error { time.Sleep(10 * time.Millisecond); return nil }), nil, nil)
	rec := measure(t, out).Record(false)
	if rec.Rate > 110 {
		t.Fatalf("rate %.0f/s from a client that needs 10 ms a unit", rec.Rate)
	}
	if rec.All.MaxUs < 300_000 || rec.Late == 0 || rec.Lag == nil {
		t.Fatalf("max latency %dµs, late %d, lag %+v: the backlog is not counted", rec.All.MaxUs, rec.Late, rec.Lag)
	}
}

// groupClient commits every n units (workload.Group), as the workloads do
// under --commit every:N; fail says whether a commit fails (the group rolls
// back), slow how long a failing commit takes.
type groupClient struct {
	g         workload.Group
	fail      func() bool
	slow      time.Duration
	committed *atomic.Int64 // units whose commit succeeded
}

var conflict = dberr.New(dberr.Rollback, dberr.Constraint, "23505", errors.New("duplicate key"))

func (c *groupClient) Do(_ context.Context, _ int, ops workload.Ops) error {
	if err := ops.Time(0, func() error { time.Sleep(time.Millisecond); return nil }); err != nil {
		return err
	}
	if c.g.UnitBegins() {
		c.g.Open = true
	}
	if !c.g.UnitEnds() {
		return nil
	}
	return c.commit(1)
}

// commit commits the held units and this many more (the unit committing).
func (c *groupClient) commit(more int64) error {
	if c.fail() {
		time.Sleep(c.slow)
		return c.g.Abort(conflict, func() {})
	}
	c.committed.Add(c.g.Held() + more)
	c.g.Committed()
	return nil
}

func (c *groupClient) Close(context.Context) error {
	if !c.g.Open {
		return nil
	}
	return c.commit(0)
}

func (c *groupClient) Pending() int64 { return c.g.Held() }

// TestLostUnitsComeOff: a group that rolls back at Close loses its units:
// they are lost, never ok, and in no latency.
func TestLostUnitsComeOff(t *testing.T) {
	var committed atomic.Int64
	out, _ := Run(context.Background(), Config{Clients: 1, Units: 10}, shape,
		func(context.Context, int, *rand.Rand) (workload.Client, error) {
			c := &groupClient{g: workload.Group{Commit: workload.Commit{Mode: workload.PerUnits, Every: 6}}, committed: &committed}
			c.fail = func() bool { return committed.Load() > 0 } // the first group commits, the second does not
			return c, nil
		}, nil, nil)
	rec := measure(t, out).Record(false)
	if rec.OK != 6 || rec.Lost != 4 || rec.All.Count != 6 {
		t.Fatalf("ok %d lost %d, %d latencies; want 6, 4 and 6", rec.OK, rec.Lost, rec.All.Count)
	}
}

// seconds records every interval's ok and lost units.
type seconds struct{ ok, lost []int64 }

func (s *seconds) PhaseBegins(*metrics.Phase) {}
func (s *seconds) Interval(_ *metrics.Phase, iv *metrics.Interval) {
	s.ok, s.lost = append(s.ok, iv.OK()), append(s.lost, iv.Lost())
}

// TestRolledBackLeaveOK: under --commit every:4, every third group's
// commit fails after a while (longer than a tick): its three earlier units
// finished in earlier intervals. They are lost, not ok, and in no latency
// histogram; each unit is ok in the interval its group committed in, and no
// interval's count is negative. The unit log hears of each unit once: ok,
// or rolled back.
func TestRolledBackLeaveOK(t *testing.T) {
	var committed, groups atomic.Int64
	var logged, rolled atomic.Int64
	obs := &seconds{}
	out, err := Run(context.Background(), Config{Clients: 1, Units: 240, Tick: 10 * time.Millisecond,
		Log: func(_, _ int, _ time.Time, _ time.Duration, err error) {
			switch {
			case err == nil:
				logged.Add(1)
			case errors.Is(err, ErrRolledBack):
				rolled.Add(1)
			}
		}}, shape,
		func(context.Context, int, *rand.Rand) (workload.Client, error) {
			c := &groupClient{g: workload.Group{Commit: workload.Commit{Mode: workload.PerUnits, Every: 4}}, committed: &committed, slow: 30 * time.Millisecond}
			c.fail = func() bool { return groups.Add(1)%3 == 0 }
			return c, nil
		}, nil, obs)
	if err != nil {
		t.Fatal(err)
	}
	rec := measure(t, out).Record(false)
	var ok, lost int64
	for i := range obs.ok {
		if obs.ok[i] < 0 {
			t.Errorf("interval %d counts %d ok units", i, obs.ok[i])
		}
		ok, lost = ok+obs.ok[i], lost+obs.lost[i]
	}
	if ok != rec.OK || lost != rec.Lost {
		t.Errorf("the intervals sum to %d ok and %d lost; the phase says %d and %d", ok, lost, rec.OK, rec.Lost)
	}
	if rec.OK != committed.Load() || rec.All.Count != rec.OK || rec.Units[0].Count != rec.OK {
		t.Errorf("ok %d, %d unit latencies (%d of its kind); want the %d units committed in both",
			rec.OK, rec.All.Count, rec.Units[0].Count, committed.Load())
	}
	// 240 units: 60 groups, 20 failed: each lost its 3 earlier units, and
	// its last unit failed.
	if rec.Lost != 60 || rec.Failed != 20 || rec.OK != 160 {
		t.Errorf("ok %d, lost %d, failed %d; want 160, 60, 20", rec.OK, rec.Lost, rec.Failed)
	}
	if logged.Load() != rec.OK || rolled.Load() != rec.Lost {
		t.Errorf("the unit log heard of %d ok and %d rolled back, want %d and %d", logged.Load(), rolled.Load(), rec.OK, rec.Lost)
	}
}

func TestOpenErrorClosesTheOthers(t *testing.T) {
	var closed atomic.Int64
	_, err := Run(context.Background(), Config{Clients: 5, Units: 1}, shape,
		func(_ context.Context, id int, _ *rand.Rand) (workload.Client, error) {
			if id == 3 {
				return nil, errors.New("too many connections")
			}
			return &fakeClient{close: func() error { closed.Add(1); return nil }}, nil
		}, nil, nil)
	if err == nil || closed.Load() != 4 {
		t.Fatalf("err %v, %d clients closed; want an error and 4 closed", err, closed.Load())
	}
}

// TestNothingToDo: units that found nothing to do are counted apart, per
// kind, and never as ok: not in the rate, not as failed, not even when the
// nothing comes on a retry.
func TestNothingToDo(t *testing.T) {
	two := workload.Shape{Units: []workload.Weighted{{Name: "pick", Weight: 1}, {Name: "make", Weight: 1}}}
	busy := dberr.New(dberr.Retryable, dberr.Busy, "BUSY", errors.New("busy"))
	var tries atomic.Int64
	var logged atomic.Int64
	out, err := Run(context.Background(), Config{Clients: 1, Units: 400, Retries: 2,
		Log: func(_, _ int, _ time.Time, _ time.Duration, err error) {
			if errors.Is(err, workload.ErrNothing) {
				logged.Add(1)
			}
		}}, two,
		opener(func(kind int, _ workload.Ops) error {
			if kind == 1 {
				return nil
			}
			if tries.Add(1)%2 == 1 {
				return busy // the first try fails, the retry finds nothing
			}
			return workload.Nothing("no document to pick")
		}), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := measure(t, out).Record(false)
	if rec.OK != 200 || rec.Nothing != 200 || rec.Failed != 0 {
		t.Fatalf("ok %d, nothing %d, failed %d; want 200, 200, 0", rec.OK, rec.Nothing, rec.Failed)
	}
	if rec.Units[0].Nothing != 200 || rec.Units[0].Count != 0 || rec.Units[1].Nothing != 0 || rec.Units[1].Count != 200 {
		t.Fatalf("per kind: %+v", rec.Units)
	}
	if want := float64(200) / rec.Seconds; rec.Rate != want {
		t.Errorf("rate %v, want %v: only ok units count", rec.Rate, want)
	}
	if logged.Load() != 200 {
		t.Errorf("the unit log heard of %d units with nothing to do, want 200", logged.Load())
	}
}

// edges records every interval's phase and length.
type edges struct{ got []string }

func (e *edges) PhaseBegins(*metrics.Phase) {}
func (e *edges) Interval(p *metrics.Phase, iv *metrics.Interval) {
	e.got = append(e.got, fmt.Sprintf("%s %v", p.Name, iv.End.Sub(iv.Start).Round(time.Millisecond)))
	if d := iv.End.Sub(iv.Start); d < 25*time.Millisecond {
		e.got[len(e.got)-1] += " (short)"
	}
}

// TestNoPartialEdges: the warm-up's deadline and the measure phase's fall on
// ticks, and the clients finish their last unit after the end; neither edge
// leaves an interval of a few milliseconds, whose rate would be drawn as a
// full second's.
func TestNoPartialEdges(t *testing.T) {
	for i := range 3 {
		obs := &edges{}
		out, err := Run(context.Background(), Config{Clients: 2, Warmup: 300 * time.Millisecond, Duration: 500 * time.Millisecond, Tick: 100 * time.Millisecond}, shape,
			opener(func(int, workload.Ops) error { time.Sleep(3 * time.Millisecond); return nil }), nil, obs)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Phases) != 2 {
			t.Fatalf("%d phases", len(out.Phases))
		}
		for _, g := range obs.got {
			if strings.HasSuffix(g, "(short)") {
				t.Errorf("run %d: an interval of a few milliseconds at a phase's edge: %v", i, obs.got)
				break
			}
		}
	}
}

// TestOutageIsAWindow: the engine answers, then answers nothing for a
// while, then answers again: the run goes on through it (Unavailable is
// longer), and the outage is the window from the first unit that failed
// as unavailable to the first success after it, with its failures counted.
func TestOutageIsAWindow(t *testing.T) {
	down := dberr.New(dberr.Unavailable, dberr.Connection, "", errors.New("connection refused"))
	t0 := time.Now()
	from, to := t0.Add(300*time.Millisecond), t0.Add(700*time.Millisecond)
	out, err := Run(context.Background(), Config{Clients: 2, Duration: time.Second, Unavailable: 2 * time.Second}, shape,
		opener(func(int, workload.Ops) error {
			time.Sleep(time.Millisecond)
			if now := time.Now(); now.After(from) && now.Before(to) {
				return down
			}
			return nil
		}), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != Completed || len(out.Outages) != 1 {
		t.Fatalf("reason %q, outages %+v; want a completed run with one outage", out.Reason, out.Outages)
	}
	o := out.Outages[0]
	if o.Start.Before(from) || o.Start.After(from.Add(50*time.Millisecond)) || o.End.Before(to) || o.End.After(to.Add(150*time.Millisecond)) || o.Failed == 0 {
		t.Fatalf("outage %s–%s with %d failed, want about %s–%s",
			o.Start.Sub(t0), o.End.Sub(t0), o.Failed, from.Sub(t0), to.Sub(t0))
	}
}

// TestOutageEndsOnlyWhenReached: while the engine answers nothing, units
// that found nothing to do before asking it (workload.NothingUnasked) come
// between the failures: they say nothing of the engine and end no outage.
// Once it answers, a unit that found nothing to do after asking
// (workload.Nothing) ends it, as a success would.
func TestOutageEndsOnlyWhenReached(t *testing.T) {
	down := dberr.New(dberr.Unavailable, dberr.Connection, "", errors.New("connection refused"))
	t0 := time.Now()
	from, to := t0.Add(200*time.Millisecond), t0.Add(600*time.Millisecond)
	var n atomic.Int64
	out, err := Run(context.Background(), Config{Clients: 1, Duration: 900 * time.Millisecond, Unavailable: 2 * time.Second}, shape,
		opener(func(int, workload.Ops) error {
			time.Sleep(time.Millisecond)
			now := time.Now()
			switch {
			case now.Before(from):
				return nil
			case now.Before(to) && n.Add(1)%2 == 0:
				return workload.NothingUnasked("held", "a semaphore another client holds")
			case now.Before(to):
				return down
			}
			return workload.Nothing("no document to pick") // the engine answered
		}), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Outages) != 1 {
		t.Fatalf("%d outages, want 1: %+v", len(out.Outages), out.Outages)
	}
	o := out.Outages[0]
	if o.End.Before(to) || o.Failed == 0 {
		t.Fatalf("outage %s–%s with %d failed; want it to end after %s, at the first answer",
			o.Start.Sub(t0), o.End.Sub(t0), o.Failed, to.Sub(t0))
	}
}

// waitingClient keys each unit in and thinks after it (workload.Waiter).
type waitingClient struct {
	fakeClient
	keying, think time.Duration
}

func (w *waitingClient) Waits(int) (time.Duration, time.Duration) { return w.keying, w.think }

// TestWaitsAreNotLatency: a client's keying and think times (TPC-C's
// --wait) pace its units but are in no unit's latency: units of 1 ms with
// 20 ms of waiting around each are timed at about 1 ms, and a client does
// at most one in 21 ms.
func TestWaitsAreNotLatency(t *testing.T) {
	out, err := Run(context.Background(), Config{Clients: 2, Duration: 600 * time.Millisecond}, shape,
		func(context.Context, int, *rand.Rand) (workload.Client, error) {
			return &waitingClient{fakeClient: fakeClient{do: func(_ int, o workload.Ops) error {
				return o.Time(0, func() error { time.Sleep(time.Millisecond); return nil })
			}}, keying: 12 * time.Millisecond, think: 8 * time.Millisecond}, nil
		}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := measure(t, out).Record(false)
	if rec.All.MaxUs >= 12000 {
		t.Errorf("a unit's latency reached %d µs: the keying time (12 ms) is in it", rec.All.MaxUs)
	}
	// The waits pace the units: 2 clients × 600 ms ÷ 21 ms ≈ 57 units at
	// most (and the two in flight at the end); without them, about 1,000.
	// How close to 57 a run comes is the machine's speed.
	if rec.OK == 0 || rec.OK > 60 {
		t.Errorf("%d units in 600 ms on 2 clients: want some, and no more than 60 with 20 ms of waits around each", rec.OK)
	}
}

// choosingClient draws its own units (workload.Chooser), remembering
// whether each came in the warm-up, and counts the work between units
// (workload.Interluder).
type choosingClient struct {
	fakeClient
	draws, warm, between atomic.Int64
}

func (c *choosingClient) Choose(rng *rand.Rand, warmup bool) int {
	c.draws.Add(1)
	if warmup {
		c.warm.Add(1)
		return 0
	}
	return 1 + rng.IntN(2)
}

func (c *choosingClient) BetweenUnits(context.Context) { c.between.Add(1) }

// TestChooserAndBetween: a client that draws its own units gets exactly the
// kinds it drew, warm-up units told apart; the work between units runs
// before every unit but the first, outside any unit's latency.
func TestChooserAndBetween(t *testing.T) {
	three := workload.Shape{Units: []workload.Weighted{{Name: "warm", Weight: 1000}, {Name: "a", Weight: 1}, {Name: "b", Weight: 1}}, Ops: []string{"op"}}
	var c *choosingClient
	out, err := Run(context.Background(), Config{Clients: 1, Warmup: 100 * time.Millisecond, Duration: 200 * time.Millisecond}, three,
		func(context.Context, int, *rand.Rand) (workload.Client, error) {
			c = &choosingClient{fakeClient: fakeClient{do: func(int, workload.Ops) error { time.Sleep(time.Millisecond); return nil }}}
			return c, nil
		}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	warm, meas := out.Phases[0].Record(false), measure(t, out).Record(false)
	if warm.Units[0].Count == 0 || warm.Units[1].Count+warm.Units[2].Count != 0 {
		t.Errorf("warm-up units %+v: want only the kind drawn for the warm-up", warm.Units)
	}
	// A unit drawn in the warm-up may end in the measure phase, and count there.
	if meas.Units[0].Count > 1 || meas.Units[1].Count == 0 || meas.Units[2].Count == 0 {
		t.Errorf("measured units %+v: want a and b only, as drawn (the deck would deal warm 1,000 times in 1,002)", meas.Units)
	}
	if n, b := c.draws.Load(), c.between.Load(); b != n-1 || c.warm.Load() != warm.OK+meas.Units[0].Count {
		t.Errorf("%d units drawn, %d in the warm-up (%d ok there), work between units %d times; want it before all but the first", n, c.warm.Load(), warm.OK, b)
	}
}

// TestShardFollowsGlobalClients: a shard's clients are opened with their
// run-wide numbers and draw from the same streams as the same clients of
// one process running them all.
func TestShardFollowsGlobalClients(t *testing.T) {
	draws := func(cfg Config) map[int]uint64 {
		got := map[int]uint64{}
		var mu sync.Mutex
		open := func(_ context.Context, id int, rng *rand.Rand) (workload.Client, error) {
			mu.Lock()
			got[id] = rng.Uint64()
			mu.Unlock()
			return &fakeClient{do: func(int, workload.Ops) error { return nil }}, nil
		}
		if _, err := Run(context.Background(), cfg, shape, open, nil, nil); err != nil {
			t.Fatal(err)
		}
		return got
	}
	whole := draws(Config{Clients: 6, Units: 6, Seed: 7})
	shard := draws(Config{Clients: 2, First: 4, Units: 2, Seed: 7})
	if len(shard) != 2 || shard[4] != whole[4] || shard[5] != whole[5] {
		t.Fatalf("shard 2/3 opened %v; want clients 4 and 5 drawing as in one process: %v", shard, whole)
	}
}

// TestStartAtWaits: the clock starts at StartAt, not before, once every
// client is open.
func TestStartAtWaits(t *testing.T) {
	at := time.Now().Add(300 * time.Millisecond)
	out, err := Run(context.Background(), Config{Clients: 2, Units: 10, StartAt: at}, shape,
		opener(func(int, workload.Ops) error { return nil }), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := measure(t, out); p.Start.Before(at) {
		t.Fatalf("measure began at %s, before --start-at %s", p.Start.Format(time.RFC3339Nano), at.Format(time.RFC3339Nano))
	}
}

// TestReadyGivesTheStart: Ready is asked once every client is open, and
// the clock starts at the instant it gives; a zero instant (stopped while
// it waited) ends the run before any unit.
func TestReadyGivesTheStart(t *testing.T) {
	var opened atomic.Int64
	var at time.Time
	ready := func(context.Context, <-chan struct{}) (time.Time, error) {
		if n := opened.Load(); n != 3 {
			return time.Time{}, fmt.Errorf("asked with %d clients open, want 3", n)
		}
		at = time.Now().Add(200 * time.Millisecond)
		return at, nil
	}
	open := func(_ context.Context, id int, _ *rand.Rand) (workload.Client, error) {
		opened.Add(1)
		return opener(func(int, workload.Ops) error { return nil })(context.Background(), id, nil)
	}
	out, err := Run(context.Background(), Config{Clients: 3, Units: 9, Ready: ready}, shape, open, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := measure(t, out); p.Start.Before(at) || p.OK() != 9 {
		t.Fatalf("measure began at %s with %d ok; want at or after %s, 9 ok", p.Start.Format(time.RFC3339Nano), p.OK(), at.Format(time.RFC3339Nano))
	}
	var units atomic.Int64
	out, err = Run(context.Background(), Config{Clients: 2, Units: 9,
		Ready: func(context.Context, <-chan struct{}) (time.Time, error) { return time.Time{}, nil }}, shape,
		opener(func(int, workload.Ops) error { units.Add(1); return nil }), nil, nil)
	if err != nil || out.Reason != Interrupted || units.Load() != 0 {
		t.Fatalf("stopped while ready waited: reason %q, %d units, err %v; want interrupted before any unit", out.Reason, units.Load(), err)
	}
}

// TestStartAtInterrupted: a stop while waiting for StartAt ends the run
// before any unit.
func TestStartAtInterrupted(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	closed := atomic.Int64{}
	open := func(context.Context, int, *rand.Rand) (workload.Client, error) {
		return &fakeClient{do: func(int, workload.Ops) error { return nil }, close: func() error { closed.Add(1); return nil }}, nil
	}
	out, err := Run(context.Background(), Config{Clients: 3, Units: 10, StartAt: time.Now().Add(time.Hour)}, shape, open, stop, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != Interrupted || len(out.Phases) != 0 || closed.Load() != 3 {
		t.Fatalf("reason %q, %d phases, %d clients closed; want interrupted, 0, 3", out.Reason, len(out.Phases), closed.Load())
	}
}

// TestSoleOperation: a unit declared as one operation (Weighted.Sole) is
// timed once in a closed loop: its operation's histogram holds the units'
// latencies, value for value; a unit that also times the operation a second
// time, or another one, has those timed on their own; a retried unit's
// operation is timed on its own try, not with the failed tries and the
// back-off; an open loop times the operation apart from the unit, whose
// latency starts at its intended start.
func TestSoleOperation(t *testing.T) {
	sole := workload.Shape{Units: []workload.Weighted{{Name: "u", Weight: 1, Sole: "op"}}, Ops: []string{"op", "other"}}
	sleep := func(d time.Duration) func() error { return func() error { time.Sleep(d); return nil } }
	t.Run("closed loop", func(t *testing.T) {
		out, err := Run(context.Background(), Config{Clients: 2, Units: 200}, sole,
			opener(func(_ int, o workload.Ops) error { return o.Time(0, sleep(50*time.Microsecond)) }), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec := measure(t, out).Record(false)
		u, op := rec.Units[0], rec.Ops[0]
		if op.Count != 200 || u.Count != 200 || op.MinUs != u.MinUs || op.MaxUs != u.MaxUs || op.P50Us != u.P50Us || op.MeanUs != u.MeanUs {
			t.Fatalf("unit %+v, its sole operation %+v: want the same 200 latencies", u, op)
		}
	})
	t.Run("timed twice and another", func(t *testing.T) {
		out, err := Run(context.Background(), Config{Clients: 1, Units: 100}, sole,
			opener(func(_ int, o workload.Ops) error {
				if err := o.Time(0, sleep(0)); err != nil {
					return err
				}
				if err := o.Time(0, sleep(2*time.Millisecond)); err != nil {
					return err
				}
				return o.Time(1, sleep(0))
			}), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec := measure(t, out).Record(false)
		// The first call is the unit's latency (2 ms and more), the second
		// timed on its own (2 ms and more): 200 values at or above 2 ms.
		if op := rec.Ops[0]; op.Count != 200 || op.MinUs < 2000 {
			t.Fatalf("the operation timed twice per unit: %+v, want 200 values of 2 ms or more", op)
		}
		if other := rec.Ops[1]; other.Count != 100 {
			t.Fatalf("the other operation: %+v, want 100", other)
		}
	})
	t.Run("retried", func(t *testing.T) {
		busy := dberr.New(dberr.Retryable, dberr.Busy, "BUSY", errors.New("busy"))
		n := 0
		out, err := Run(context.Background(), Config{Clients: 1, Units: 20, Retries: 3}, sole,
			opener(func(_ int, o workload.Ops) error {
				n++
				return o.Time(0, func() error {
					if n%2 == 1 {
						time.Sleep(5 * time.Millisecond)
						return busy // the first try fails slowly, the retry succeeds at once
					}
					return nil
				})
			}), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec := measure(t, out).Record(false)
		// Each unit's latency is its failed try (5 ms and more), the
		// back-off and its retry; its operation's, the retry's alone.
		if u, op := rec.Units[0], rec.Ops[0]; u.Count != 20 || op.Count != 20 || u.MeanUs-op.MeanUs < 4900 || op.Failed != 20 {
			t.Fatalf("unit %+v, operation %+v: want 20 operations timed on the retry alone, 5 ms short of their units, and 20 failed tries", u, op)
		}
	})
	t.Run("open loop", func(t *testing.T) {
		out, err := Run(context.Background(), Config{Clients: 1, Units: 50, Rate: 1000}, sole,
			opener(func(_ int, o workload.Ops) error { return o.Time(0, sleep(0)) }), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rec := measure(t, out).Record(false)
		if op := rec.Ops[0]; op.Count != 50 {
			t.Fatalf("open loop: the operation timed %d times, want 50", op.Count)
		}
	})
}

// TestSettled: --warmup auto's rule. A rate still climbing window after
// window has not settled; a level one has, noisy or not; 20 intervals are
// needed to tell.
func TestSettled(t *testing.T) {
	level := func(n int, noise float64) []float64 {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 1000 + noise*rng.NormFloat64()
		}
		return xs
	}
	climbing := make([]float64, 60)
	for i := range climbing {
		climbing[i] = 100 + 30*float64(i) // a cache warming: +3 % an interval and more
	}
	for _, c := range []struct {
		name  string
		rates []float64
		want  bool
	}{
		{"level", level(20, 0), true},
		{"level, noisy", level(40, 150), true},
		{"too few intervals", level(19, 0), false},
		{"climbing", climbing, false},
		{"climbed, then level", append(climbing[:30:30], level(20, 10)...), true},
		{"a step up in the last window", append(level(10, 0), level(10, 0)[0]*1.10, 1100, 1100, 1100, 1100, 1100, 1100, 1100, 1100, 1100), false},
	} {
		if got := Settled(c.rates); got != c.want {
			t.Errorf("%s: Settled = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestWarmupAuto: with WarmupAuto the warm-up ends once its rate has
// settled, long before its cap, and says so; one too short for two
// windows of intervals runs to its cap and says it did not settle.
func TestWarmupAuto(t *testing.T) {
	steady := opener(func(int, workload.Ops) error { time.Sleep(time.Millisecond); return nil })
	tick := 20 * time.Millisecond
	out, err := Run(context.Background(), Config{Clients: 2, Warmup: time.Minute, WarmupAuto: true, Duration: 100 * time.Millisecond, Tick: tick}, shape, steady, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := out.Phases[0]
	if len(out.Phases) != 2 || w.Name != Warmup || w.Settled == nil || !*w.Settled {
		t.Fatalf("phases %+v: want a settled warm-up, then the measure phase", out.Phases)
	}
	if d := w.End.Sub(w.Start); d < 2*SettleWindow*tick || d > 30*time.Second {
		t.Fatalf("the warm-up lasted %v: want at least %d intervals of %v, and far less than its 1m cap", d, 2*SettleWindow, tick)
	}
	out, err = Run(context.Background(), Config{Clients: 2, Warmup: 5 * tick, WarmupAuto: true, Duration: 100 * time.Millisecond, Tick: tick}, shape, steady, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := out.Phases[0]; w.Settled == nil || *w.Settled || len(out.Phases) != 2 {
		t.Fatalf("a cap of 5 intervals: %+v, want a warm-up that did not settle", out.Phases)
	}
	out, _ = Run(context.Background(), Config{Clients: 1, Warmup: 5 * tick, Duration: 50 * time.Millisecond, Tick: tick}, shape, steady, nil, nil)
	if out.Phases[0].Settled != nil {
		t.Fatal("a fixed warm-up says whether it settled")
	}
}
