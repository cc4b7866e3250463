package session

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/verdict"
)

// capacityPlan is a capacity search (--slo, dbgauge capacity): the highest
// rate that holds every goal, in steps of an open loop.
type capacityPlan struct {
	slos       []verdict.Requirement
	step       time.Duration // each step's length
	settle     time.Duration // its first part, left out of its judgement
	from       float64       // the first step's rate; 0: half the probe's
	resolution float64       // the bisection ends when broke ≤ knee × (1 + resolution)
}

// Capacity search's fixed rules.
const (
	// CapacityRise is how much each step up raises the rate until a goal breaks.
	CapacityRise = 1.5
	// CapacityKeptUp is the share of a step's starts that may be left
	// waiting at its end: more, and the engine did not keep up.
	CapacityKeptUp = 0.01
	// CapacitySteps bounds the steps of one search.
	CapacitySteps = 30
	// CapacityExtensions bounds how many more lengths a step that held but
	// was not steady runs for, before it is judged as it is.
	CapacityExtensions = 2
	// CapacityWarmup is the warm-up (the probe) when --warmup is not given.
	CapacityWarmup = 10 * time.Second
)

// capacityConfig reads --slo, --step, --from and --resolution.
func (p *Plan) capacityConfig(v *knob.Values, poisson bool) error {
	cp := &capacityPlan{}
	rate := p.wspec.Metric()
	for _, s := range v.List("slo") {
		r, err := verdict.ParseSLO(s, rate)
		if err != nil {
			return err
		}
		cp.slos = append(cp.slos, r)
	}
	var err error
	if cp.step, err = v.Duration("step"); err != nil {
		return err
	}
	if cp.step < 4*time.Second {
		return knob.Bad("give each step 4 s at least, e.g. --step 20s", "--step %s is too short to judge: its first quarter settles, and its judgement needs seconds", cp.step)
	}
	cp.settle = (cp.step / 4).Round(time.Second)
	if cp.from, err = v.Float("first-rate"); err != nil {
		return err
	}
	res := strings.TrimSuffix(strings.TrimSpace(v.Get("resolution")), "%")
	pct, err := strconv.ParseFloat(res, 64)
	if err != nil || pct < 0.1 || pct > 100 {
		return knob.Bad("give a percentage, e.g. --resolution 5%", "--resolution %q is not a percentage from 0.1 to 100", v.Get("resolution"))
	}
	cp.resolution = pct / 100
	if len(v.List("require")) > 0 {
		return knob.Bad("drop --require: a capacity search's steps are judged by its --slo goals", "--require with --slo: there is no one measure phase to judge")
	}
	c := &p.run
	if !v.IsSet("warmup") {
		c.Warmup, c.WarmupAuto = CapacityWarmup, false
	}
	if c.Warmup <= 0 && cp.from <= 0 {
		return knob.Bad("give the probe a warm-up (e.g. --warmup 10s), or the first rate with --first-rate", "--warmup 0 with --slo: the search starts from the warm-up's closed-loop rate")
	}
	c.Duration, c.Units, c.PerClient = 0, 0, 0
	if poisson {
		c.Profile = &run.Profile{Poisson: true}
	}
	p.capacity = cp
	return nil
}

// capacitySearch is the Stepper of a capacity search: it sums each step's
// seconds as they close, judges the step when it ends and picks the next
// rate, and keeps the result's Capacity.
type capacitySearch struct {
	plan  *capacityPlan
	s     *session
	rec   *result.Capacity
	rate  float64 // the step running; 0 before the first
	start time.Time
	knee  float64 // the highest rate that held
	broke float64 // the lowest that broke; 0: none yet
	warm  []warmSecond
	// The step's sums: all its seconds' offered starts, and of those after
	// its settling part the rest.
	hist       *hdrhistogram.Histogram
	allOffered float64
	sum        result.CapacityStep
	offered    float64
	secs       []result.Second // the judged seconds, for the steady-state rule
	ext        int             // the times the step running was lengthened
	extending  bool            // decide lengthened it
}

// warmSecond is one of the warm-up's intervals: the probe's rate.
type warmSecond struct {
	start, end time.Time
	ok         int64
}

