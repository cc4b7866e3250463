// Package run is the load engine: it starts the clients, deals units from the
// mix deck, paces an open loop, retries what may be retried, times every unit
// and operation, moves from warm-up to measure, and stops on time, on a count,
// on a stop file, on a fatal error or when asked.
//
// It is the only place where units of work are timed.
package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Config says how to run.
type Config struct {
	Clients int
	// First is the run-wide number of this process's client 0 (--shard:
	// shard i of a run of N·C clients runs clients [i·C, (i+1)·C)). A
	// client's seeds and the id its workload sees follow that number, so
	// that client k draws the same whichever machine runs it.
	First int
	// StartAt, when set, is the wall-clock instant the warm-up (or the
	// measure phase) begins, once every client is open (--start-at): shards
	// on many machines begin together. Past already: they begin at once.
	StartAt time.Time
	// Ready, when set, is called once every client is open; the warm-up
	// begins at the instant it returns (--start-at file:PATH: a coordinator
	// writes it once every shard is ready), and the run ends before any
	// unit if that is zero (stopped while it waited). Its error ends it.
	Ready  func(ctx context.Context, stop <-chan struct{}) (time.Time, error)
	Warmup time.Duration // measured, then discarded; with WarmupAuto, the most it may last
	// WarmupAuto ends the warm-up as soon as its rate has settled
	// (Settled), at Warmup at the latest.
	WarmupAuto bool
	Duration   time.Duration // measure phase length; 0 when Units ends it
	Units      int64         // units to run in the measure phase; 0 when Duration ends it
	// PerClient is the units each client runs in the measure phase
	// (pgbench -t); 0: no such limit. Units is then PerClient × Clients.
	PerClient int64
	Rate      float64 // open loop: intended units per second, all clients together; 0 = closed loop
	// Profile, when set, is the open loop's plan instead of Rate: its
	// phases from the start of the measure phase, the warm-up before it at
	// its first rate. The run ends with it, at Duration its length.
	Profile *Profile
	// Stepper, when set, plans the measure phase step by step, each step
	// an open loop at a rate of its choosing (dbgauge capacity); the
	// warm-up before it runs as a closed loop. The run ends when it says.
	Stepper  Stepper
	Retries  int    // retries of a unit after a retryable error
	Seed     uint64 // randomness is seeded from (Seed, client)
	StopFile string // the run ends cleanly when this file appears
	// Unavailable is how long every unit may fail as unavailable before
	// the run stops (the engine is not coming back); 5 s when 0.
	Unavailable time.Duration
	Tick        time.Duration // interval of the series; DefaultTick when 0
	// Log, when set, is told of every unit that ended (err nil when it
	// succeeded, matching workload.ErrNothing when it found nothing to do,
	// ErrRolledBack when it finished but its group rolled back), from the
	// client's goroutine: it must be safe for concurrent use and quick. A
	// unit that finished inside a group (--commit every:N) is told of once
	// its group committed or rolled back.
	Log func(client, kind int, start time.Time, d time.Duration, err error)
}

// ErrRolledBack is what Config.Log is told of a unit that finished inside a
// group (--commit every:N) that then rolled back: it is lost, not ok.
var ErrRolledBack = errors.New("rolled back with its group")

// Reason says why a run stopped.
type Reason string

// The reasons a run stops.
const (
	Completed   Reason = ""            // its duration or unit count was reached
	Interrupted Reason = "interrupted" // the stop channel was closed (Ctrl-C, SIGTERM)
	StopFile    Reason = "stop file"   // the stop file appeared
	Fatal       Reason = "fatal error" // a unit failed with a fatal error
	Canceled    Reason = "canceled"    // the context was canceled: units in flight were abandoned
)

// Stepper plans a measure phase made of steps, each an open loop at a
// constant rate whose starts left waiting when it ends are dropped and
// counted: no step inherits another's backlog.
type Stepper interface {
	// Next is called as the measure phase begins, after the warm-up (a
	// closed loop's: how fast the engine goes unpaced), and as each step
	// ends, with the starts it intended that no client took (dropped);
	// the Observer has seen every interval up to then. It returns the next
	// step's rate and length, or false to end the run. It is called from
	// the goroutine that calls the Observer, with the clients running.
	Next(dropped int64) (rate float64, length time.Duration, ok bool)
}

