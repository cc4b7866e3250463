package run

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// starts takes every start a pacer plans, up to max.
func starts(t *testing.T, p *pacer, max int) []slot {
	t.Helper()
	var out []slot
	for range max {
		s, state, _ := p.next()
		if state == slotEnd {
			return out
		}
		if state != slotStart {
			t.Fatalf("state %d, want a start", state)
		}
		out = append(out, s)
	}
	return out
}

func near(a, b time.Duration) bool { return (a - b).Abs() <= time.Microsecond }

func TestPacerEvenStarts(t *testing.T) {
	p := newPacer(&Profile{Phases: []Segment{{Length: time.Second, From: 100, To: 100}}}, 0, []int{0}, 1)
	got := starts(t, p, 1000)
	if len(got) != 100 {
		t.Fatalf("%d starts in a second at 100/s", len(got))
	}
	for i, s := range got {
		if want := time.Duration(i) * 10 * time.Millisecond; !near(s.at, want) || !near(s.late, 10*time.Millisecond) {
			t.Fatalf("start %d at %v (late after %v), want %v (after 10ms)", i, s.at, s.late, want)
		}
	}
	fast := newPacer(&Profile{Phases: []Segment{{Length: time.Second, From: 5000, To: 5000}}}, 0, []int{0}, 1)
	if s := starts(t, fast, 1)[0]; s.late != LateFloor {
		t.Fatalf("late after %v at 5000/s, want the floor %v", s.late, LateFloor)
	}
}

// TestPacerRamp: from 0 to 100/s over 2 s is 100 starts, the n-th at
// sqrt(n/25) s (the area under the rate is 25 τ²), the gaps narrowing.
func TestPacerRamp(t *testing.T) {
	p := newPacer(&Profile{Phases: []Segment{{Length: 2 * time.Second, From: 0, To: 100}}}, 0, []int{0}, 1)
	got := starts(t, p, 1000)
	if len(got) != 100 {
		t.Fatalf("%d starts, want 100", len(got))
	}
	for n, s := range got {
		want := time.Duration(math.Sqrt(float64(n)/25) * float64(time.Second))
		if !near(s.at, want) {
			t.Fatalf("start %d at %v, want %v", n, s.at, want)
		}
	}
	if got[99].at-got[98].at >= got[2].at-got[1].at {
		t.Fatal("the gaps do not narrow as the rate rises")
	}
	if a := p.arrivals(time.Second); math.Abs(a-25) > 1e-9 {
		t.Fatalf("%v starts intended in the first second, want 25", a)
	}
}

// TestPacerSequence: a warm-up at the first phase's rate, then a constant,
// a falling ramp and a spike, end to end.
func TestPacerSequence(t *testing.T) {
	prof := &Profile{Phases: []Segment{
		{Length: time.Second, From: 10, To: 10},
		{Length: 2 * time.Second, From: 10, To: 0},
		{Length: time.Second, From: 50, To: 50},
	}}
	p := newPacer(prof, time.Second, []int{0, 0, 0}, 1)
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{time.Second, 10}, {2 * time.Second, 20}, {3 * time.Second, 27.5}, {4 * time.Second, 30}, {5 * time.Second, 80}, {time.Hour, 80}} {
		if got := p.arrivals(c.at); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%v starts intended by %v, want %v", got, c.at, c.want)
		}
	}
	got := starts(t, p, 1000)
	if len(got) != 80 {
		t.Fatalf("%d starts, want 80", len(got))
	}
	if last := got[len(got)-1].at; last < 4*time.Second || last >= 5*time.Second {
		t.Fatalf("the last start at %v, want in the spike", last)
	}
}

func TestProfileVaries(t *testing.T) {
	level := &Profile{Phases: []Segment{{Length: time.Second, From: 10, To: 10}, {Length: time.Second, From: 10, To: 10}}}
	for p, want := range map[*Profile]bool{
		level: false,
		{Phases: []Segment{{Length: time.Second, From: 10, To: 20}}}:                                          true,
		{Phases: []Segment{{Length: time.Second, From: 10, To: 10}, {Length: time.Second, From: 20, To: 20}}}: true,
	} {
		if got := p.Varies(); got != want {
			t.Errorf("%+v varies %v, want %v", p.Phases, got, want)
		}
	}
}