func (c *capacitySearch) beforeRun(_ context.Context, s *session, cfg *run.Config) error {
	if s.capacity == nil {
		return nil
	}
	c.plan, c.s = s.capacity, s
	c.rec = &result.Capacity{SLO: s.config.SLO, Arrivals: s.config.Arrivals, StepSeconds: c.plan.step.Seconds(),
		SettleSeconds: c.plan.settle.Seconds(), Resolution: c.plan.resolution, DroppedLimitPct: 100 * CapacityKeptUp, Steps: []result.CapacityStep{}}
	s.mu.Lock()
	s.res.Capacity = c.rec
	s.mu.Unlock()
	cfg.Stepper = c
	return nil
}

// second sums a closed interval into the probe or the step running.
func (c *capacitySearch) second(_ *session, p *metrics.Phase, iv *metrics.Interval, _ *result.Second) {
	switch {
	case c.rec == nil:
	case p.Name == run.Warmup:
		c.warm = append(c.warm, warmSecond{iv.Start, iv.End, iv.OK()})
	case c.rate > 0:
		c.allOffered += iv.Offered
		if iv.Start.Before(c.start.Add(c.plan.settle - run.Edge(run.DefaultTick))) {
			return
		}
		all := iv.All()
		metrics.Merge(c.hist, all)
		c.secs = append(c.secs, result.Second{T: iv.End.Sub(c.s.t0).Seconds(), Dt: iv.End.Sub(iv.Start).Seconds(), Phase: run.Measure,
			OK: iv.OK(), P99Us: all.ValueAtQuantile(99)})
		st := &c.sum
		st.Seconds += iv.End.Sub(iv.Start).Seconds()
		st.OK, st.Failed, st.Late = st.OK+iv.OK(), st.Failed+iv.Failed(), st.Late+iv.Late()
		c.offered += iv.Offered
	}
}

// Next judges the step that ended (or reads the probe) and plans the next.
func (c *capacitySearch) Next(dropped int64) (float64, time.Duration, bool) {
	now := time.Now()
	c.s.mu.Lock()
	rate, ok := c.decide(dropped, now)
	c.s.mu.Unlock()
	if !ok {
		return 0, 0, false
	}
	if c.extending {
		c.extending = false
		c.s.event(now, result.EventCapacity, fmt.Sprintf("step %d at %s/s runs %s more: it held, but did not hold level yet", len(c.rec.Steps)+1, fmtRate(rate), c.plan.step))
		return rate, c.plan.step, true
	}
	c.rate, c.start, c.ext = rate, now, 0
	c.hist, c.allOffered, c.offered, c.sum, c.secs = metrics.NewHistogram(), 0, 0, result.CapacityStep{}, nil
	c.s.event(now, result.EventCapacity, fmt.Sprintf("step %d: %s/s", len(c.rec.Steps)+1, fmtRate(rate)))
	return rate, c.plan.step, true
}

// decide records the step that ended (none before the first) and returns
// the next step's rate, or false when the search is over. Call with s.mu
// held.
func (c *capacitySearch) decide(dropped int64, now time.Time) (float64, bool) {
	if c.rate == 0 {
		c.rec.ProbeRate = probeRate(c.warm)
		rate := c.plan.from
		if rate <= 0 {
			rate = c.rec.ProbeRate / 2
		}
		if rate <= 0 {
			c.rec.Why = "the warm-up completed no unit: there is no rate to begin from"
			return 0, false
		}
		return rate, true
	}
	st := c.judgeStep(dropped, now)
	if st.Held && st.Trend != nil && st.Trend.Verdict == result.NotSteady && c.ext < CapacityExtensions {
		// Its rate or p99 still moved: run it longer, judged on all its
		// seconds after the settling ones.
		c.ext++
		c.extending, c.sum.Dropped = true, st.Dropped
		return c.rate, true
	}
	c.rec.Steps = append(c.rec.Steps, st)
	if st.Held {
		c.knee = max(c.knee, st.Rate)
	} else if c.broke == 0 || st.Rate < c.broke {
		c.broke = st.Rate
	}
	c.rec.Knee, c.rec.Broke = c.knee, c.broke
	var next float64
	switch {
	case c.broke == 0:
		next = st.Rate * CapacityRise
	case c.knee == 0:
		next = st.Rate / 2
		if next < 1 {
			c.rec.Why = fmt.Sprintf("no rate held, down to %s/s", fmtRate(st.Rate))
			return 0, false
		}
	case c.broke <= c.knee*(1+c.plan.resolution):
		c.rec.Found = true
		c.rec.Why = fmt.Sprintf("%s/s held and %s/s broke, within %g %%", fmtRate(c.knee), fmtRate(c.broke), c.plan.resolution*100)
		return 0, false
	default:
		next = (c.knee + c.broke) / 2
	}
	if len(c.rec.Steps) >= CapacitySteps {
		c.rec.Why = fmt.Sprintf("stopped after %d steps, between %s/s (held) and %s/s (broke)", CapacitySteps, fmtRate(c.knee), fmtRate(c.broke))
		return 0, false
	}
	return next, true
}