// Observer sees each phase begin and every interval close, from one goroutine.
type Observer interface {
	PhaseBegins(p *metrics.Phase)
	Interval(p *metrics.Phase, iv *metrics.Interval)
}

// Opener prepares client id with its random source. Called before the clock starts.
type Opener func(ctx context.Context, id int, rng *rand.Rand) (workload.Client, error)

// Outcome is what a run measured.
type Outcome struct {
	Phases []*metrics.Phase
	Reason Reason
	Err    error // the fatal error that stopped the run, if any
	// Outages are the windows in which units failed as unavailable and
	// none reached the engine, in order.
	Outages []Outage
}

// Outage is a window in which the engine answered no unit: from the first
// unit that failed as unavailable after a success to the next unit that
// reached the engine (workload.Reached: it succeeded, or found nothing to
// do once the engine answered); End is zero when the run ended inside it.
type Outage struct {
	Start, End time.Time
	Failed     int64 // units that failed as unavailable in it
}

// Phase names.
const (
	Warmup  = "warmup"
	Measure = "measure"
)

// okEvery is how stale lastOK may be; checkUnavailable counts in seconds.
const okEvery = time.Millisecond

// maxOpening bounds the clients connecting at once.
const maxOpening = 16

type runner struct {
	cfg   Config
	shape workload.Shape
	set   *metrics.Set
	pacer *pacer                // open loop: the intended starts; nil in a closed loop
	mixes [][]workload.Weighted // the decks' weights: 0 the workload's, then the profile's phases'

	measuring atomic.Bool
	claimed   atomic.Int64 // units claimed in the measure phase
	t0        time.Time    // the origin: units' starts and the open loop's plan count from it

	// lastOK is the nanoseconds from t0 of a recent successful unit, at most
	// okEvery old: stored by every client, it is written only when it has
	// aged, so that clients on different CPUs do not take its cache line
	// from each other at every unit.
	lastOK      atomic.Int64
	unavailable atomic.Pointer[error]
	// An outage is open: read at every success, written only as one
	// begins and ends (outMu).
	inOutage atomic.Bool
	outStart atomic.Int64 // nanoseconds from t0 of the open outage's start
	outMu    sync.Mutex
	outages  []Outage

	opener Opener
	rngs   []*rand.Rand // each client's workload stream, kept for a reopening

	stopOnce sync.Once
	stopCh   chan struct{}
	stopped  atomic.Bool  // stopCh is closed: read at every unit, cheaper than the channel
	stopAt   atomic.Int64 // unix nanoseconds of the stop, 0 before it
	reason   Reason
	fatal    error
	mu       sync.Mutex
}

