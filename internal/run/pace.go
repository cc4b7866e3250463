package run

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Profile is an open loop's plan (--rate, --profile): phases in which the
// intended rate of starts holds or moves linearly, one after another from
// the start of the measure phase, and how starts arrive at that rate:
// evenly spaced, or as a Poisson process (the gaps between starts drawn
// from an exponential distribution, as independent users arrive).
type Profile struct {
	Phases  []Segment
	Poisson bool
}

// Segment is one phase of a profile.
type Segment struct {
	Text string // as the user wrote it: "ramp 100..5000/s over 5m"
	// Length is how long it lasts; 0: until the run ends (the last one).
	Length time.Duration
	// From and To are the intended rate of starts per second at its start
	// and at its end; it moves linearly between them.
	From, To float64
	// Mix, when set, is each unit kind's weight in this phase, by the
	// kind's name (weights the phase does not name are 0); nil: the
	// workload's mix.
	Mix map[string]int
}

// Length returns the profile's length, 0 when its last phase has none.
func (p *Profile) Length() time.Duration {
	var d time.Duration
	for _, s := range p.Phases {
		if s.Length <= 0 {
			return 0
		}
		d += s.Length
	}
	return d
}

// Varies says whether the profile's rate changes over it: a ramp, or
// phases of different rates. Its measure phase is then not meant to hold
// level.
func (p *Profile) Varies() bool {
	for _, s := range p.Phases {
		if s.From != p.Phases[0].From || s.To != s.From {
			return true
		}
	}
	return false
}

// leg is a segment placed on the run's time line: it begins at start (from
// the run's origin) and its starts follow the before intended there.
type leg struct {
	start, length time.Duration // length 0: it does not end
	from, to      float64
	before        float64 // starts intended before it (expected)
	mix           int     // its deck: 0 is the workload's mix
}

// count returns the starts intended in the leg: the area under its rate.
func (l *leg) count() float64 {
	if l.length <= 0 {
		if l.from <= 0 {
			return 0
		}
		return math.Inf(1)
	}
	return (l.from + l.to) / 2 * l.length.Seconds()
}

// slope is the rate's change per second, 0 in a leg that does not end.
func (l *leg) slope() float64 {
	if l.length <= 0 {
		return 0
	}
	return (l.to - l.from) / l.length.Seconds()
}

// cum returns the starts intended in the leg's first tau seconds.
func (l *leg) cum(tau float64) float64 { return l.from*tau + l.slope()/2*tau*tau }

// at returns when, in seconds into the leg, the v-th start is intended:
// cum's inverse, in the form that holds for a rising, a falling and a
// level rate alike (and from a rate of 0).
func (l *leg) at(v float64) float64 {
	a, b := l.slope()/2, l.from
	d := b + math.Sqrt(max(b*b+4*a*v, 0))
	if d <= 0 {
		return 0
	}
	return 2 * v / d
}

// Slot states: what a client is to do next in an open loop.
const (
	slotStart  = iota // start a unit at the slot's time
	slotClosed        // no plan yet: a closed loop (dbgauge capacity's warm-up)
	slotWait          // between two steps: wait for the next to be planned
	slotEnd           // the profile has ended: no start is left
)

// slot is one intended start.
type slot struct {
	at   time.Duration // from the run's origin
	late time.Duration // a start later than this behind at is late: the intended gap there, LateFloor at least
	mix  int
}

// LateFloor is the least lag that counts a unit late, whatever the rate: a
// timer wakes a goroutine tens to hundreds of microseconds after its time
// on a loaded machine, and at thousands of starts a second that alone
// would be "one intended gap". Late counts the engine's holding back, not
// the scheduler's.
const LateFloor = time.Millisecond

// pacer hands out an open loop's intended starts to the clients, one at a
// time, from a plan of legs. Its places on the axis of starts are counts
// of starts intended since the origin (an expected count for Poisson
// arrivals): a start's time is where the legs' cumulated rate reaches it.
type pacer struct {
	mu     sync.Mutex
	legs   []leg
	k      int        // the leg the next start is in
	u      float64    // the next start's place
	rng    *rand.Rand // Poisson gaps; nil: evenly spaced
	closed bool       // nothing planned yet: a closed loop
	// resume is closed when a plan follows a hold (dbgauge capacity's
	// steps); nil when none is held.
	resume chan struct{}
}