// probeRate is the closed loop's rate over the second half of the
// warm-up's intervals (by count: the last one alone when there is one).
func probeRate(ivs []warmSecond) float64 {
	var ok int64
	var secs float64
	for _, iv := range ivs[len(ivs)/2:] {
		ok += iv.ok
		secs += iv.end.Sub(iv.start).Seconds()
	}
	if secs <= 0 {
		return 0
	}
	return float64(ok) / secs
}

// judgeStep holds the step's sums after its settling part to the goals. Call
// with s.mu held.
func (c *capacitySearch) judgeStep(dropped int64, end time.Time) result.CapacityStep {
	st := c.sum
	st.N, st.Rate, st.Dropped, st.Extended = len(c.rec.Steps)+1, c.rate, c.sum.Dropped+dropped, c.ext
	st.Trend = verdict.SteadyOf(c.secs)
	st.StartT, st.EndT = c.start.Sub(c.s.t0).Seconds(), end.Sub(c.s.t0).Seconds()
	allOffered := c.allOffered
	st.Latency = metrics.Summarize("all", c.hist, false)
	if st.Seconds > 0 {
		st.Offered, st.Achieved = c.offered/st.Seconds, float64(st.OK)/st.Seconds
	}
	if n := st.OK + st.Failed; n > 0 {
		st.ErrorsPct = 100 * float64(st.Failed) / float64(n)
	}
	if st.OK == 0 {
		st.Broke = append(st.Broke, "no unit succeeded")
	}
	for _, r := range c.plan.slos {
		got := st.ErrorsPct
		if r.Unit == "ms" {
			got = verdict.LatencyMs(st.Latency, r.Metric)
		}
		if !verdict.Holds(got, r.Op, r.Want) {
			st.Broke = append(st.Broke, fmt.Sprintf("%s: measured %s", r.Text, goalValue(got, r.Unit)))
		}
	}
	if allOffered > 0 && float64(st.Dropped) > CapacityKeptUp*allOffered {
		st.Broke = append(st.Broke, fmt.Sprintf("did not keep up: %d of its %.0f starts (%.1f %%) were left waiting", st.Dropped, allOffered, 100*float64(st.Dropped)/allOffered))
	}
	st.Held = len(st.Broke) == 0
	return st
}

func goalValue(v float64, unit string) string {
	if unit == "ms" {
		return strconv.FormatFloat(v, 'f', 2, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " %"
}

// fmtRate writes a rate with the digits that matter.
func fmtRate(r float64) string {
	if r >= 100 {
		return strconv.FormatFloat(math.Round(r), 'f', 0, 64)
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}

// runEnded says how the search ended when the run stopped it first.
func (c *capacitySearch) runEnded(_ context.Context, s *session, out *run.Outcome, _ time.Time) {
	if c.rec == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.rec.Why == "" {
		reason := "the run failed"
		if out != nil {
			reason = "the run stopped: " + string(out.Reason)
		}
		c.rec.Why = fmt.Sprintf("%s during step %d, before the search ended", reason, len(c.rec.Steps)+1)
	}
}