// Run runs the workload's clients until the measure phase ends. Closing stop
// ends the run cleanly: units in flight finish. Canceling ctx abandons them.
func Run(ctx context.Context, cfg Config, shape workload.Shape, open Opener, stop <-chan struct{}, obs Observer) (*Outcome, error) {
	if cfg.Clients < 1 {
		return nil, errors.New("run: at least one client")
	}
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.Unavailable <= 0 {
		cfg.Unavailable = 5 * time.Second
	}
	r := &runner{
		cfg: cfg, shape: shape, stopCh: make(chan struct{}),
		set: metrics.NewSet(metricsShape(shape), cfg.Clients),
	}
	if err := r.plan(); err != nil {
		return nil, err
	}
	clients, err := r.open(ctx, open)
	if err != nil {
		return nil, err
	}
	closeAll := func() {
		for _, c := range clients {
			_ = c.Close(context.WithoutCancel(ctx))
		}
	}
	if _, chooses := clients[0].(workload.Chooser); chooses && len(r.mixes) > 1 {
		closeAll()
		return nil, errors.New("the workload chooses each unit itself (its own deck): a profile's phase cannot change its mix")
	}
	ready := true
	if cfg.Ready != nil {
		if r.cfg.StartAt, err = cfg.Ready(ctx, stop); err != nil {
			closeAll()
			return nil, err
		}
		ready = !r.cfg.StartAt.IsZero() // zero: stopped while it waited
	}
	if !ready || !r.waitStart(ctx, stop) {
		closeAll()
		if ctx.Err() != nil {
			return &Outcome{Reason: Canceled}, nil
		}
		return &Outcome{Reason: Interrupted}, nil
	}

	var wg sync.WaitGroup
	start := time.Now()
	r.t0 = start
	r.lastOK.Store(0) // t0 is start
	r.set.Start(start)
	phase := metrics.NewPhase(Measure, metricsShape(shape), start)
	phases := []*metrics.Phase{phase}
	phaseEnd := cfg.Duration
	if cfg.Warmup > 0 {
		phase.Name, phase.Discarded = Warmup, true
		phaseEnd = cfg.Warmup
	} else {
		r.measuring.Store(true)
	}
	if obs != nil {
		obs.PhaseBegins(phase)
	}
	for id, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.client(ctx, id, c)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	ticker := time.NewTicker(cfg.Tick)
	defer ticker.Stop()
	stopMeasureTimer := func() bool { return false }
	defer func() { stopMeasureTimer() }()
	var deadline <-chan time.Time
	var deadlineAt time.Time
	if phaseEnd > 0 {
		t := time.NewTimer(phaseEnd)
		defer t.Stop()
		deadline, deadlineAt = t.C, start.Add(phaseEnd)
	}
	var warmRates []float64 // the warm-up's rate in each interval, with WarmupAuto
	var offered float64     // the starts the open loop intended by the last tick
	var stepTimer <-chan time.Time
	var stopStepTimer func() bool
	defer func() {
		if stopStepTimer != nil {
			stopStepTimer()
		}
	}()
	// Intervals end when they are read, not when the timer fired: units
	// recorded in between belong to the interval.
	// With --warmup auto, a warm-up interval whose rate settles it marks
	// the phase settled before the observer sees it: settled says so.
	tick := func(now time.Time) (settled bool) {
		iv := r.set.Tick(now)
		if r.pacer != nil {
			n := r.pacer.arrivals(now.Sub(r.t0))
			iv.Offered, offered = n-offered, n
		}
		if dt := iv.End.Sub(iv.Start).Seconds(); cfg.WarmupAuto && phase.Name == Warmup && phase.Settled == nil && dt >= Edge(cfg.Tick).Seconds() {
			warmRates = append(warmRates, float64(iv.OK())/dt)
			if settled = Settled(warmRates); settled {
				phase.Settled = &settled
			}
		}
		phase.Add(iv)
		if obs != nil {
			obs.Interval(phase, iv)
		}
		return settled
	}
	// nextStep asks the Stepper for the step that follows the warm-up, or
	// a step whose starts left waiting were dropped, and plans it, or ends
	// the run.
	nextStep := func(dropped int64) {
		rate, length, ok := cfg.Stepper.Next(dropped)
		if !ok || rate <= 0 || length <= 0 {
			r.stop(Completed)
			return
		}
		r.pacer.plan(time.Since(r.t0), rate)
		t := time.NewTimer(length)
		stepTimer, stopStepTimer = t.C, t.Stop
	}
	// measure ends the warm-up at now, its last interval closed by then.
	measure := func(now time.Time) {
		// Measuring from before the warm-up's last interval closes: a
		// unit drawn for the warm-up ends in the measure phase only if it
		// was in flight now, one a client at most, however long this
		// goroutine waits for a CPU or PhaseBegins for the engine's
		// counters.
		phase = metrics.NewPhase(Measure, metricsShape(shape), now)
		phases = append(phases, phase)
		if obs != nil {
			obs.PhaseBegins(phase)
		}
		ticker.Reset(cfg.Tick)
		deadline, deadlineAt = nil, time.Time{}
		if cfg.Duration > 0 {
			// From the phase's start: reading the engine's counters
			// (PhaseBegins) can take seconds under a heavy load.
			t := time.NewTimer(cfg.Duration - time.Since(now))
			deadline, deadlineAt = t.C, now.Add(cfg.Duration)
			stopMeasureTimer = t.Stop
		}
		if cfg.Stepper != nil {
			r.pacer.hold(now.Sub(r.t0)) // the closed loop ends
			nextStep(0)
		}
	}
	if cfg.Stepper != nil && cfg.Warmup <= 0 {
		r.pacer.hold(0)
		nextStep(0)
	}
	canceled := ctx.Done()
	for {
		select {
		case <-ticker.C:
			now := time.Now()
			if r.closes(now, deadlineAt) && tick(now) {
				// The units drawn since the tick (one a client at most) are
				// the measure phase's, though not counted against --units.
				r.measuring.Store(true)
				measure(now)
				continue
			}
			r.checkUnavailable(now)
			if cfg.StopFile != "" {
				if _, err := os.Stat(cfg.StopFile); err == nil {
					r.stop(StopFile)
				}
			}
		case <-deadline:
			now := time.Now()
			if phase.Name == Warmup {
				r.measuring.Store(true) // before the last interval closes: see measure
				if cfg.WarmupAuto {
					capped := false // it ran to its cap
					phase.Settled = &capped
				}
				tick(now)
				measure(now)
				continue
			}
			// The measure phase's last interval closes when the clients
			// have finished their units (done), not here: those few
			// milliseconds alone would be a partial second.
			r.stop(Completed)
			deadline, deadlineAt = nil, time.Time{}
		case <-stepTimer:
			if r.stopping() {
				stepTimer = nil
				continue
			}
			now := time.Now()
			dropped := r.pacer.hold(now.Sub(r.t0))
			phase.Missed += dropped
			tick(now) // the step's last interval
			ticker.Reset(cfg.Tick)
			nextStep(dropped)
		case <-stop:
			r.stop(Interrupted)
			stop = nil
		case <-canceled:
			r.stop(Canceled)
			canceled = nil
		case <-done:
			now := time.Now()
			if r.pacer != nil && phase.Name == Measure {
				// The starts intended before the stop that no client
				// took: the engine left them waiting.
				at := now
				if stopAt := r.stopAt.Load(); stopAt != 0 {
					at = time.Unix(0, stopAt)
				}
				phase.Missed += r.pacer.unstarted(at.Sub(r.t0))
			}
			tick(now)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.outMu.Lock()
			outages := slices.Clone(r.outages)
			r.outMu.Unlock()
			return &Outcome{Phases: phases, Reason: r.reason, Err: r.fatal, Outages: outages}, nil
		}
	}
}