// TestPacerPoisson: the gaps of Poisson arrivals at 1000/s average 1 ms
// and vary as much as they average (an exponential's sd is its mean); the
// same seed draws the same starts.
func TestPacerPoisson(t *testing.T) {
	prof := &Profile{Poisson: true, Phases: []Segment{{Length: 20 * time.Second, From: 1000, To: 1000}}}
	a, b := newPacer(prof, 0, []int{0}, 7), newPacer(prof, 0, []int{0}, 7)
	sa, sb := starts(t, a, 100_000), starts(t, b, 100_000)
	if len(sa) != len(sb) || sa[500] != sb[500] {
		t.Fatal("one seed drew two plans")
	}
	n := len(sa)
	if n < 19_000 || n > 21_000 {
		t.Fatalf("%d starts in 20 s at 1000/s", n)
	}
	var sum, sq float64
	for i := 1; i < n; i++ {
		g := (sa[i].at - sa[i-1].at).Seconds()
		sum += g
		sq += g * g
	}
	mean := sum / float64(n-1)
	sd := math.Sqrt(sq/float64(n-1) - mean*mean)
	if math.Abs(mean-0.001) > 0.00005 || math.Abs(sd/mean-1) > 0.05 {
		t.Fatalf("gaps: mean %v s, sd/mean %.3f; want 1 ms and 1", mean, sd/mean)
	}
}

// TestPacerHoldDrops: a hold counts the starts intended before it that no
// client took, makes the clients wait, and the next plan starts at once.
func TestPacerHoldDrops(t *testing.T) {
	p := closedPacer(false, 1)
	if _, state, _ := p.next(); state != slotClosed {
		t.Fatalf("state %d before any plan, want a closed loop", state)
	}
	p.hold(0)
	_, state, resume := p.next()
	if state != slotWait || resume == nil {
		t.Fatalf("state %d after a hold, want a wait", state)
	}
	p.plan(0, 1000)
	select {
	case <-resume:
	default:
		t.Fatal("a plan did not end the wait")
	}
	starts(t, p, 10)
	if n := p.unstarted(time.Second); n != 990 {
		t.Fatalf("%d starts left waiting after a second, want 990", n)
	}
	if dropped := p.hold(time.Second); dropped != 990 {
		t.Fatalf("the hold dropped %d, want 990", dropped)
	}
	p.plan(1500*time.Millisecond, 100)
	s := starts(t, p, 2)
	if !near(s[0].at, 1500*time.Millisecond) || !near(s[1].at, 1510*time.Millisecond) {
		t.Fatalf("the next plan's starts at %v, %v; want 1.5 s and 1.51 s", s[0].at, s[1].at)
	}
	if a := p.arrivals(1510 * time.Millisecond); math.Abs(a-1001) > 1e-6 {
		t.Fatalf("%v starts intended by 1.51 s, want the first second's 1000 and 1", a)
	}
}

// TestProfileMixPerPhase: a phase's mix deals only the kinds it weighs,
// from the first start it intends (the unit log has each unit's intended
// start in an open loop); the phase before it deals the workload's.
func TestProfileMixPerPhase(t *testing.T) {
	two := workload.Shape{Units: []workload.Weighted{{Name: "a", Weight: 1}, {Name: "b", Weight: 0}}, Ops: []string{"op"}}
	var mu sync.Mutex
	var t0 time.Time
	kinds := map[bool]map[int]int{false: {}, true: {}} // by "in the second phase"
	prof := &Profile{Phases: []Segment{
		{Text: "constant 200/s 300ms", Length: 300 * time.Millisecond, From: 200, To: 200},
		{Text: "constant 200/s 300ms mix b=1", Length: 300 * time.Millisecond, From: 200, To: 200, Mix: map[string]int{"b": 1}},
	}}
	obs := &phaseStart{at: &t0, mu: &mu}
	out, err := Run(context.Background(), Config{Clients: 2, Profile: prof, Duration: prof.Length(),
		Log: func(_, kind int, start time.Time, _ time.Duration, _ error) {
			mu.Lock()
			defer mu.Unlock()
			kinds[start.Sub(t0) >= 300*time.Millisecond][kind]++
		}}, two, opener(func(int, workload.Ops) error { return nil }), nil, obs)
	if err != nil {
		t.Fatal(err)
	}
	if measure(t, out).OK() == 0 {
		t.Fatal("no unit ran")
	}
	if kinds[false][1] != 0 || kinds[false][0] == 0 || kinds[true][0] != 0 || kinds[true][1] == 0 {
		t.Fatalf("kinds by phase %v: want only a in the first, only b in the second", kinds)
	}
}

// phaseStart keeps the measure phase's start (the profile's origin).
type phaseStart struct {
	at *time.Time
	mu *sync.Mutex
}

func (p *phaseStart) PhaseBegins(ph *metrics.Phase) {
	p.mu.Lock()
	*p.at = ph.Start
	p.mu.Unlock()
}
func (p *phaseStart) Interval(*metrics.Phase, *metrics.Interval) {}