// newPacer plans the segments from start on, the first preceded by warmup
// at its first rate (the warm-up runs at the rate the profile begins at).
func newPacer(p *Profile, warmup time.Duration, mixes []int, seed uint64) *pacer {
	pc := &pacer{}
	if p.Poisson {
		pc.rng = rand.New(rand.NewPCG(seed, 0x5eed_a11))
	}
	at := time.Duration(0)
	if warmup > 0 && len(p.Phases) > 0 {
		pc.add(leg{start: 0, length: warmup, from: p.Phases[0].From, to: p.Phases[0].From, mix: mixes[0]})
		at = warmup
	}
	for i, s := range p.Phases {
		pc.add(leg{start: at, length: s.Length, from: s.From, to: s.To, mix: mixes[i]})
		at += s.Length
	}
	pc.u = pc.first(0)
	return pc
}

// closedPacer returns a pacer that plans nothing until the first hold and
// plan: the clients run a closed loop meanwhile.
func closedPacer(poisson bool, seed uint64) *pacer {
	pc := &pacer{closed: true}
	if poisson {
		pc.rng = rand.New(rand.NewPCG(seed, 0x5eed_a11))
	}
	return pc
}

// gap is the distance to the next start on the axis of starts: 1, or an
// exponential draw of mean 1 (a Poisson process, by the time-rescaling
// theorem, whatever the rate does).
func (p *pacer) gap() float64 {
	if p.rng == nil {
		return 1
	}
	return p.rng.ExpFloat64()
}

// first returns where the first start of a plan beginning at place u is.
func (p *pacer) first(u float64) float64 {
	if p.rng == nil {
		return math.Ceil(u)
	}
	return u + p.gap()
}

// add appends a leg, placing it after the others on the axis of starts.
func (p *pacer) add(l leg) {
	if n := len(p.legs); n > 0 {
		last := &p.legs[n-1]
		l.before = last.before + last.count()
	}
	p.legs = append(p.legs, l)
}

// next hands out the next intended start.
func (p *pacer) next() (slot, int, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.resume != nil:
		return slot{}, slotWait, p.resume
	case p.closed:
		return slot{}, slotClosed, nil
	}
	for p.k < len(p.legs) && p.u >= p.legs[p.k].before+p.legs[p.k].count() {
		p.k++
	}
	if p.k == len(p.legs) {
		return slot{}, slotEnd, nil
	}
	l := &p.legs[p.k]
	tau := l.at(p.u - l.before)
	s := slot{at: l.start + time.Duration(tau*float64(time.Second)), late: time.Duration(math.MaxInt64), mix: l.mix}
	if r := l.from + l.slope()*tau; r > 0 {
		s.late = max(time.Duration(float64(time.Second)/r), LateFloor)
	}
	p.u += p.gap()
	return s, slotStart, nil
}

// arrivals returns the starts intended before t (from the origin) by the
// plan so far: an expected count, which Offered per interval is made of.
func (p *pacer) arrivals(t time.Duration) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.arrivalsLocked(t)
}

func (p *pacer) arrivalsLocked(t time.Duration) float64 {
	for i := len(p.legs) - 1; i >= 0; i-- {
		l := &p.legs[i]
		if t < l.start {
			continue
		}
		tau := (t - l.start).Seconds()
		if l.length > 0 {
			tau = min(tau, l.length.Seconds())
		}
		return l.before + l.cum(tau)
	}
	return 0
}

// unstarted returns the starts intended before t that no client took:
// those an overloaded engine left waiting.
func (p *pacer) unstarted(t time.Duration) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unstartedLocked(t)
}

func (p *pacer) unstartedLocked(t time.Duration) int64 {
	if p.closed || p.resume != nil {
		return 0
	}
	n := p.arrivalsLocked(t) - p.u
	if n <= 0 {
		return 0
	}
	if p.rng == nil {
		return int64(math.Ceil(n))
	}
	return int64(math.Round(n))
}

// hold ends the plan at t: the starts intended before t that no client
// took are dropped and counted, and the clients wait until plan.
func (p *pacer) hold(t time.Duration) (dropped int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	dropped = p.unstartedLocked(t)
	if n := len(p.legs); n > 0 {
		l := &p.legs[n-1]
		if l.length <= 0 || l.start+l.length > t {
			// It ends at t, at the rate it had reached there.
			l.to = l.from + l.slope()*max(t-l.start, 0).Seconds()
			l.length = max(t-l.start, time.Nanosecond) // 0 would be a leg without end
		}
	}
	p.closed = false
	if p.resume == nil {
		p.resume = make(chan struct{})
	}
	return dropped
}

// plan begins a leg of the rate at t, after a hold: its first start is
// intended at t.
func (p *pacer) plan(t time.Duration, rate float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.add(leg{start: t, from: rate, to: rate})
	p.k = len(p.legs) - 1
	p.u = p.first(p.legs[p.k].before)
	if p.resume != nil {
		close(p.resume)
		p.resume = nil
	}
}