// SettleWindow is how many intervals each of the two windows Settled
// compares holds, and SettleTolerance the change between them that counts
// as settled even where the noise would hide a larger one.
const (
	SettleWindow    = 10
	SettleTolerance = 0.02
)

// Settled is --warmup auto's rule: the warm-up's rate (one value an
// interval, oldest first) has settled when the means of its last two
// windows of SettleWindow intervals differ by less than SettleTolerance
// of the earlier one, or by less than twice the standard error of their
// difference: the rate no longer moves by more than 2 %, or by more than
// its own noise can tell. A cache that is still warming keeps raising the
// rate window after window; a rate that has reached its level stops.
func Settled(rates []float64) bool {
	n := len(rates)
	if n < 2*SettleWindow {
		return false
	}
	a, va := meanVar(rates[n-2*SettleWindow : n-SettleWindow])
	b, vb := meanVar(rates[n-SettleWindow:])
	d := math.Abs(b - a)
	return d < SettleTolerance*a || d < 2*math.Sqrt((va+vb)/SettleWindow)
}

// meanVar is xs's mean and sample variance.
func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

func metricsShape(s workload.Shape) metrics.Shape {
	m := metrics.Shape{Ops: s.Ops}
	for _, u := range s.Units {
		m.Units = append(m.Units, u.Name)
	}
	return m
}

// waitStart waits, the clients open, until cfg.StartAt. It reports
// whether the run goes on (not interrupted nor canceled meanwhile).
func (r *runner) waitStart(ctx context.Context, stop <-chan struct{}) bool {
	d := time.Until(r.cfg.StartAt)
	if r.cfg.StartAt.IsZero() || d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	case <-ctx.Done():
		return false
	}
}

// open prepares every client, a few at a time, before the clock starts.
func (r *runner) open(ctx context.Context, open Opener) ([]workload.Client, error) {
	clients := make([]workload.Client, r.cfg.Clients)
	errs := make([]error, r.cfg.Clients)
	r.opener, r.rngs = open, make([]*rand.Rand, r.cfg.Clients)
	for id := range r.rngs {
		r.rngs[id] = workload.NewRand(r.cfg.Seed, uint64(r.cfg.First+id))
	}
	sem := make(chan struct{}, maxOpening)
	var wg sync.WaitGroup
	for id := range clients {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			clients[id], errs[id] = open(ctx, r.cfg.First+id, r.rngs[id])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, c := range clients {
			if c != nil {
				_ = c.Close(context.WithoutCancel(ctx))
			}
		}
		return nil, fmt.Errorf("open clients: %w", firstError(errs))
	}
	return clients, nil
}