func TestProfileMixNamesAUnit(t *testing.T) {
	prof := &Profile{Phases: []Segment{{Text: "constant 1/s 1s mix x=1", Length: time.Second, From: 1, To: 1, Mix: map[string]int{"x": 1}}}}
	if _, err := Run(context.Background(), Config{Clients: 1, Profile: prof, Duration: time.Second}, shape,
		opener(func(int, workload.Ops) error { return nil }), nil, nil); err == nil {
		t.Fatal("a mix of a unit the workload lacks ran")
	}
}

// TestProfileOffersItsPlan: the intervals' offered starts add up to the
// plan's, the warm-up's at the first phase's rate.
func TestProfileOffersItsPlan(t *testing.T) {
	prof := &Profile{Phases: []Segment{{Length: 400 * time.Millisecond, From: 100, To: 300}}}
	out, err := Run(context.Background(), Config{Clients: 2, Profile: prof, Warmup: 200 * time.Millisecond, Duration: prof.Length()}, shape,
		opener(func(int, workload.Ops) error { return nil }), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w, m := out.Phases[0], measure(t, out); math.Abs(w.Offered-20) > 0.5 || math.Abs(m.Offered-80) > 0.5 || m.Missed != 0 {
		t.Fatalf("offered %.1f in the warm-up, %.1f in the measure phase (missed %d); want 20 and 80, none missed", w.Offered, m.Offered, m.Missed)
	}
}

// TestMissedCountsTheBacklog: one client that needs 10 ms a unit, asked
// for 200/s: every start intended in the measure phase either began or is
// counted missed.
func TestMissedCountsTheBacklog(t *testing.T) {
	out, _ := Run(context.Background(), Config{Clients: 1, Rate: 200, Duration: time.Second}, shape,
		opener(func(int, workload.Ops) error { time.Sleep(10 * time.Millisecond); return nil }), nil, nil)
	m := measure(t, out)
	rec := m.Record(false)
	if rec.Missed == 0 || float64(rec.OK+rec.Missed) < 200 || float64(rec.OK+rec.Missed) > m.Offered+1 {
		t.Fatalf("ok %d, missed %d, offered %.1f: want ok + missed from 200 to the offered", rec.OK, rec.Missed, m.Offered)
	}
}

// stepper is a Stepper, and its run's Observer, that plays a list of
// steps and keeps what it saw.
type stepper struct {
	steps   []float64 // rates
	length  time.Duration
	dropped []int64
	ivs     []int // intervals seen before each call
	seen    int
	warmOK  int64
}

func (s *stepper) PhaseBegins(*metrics.Phase) {}
func (s *stepper) Interval(p *metrics.Phase, iv *metrics.Interval) {
	s.seen++
	if p.Name == Warmup {
		s.warmOK += iv.OK()
	}
}

func (s *stepper) Next(dropped int64) (float64, time.Duration, bool) {
	s.dropped, s.ivs = append(s.dropped, dropped), append(s.ivs, s.seen)
	s.seen = 0
	if len(s.steps) == 0 {
		return 0, 0, false
	}
	r := s.steps[0]
	s.steps = s.steps[1:]
	return r, s.length, true
}

// TestStepperDropsTheBacklog: after a closed-loop warm-up, a step the
// engine cannot keep up with leaves starts waiting, which are dropped, not
// run in the next step; the step after it, within reach, leaves none.
func TestStepperDropsTheBacklog(t *testing.T) {
	var running atomic.Int64
	st := &stepper{steps: []float64{1000, 10}, length: 300 * time.Millisecond}
	out, err := Run(context.Background(), Config{Clients: 1, Stepper: st, Warmup: 200 * time.Millisecond}, shape,
		opener(func(int, workload.Ops) error { running.Add(1); time.Sleep(5 * time.Millisecond); return nil }), nil, st)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != Completed || len(st.dropped) != 3 {
		t.Fatalf("reason %q after %d calls, want completed after 3", out.Reason, len(st.dropped))
	}
	if st.warmOK == 0 || st.ivs[0] == 0 || st.ivs[1] == 0 {
		t.Fatalf("the stepper saw %d warm-up units and %v intervals", st.warmOK, st.ivs)
	}
	if st.dropped[0] != 0 || st.dropped[1] == 0 || st.dropped[2] != 0 {
		t.Fatalf("dropped %v: want none before the first step, some after the overloaded one, none after the easy one", st.dropped)
	}
	if m := measure(t, out); m.Missed != st.dropped[1] {
		t.Fatalf("the measure phase missed %d, the steps dropped %v", m.Missed, st.dropped)
	}
}