func firstError(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// outage opens an outage at a unit that failed as unavailable (failed),
// counting it, or closes the open one at a success of a unit begun after
// it opened (one that was in flight may still have been answered before).
func (r *runner) outage(now time.Time, failed bool) {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	open := r.inOutage.Load()
	switch {
	case failed && !open:
		r.outages = append(r.outages, Outage{Start: now, Failed: 1})
		r.outStart.Store(int64(now.Sub(r.t0)))
		r.inOutage.Store(true)
	case failed:
		r.outages[len(r.outages)-1].Failed++
	case open:
		r.outages[len(r.outages)-1].End = now
		r.inOutage.Store(false)
	}
}

// checkUnavailable stops the run when units have failed as unavailable and
// none has succeeded for cfg.Unavailable.
func (r *runner) checkUnavailable(now time.Time) {
	e := r.unavailable.Load()
	if e == nil || now.Sub(r.t0)-time.Duration(r.lastOK.Load()) < r.cfg.Unavailable {
		return
	}
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = fmt.Errorf("the engine has been unavailable for %s: %w", r.cfg.Unavailable, *e)
	}
	r.mu.Unlock()
	r.stop(Fatal)
}

// DefaultTick is the interval of the series when Config.Tick is 0.
const DefaultTick = time.Second

// Edge is how close to a phase's deadline, or after a stop, a tick of
// length tick is left to them (closes): a quarter of it. An interval shorter
// than that is one a stop cut short.
func Edge(tick time.Duration) time.Duration { return tick / 4 }

// closes reports whether the tick at now closes an interval. It does not
// within a quarter tick before the phase's deadline (deadlineAt, zero when
// none), which closes that interval a little later, nor within a quarter tick
// after the run was asked to stop, when the clients are finishing their
// last unit and done closes the interval: a phase never ends with, nor
// begins after, an interval of a few milliseconds whose rate is no rate.
// Such an interval can still end a run stopped just after a tick (Ctrl-C, a
// stop file, --units); its dt says how short it is.
func (r *runner) closes(now, deadlineAt time.Time) bool {
	edge := Edge(r.cfg.Tick)
	if !deadlineAt.IsZero() && deadlineAt.Sub(now) < edge {
		return false
	}
	if at := r.stopAt.Load(); at != 0 && now.Sub(time.Unix(0, at)) < edge {
		return false
	}
	return true
}

// stop ends the run for reason; the first reason wins.
func (r *runner) stop(reason Reason) {
	r.stopOnce.Do(func() {
		r.stopAt.Store(time.Now().UnixNano())
		r.mu.Lock()
		r.reason = reason
		r.mu.Unlock()
		r.stopped.Store(true)
		close(r.stopCh)
	})
}

func (r *runner) stopping() bool { return r.stopped.Load() }

// sleep waits d, or less when the run stops. It reports whether the run goes on.
func (r *runner) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return !r.stopping()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.stopCh:
		return false
	case <-ctx.Done():
		return false
	}
}

// clock reads the time on a client's hot path from the monotonic clock
// alone, as durations from the run's origin: time.Since reads it once,
// where time.Now reads the wall clock too (two clock calls). A unit's
// start is made a time (the origin plus it) only where one is wanted (the
// unit log, an outage), so that its wall time follows the origin's, not a
// step of the system's clock during the run.
type clock struct{ t0 time.Time }

// elapsed returns the time since the origin, one clock call.
func (c clock) elapsed() time.Duration { return time.Since(c.t0) }

// opTimer times the operations inside a unit for one client.
type opTimer struct {
	rec   *metrics.Recorder
	clock clock
}

func (o *opTimer) Time(op int, fn func() error) error {
	t := o.clock.elapsed()
	err := fn()
	if err == nil {
		o.rec.Op(op, o.clock.elapsed()-t)
	} else {
		o.rec.OpFailed(op, err)
	}
	return err
}

// soleOps is the Ops of a unit of one operation (workload.Weighted.Sole) on
// its first try in a closed loop: the operation runs untimed, and its
// latency is the unit's (client records it). Anything else the unit times
// goes to the opTimer.
type soleOps struct {
	op    int // the sole operation's index
	timer *opTimer
	ran   bool // the sole operation ran untimed, and succeeded
	used  bool // it was called (then anything else is timed)
}

func (o *soleOps) Time(op int, fn func() error) error {
	if op != o.op || o.used {
		return o.timer.Time(op, fn)
	}
	o.used = true
	err := fn()
	if err != nil {
		o.timer.rec.OpFailed(op, err)
		return err
	}
	o.ran = true
	return nil
}

// soleIndexes returns, per unit kind, the index of its sole operation in
// ops, or -1; all -1 in an open loop (paced), where a unit's latency
// starts at its intended start and is not its operation's.
func soleIndexes(s workload.Shape, paced bool) []int {
	out := make([]int, len(s.Units))
	for i, u := range s.Units {
		out[i] = -1
		if u.Sole != "" && !paced {
			out[i] = slices.Index(s.Ops, u.Sole)
		}
	}
	return out
}

// heldUnit is a unit that finished inside a group not committed yet.
type heldUnit struct {
	kind int
	at   time.Duration // its start, from the run's origin
	d    time.Duration
}

// held are a client's units that finished inside a transaction that has
// not committed yet (workload.Pender): they are recorded as ok when it
// commits and counted lost when it rolls back, never both.
type held struct {
	units []heldUnit
	rec   *metrics.Recorder
	log   func(client, kind int, start time.Time, d time.Duration, err error)
	gid   int
	t0    time.Time // the run's origin, which a unit's start counts from
}

// done records a unit that finished at once, or holds it when its client
// says it rides on an open transaction.
func (h *held) done(pender workload.Pender, kind int, at, d time.Duration) {
	if pender == nil || len(h.units) == 0 && pender.Pending() <= 0 {
		// Nothing held, nothing pending: it committed (--commit unit, op).
		h.record(heldUnit{kind, at, d})
		return
	}
	h.units = append(h.units, heldUnit{kind, at, d})
	h.settle(pender)
}

// settle records as ok the units held beyond the last pending ones: their
// transaction committed.
func (h *held) settle(pender workload.Pender) {
	if pender == nil || len(h.units) == 0 {
		return
	}
	n := len(h.units) - int(min(max(pender.Pending(), 0), int64(len(h.units))))
	for _, u := range h.units[:n] {
		h.record(u)
	}
	h.units = append(h.units[:0], h.units[n:]...)
}

func (h *held) record(u heldUnit) {
	h.rec.Unit(u.kind, u.d)
	if h.log != nil {
		h.log(h.gid, u.kind, h.t0.Add(u.at), u.d, nil)
	}
}

// rolledBack counts lost the units of a group that rolled back (err: a
// *workload.Lost, or the failed Close of a client that held some), and
// drops those held, which were never recorded.
func (h *held) rolledBack(err error) {
	n := workload.LostUnits(err)
	if n == 0 {
		n = int64(len(h.units)) // not acknowledged: they are lost too
	}
	h.rec.Lost(n)
	if h.log != nil {
		for _, u := range h.units {
			h.log(h.gid, u.kind, h.t0.Add(u.at), u.d, ErrRolledBack)
		}
	}
	h.units = h.units[:0]
}

// closed settles the held units after Close: committed when it succeeded,
// lost when it failed.
func (h *held) closed(err error) {
	if err != nil {
		if workload.LostUnits(err) > 0 || len(h.units) > 0 {
			h.rolledBack(err)
		}
		return
	}
	for _, u := range h.units {
		h.record(u)
	}
	h.units = h.units[:0]
}

// client runs units on one client until the run stops, then closes it.
func (r *runner) client(ctx context.Context, id int, c workload.Client) {
	rec := r.set.Recorder(id)
	gid := r.cfg.First + id // the client's number in the whole run (--shard)
	hold := &held{rec: rec, log: r.cfg.Log, gid: gid, t0: r.t0}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		hold.closed(c.Close(cctx))
		rec.Flush() // operations waiting in the recorder
	}()
	// A stream of its own, so that the mix does not depend on the workload's draws.
	rng := workload.NewRand(r.cfg.Seed^0x9e3779b97f4a7c15, uint64(gid))
	clk := clock{r.t0}
	deck, ops := workload.NewDeck(r.shape.Units, rng), &opTimer{rec: rec, clock: clk}
	soles, sole := soleIndexes(r.shape, r.pacer != nil), &soleOps{timer: ops}
	decks := make([]*workload.Deck, len(r.mixes)) // a profile's phases' mixes, dealt as they come
	var think time.Duration                       // the last unit's think time (workload.Waiter)
	waiter, _ := c.(workload.Waiter)
	chooser, _ := c.(workload.Chooser)
	between, _ := c.(workload.Interluder)
	pender, _ := c.(workload.Pender)
	var mine int64 // units this client began in the measure phase
	for first := true; !r.stopping(); first = false {
		if think > 0 && !r.sleep(ctx, think) {
			return
		}
		think = 0
		if between != nil && !first {
			between.BetweenUnits(ctx)
		}
		switch measuring := r.measuring.Load(); {
		case r.cfg.PerClient > 0 && measuring:
			// Units is PerClient × Clients then: no shared count needed.
			if mine == r.cfg.PerClient {
				return // its N are done; the others finish theirs
			}
			mine++
		case r.cfg.Units > 0 && measuring && r.claimed.Add(1) > r.cfg.Units:
			return // no unit left; the others finish theirs, retries included
		}
		at := clk.elapsed() // the unit's start, from t0
		paced, mix := false, 0
		if r.pacer != nil {
			s, ok := r.slot(ctx)
			if !ok {
				return
			}
			if paced = s.at >= 0; paced {
				if !r.sleep(ctx, s.at-clk.elapsed()) {
					return
				}
				lag := clk.elapsed() - s.at
				rec.Lag(lag, lag > s.late)
				at, mix = s.at, s.mix // latency counts the wait a slow engine caused
			}
		}
		var kind int
		switch {
		case chooser != nil:
			kind = chooser.Choose(rng, !r.measuring.Load())
		case mix == 0:
			kind = deck.Deal()
		default:
			if decks[mix] == nil {
				decks[mix] = workload.NewDeck(r.mixes[mix], rng)
			}
			kind = decks[mix].Deal()
		}
		if waiter != nil {
			// A person keys the unit in, then thinks after it: neither is
			// the engine's time, and neither is in the unit's latency.
			var keying time.Duration
			keying, think = waiter.Waits(kind)
			if keying > 0 {
				if !r.sleep(ctx, keying) {
					return
				}
				if !paced {
					at = clk.elapsed()
				}
			}
		}
		var first workload.Ops = ops
		if soles[kind] >= 0 {
			*sole = soleOps{op: soles[kind], timer: ops}
			first = sole
		}
		retried, err := r.attempt(ctx, c, kind, first, ops, hold, rng)
		if nothing := errors.Is(err, workload.ErrNothing); err == nil || nothing {
			// A unit that found nothing to do did no work: counted apart,
			// never as ok.
			end := clk.elapsed()
			d := end - at
			if first == sole && sole.ran && !retried {
				rec.Op(sole.op, d) // the unit is its operation
			}
			if nothing {
				rec.Nothing(kind, err)
				hold.settle(pender)
				if r.cfg.Log != nil {
					r.cfg.Log(gid, kind, r.t0.Add(at), d, err)
				}
			} else {
				hold.done(pender, kind, at, d)
			}
			if workload.Reached(err) {
				// The engine answered it: it is up.
				if int64(end)-r.lastOK.Load() >= int64(okEvery) {
					r.lastOK.Store(int64(end))
				}
				if r.inOutage.Load() && int64(at) > r.outStart.Load() {
					r.outage(r.t0.Add(end), false) // a unit begun in the outage got an answer: it is over
				}
			}
			continue
		}
		hold.settle(pender)
		rec.Failed(kind, err)
		if r.cfg.Log != nil {
			r.cfg.Log(gid, kind, r.t0.Add(at), clk.elapsed()-at, err)
		}
		switch dberr.ClassOf(err) {
		case dberr.Fatal:
			r.mu.Lock()
			if r.fatal == nil {
				r.fatal = err
			}
			r.mu.Unlock()
			r.stop(Fatal)
			return
		case dberr.Unavailable:
			e := err // err itself would move to the heap at every unit
			r.unavailable.Store(&e)
			r.outage(time.Now(), true)
			if r.sleep(ctx, 100*time.Millisecond) {
				c = r.reopen(ctx, id, c, hold)
				waiter, _ = c.(workload.Waiter)
				chooser, _ = c.(workload.Chooser)
				between, _ = c.(workload.Interluder)
				pender, _ = c.(workload.Pender)
			}
		case dberr.Canceled:
			return
		}
	}
}

// slot takes the client's next intended start from the pacer, waiting
// between two steps; its at is -1 while no plan is made (a closed loop).
// It reports false when the run stops: once the profile has no start left,
// it waits for that.
func (r *runner) slot(ctx context.Context) (slot, bool) {
	for {
		s, state, resume := r.pacer.next()
		switch state {
		case slotStart:
			return s, true
		case slotClosed:
			return slot{at: -1}, true
		case slotEnd:
			// Nothing left to start: the run ends at the profile's end,
			// not when the last start was taken.
			resume = nil
		}
		select {
		case <-resume:
		case <-r.stopCh:
			return s, false
		case <-ctx.Done():
			return s, false
		}
	}
}

// plan makes the open loop's pacer (Rate, Profile, Stepper) and the
// weights of the profile's phases' mixes.
func (r *runner) plan() error {
	cfg := r.cfg
	r.mixes = [][]workload.Weighted{r.shape.Units}
	poisson := cfg.Profile != nil && cfg.Profile.Poisson
	switch {
	case cfg.Stepper != nil:
		r.pacer = closedPacer(poisson, cfg.Seed)
	case cfg.Profile != nil && len(cfg.Profile.Phases) > 0:
		mixes := make([]int, len(cfg.Profile.Phases))
		for i, ph := range cfg.Profile.Phases {
			if ph.Mix == nil {
				continue
			}
			units, err := reweigh(r.shape.Units, ph)
			if err != nil {
				return err
			}
			r.mixes = append(r.mixes, units)
			mixes[i] = len(r.mixes) - 1
		}
		r.pacer = newPacer(cfg.Profile, cfg.Warmup, mixes, cfg.Seed)
	case cfg.Rate > 0:
		r.pacer = newPacer(&Profile{Phases: []Segment{{From: cfg.Rate, To: cfg.Rate}}, Poisson: poisson}, 0, []int{0}, cfg.Seed)
	}
	return nil
}

// reweigh returns the workload's unit kinds with a profile phase's weights.
func reweigh(units []workload.Weighted, ph Segment) ([]workload.Weighted, error) {
	out := slices.Clone(units)
	names := make([]string, len(units))
	sum := 0
	for i := range out {
		names[i] = out[i].Name
		out[i].Weight = ph.Mix[out[i].Name]
		sum += out[i].Weight
	}
	for name := range ph.Mix {
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("the profile's phase %q weighs %q, which is none of the workload's units (%s)", ph.Text, name, strings.Join(names, ", "))
		}
	}
	if sum <= 0 {
		return nil, fmt.Errorf("the profile's phase %q gives every unit a weight of 0", ph.Text)
	}
	return out, nil
}

// reopen replaces a client whose connection is gone (the engine restarted,
// a replica was promoted) with a new one; the old one is closed, and units
// it had pending are lost. When the engine does not answer yet, the old
// client is kept, to fail and try again.
func (r *runner) reopen(ctx context.Context, id int, c workload.Client, hold *held) workload.Client {
	// The run's context, as at the first opening: a client may watch it
	// for as long as it lives (the engines' connect timeouts bound this).
	nc, err := r.opener(ctx, r.cfg.First+id, r.rngs[id])
	if err != nil {
		return c
	}
	cctx, cancel2 := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel2()
	hold.closed(c.Close(cctx))
	return nc
}

// attempt runs one unit, retrying retryable failures with a growing, jittered
// back-off. The latency of the unit includes its retries. A unit that finds
// nothing to do on a retry ends there, as nothing to do.
//
// The first try runs with first (a soleOps, or ops itself); a retry with
// ops, its operations timed on their own: the unit's latency then holds the
// failed tries and the back-off too.
func (r *runner) attempt(ctx context.Context, c workload.Client, kind int, first workload.Ops, ops *opTimer, hold *held, rng *rand.Rand) (retried bool, err error) {
	for try := 0; ; try++ {
		var with workload.Ops = ops
		if try == 0 {
			with = first
		}
		retried = try > 0
		if err = c.Do(ctx, kind, with); err == nil {
			return retried, nil
		}
		if workload.LostUnits(err) > 0 {
			hold.rolledBack(err)
		}
		rec := hold.rec
		if dberr.ClassOf(err) != dberr.Retryable || try >= r.cfg.Retries {
			return retried, err
		}
		backoff := min(time.Millisecond<<min(try, 7), 100*time.Millisecond)
		backoff = backoff/2 + time.Duration(rng.Int64N(int64(backoff)))
		if !r.sleep(ctx, backoff) {
			return retried, err
		}
		rec.Retry(err)
	}
}
