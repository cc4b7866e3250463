package session

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
)

// profileHint is how a --profile is written, for its errors.
const profileHint = `write it as phases joined by ";", e.g. --profile 'constant 1000/s 10m; spike 5000/s 30s; constant 1000/s 5m', 'ramp 100..5000/s over 5m' or 'steps 200,400,800/s each 60s'; any phase may end with "mix KIND=W,..."`

var (
	// "constant 1000/s 10m", "spike 5000/s for 30s"
	constantForm = regexp.MustCompile(`^(constant|spike)\s+(\S+?)(?:/s)?\s+(?:for\s+)?(\S+)$`)
	// "ramp 100..5000/s over 5m"
	rampForm = regexp.MustCompile(`^ramp\s+(\S+?)\.\.(\S+?)(?:/s)?\s+(?:over\s+)?(\S+)$`)
	// "steps 200,400,800/s each 60s"
	stepsForm = regexp.MustCompile(`^steps\s+(\S+?)(?:/s)?\s+(?:each\s+)?(\S+)$`)
)

// ParseProfile reads --profile: phases joined by ";", each a constant
// rate, a ramp, steps or a spike for a time, any of them with a mix of its
// own ("mix read=90,update=10").
func ParseProfile(s string, poisson bool) (*run.Profile, error) {
	p := &run.Profile{Poisson: poisson}
	for part := range strings.SplitSeq(s, ";") {
		text := strings.Join(strings.Fields(part), " ")
		if text == "" {
			continue
		}
		body, mixText, hasMix := strings.Cut(text, " mix ")
		var mix map[string]int
		if hasMix {
			var err error
			if mix, err = parseMix(mixText); err != nil {
				return nil, knob.Bad(profileHint, "--profile phase %q: %v", text, err)
			}
		}
		segs, err := parsePhase(body)
		if err != nil {
			return nil, knob.Bad(profileHint, "--profile phase %q: %v", text, err)
		}
		for i := range segs {
			segs[i].Text, segs[i].Mix = text, mix
			if len(segs) > 1 {
				segs[i].Text = fmt.Sprintf("%s (%d of %d)", text, i+1, len(segs))
			}
		}
		p.Phases = append(p.Phases, segs...)
	}
	if len(p.Phases) == 0 {
		return nil, knob.Bad(profileHint, "--profile %q has no phase", s)
	}
	return p, nil
}

// parsePhase reads one phase (without its mix) as one segment or more.
func parsePhase(s string) ([]run.Segment, error) {
	var rates []string
	var length string
	ramp := false
	if m := constantForm.FindStringSubmatch(s); m != nil {
		rates, length = m[2:3], m[3]
	} else if m := rampForm.FindStringSubmatch(s); m != nil {
		rates, length, ramp = m[1:3], m[3], true
	} else if m := stepsForm.FindStringSubmatch(s); m != nil {
		rates, length = strings.Split(m[1], ","), m[2]
	} else {
		return nil, fmt.Errorf("it is none of constant R/s D, ramp A..B/s over D, steps A,B,…/s each D, spike R/s D")
	}
	d, err := phaseLength(length)
	if err != nil {
		return nil, err
	}
	rs := make([]float64, len(rates))
	for i, r := range rates {
		if rs[i], err = parseRate(r); err != nil {
			return nil, err
		}
	}
	if ramp {
		return []run.Segment{{Length: d, From: rs[0], To: rs[1]}}, nil
	}
	out := make([]run.Segment, len(rs))
	for i, r := range rs {
		out[i] = run.Segment{Length: d, From: r, To: r}
	}
	return out, nil
}

// parseRate reads a rate of starts per second ("5000", "2.5k").
func parseRate(s string) (float64, error) {
	s = strings.TrimSuffix(s, "/s")
	mult := 1.0
	if t, ok := strings.CutSuffix(s, "k"); ok {
		s, mult = t, 1000
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return 0, fmt.Errorf("%q is not a rate per second", s)
	}
	return r * mult, nil
}

// phaseLength reads a phase's length: a duration above 0.
func phaseLength(s string) (time.Duration, error) {
	d, err := knob.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a length of time above 0 (e.g. 30s, 5m)", s)
	}
	return d, nil
}

// parseMix reads a phase's "KIND=W,..." weights.
func parseMix(s string) (map[string]int, error) {
	out := map[string]int{}
	for part := range strings.SplitSeq(s, ",") {
		k, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if !ok || k == "" || err != nil || n < 0 {
			return nil, fmt.Errorf("mix %q: give KIND=WEIGHT pairs, e.g. mix read=90,update=10", s)
		}
		out[strings.TrimSpace(k)] = n
	}
	return out, nil
}

// paceConfig reads the open loop's plan: --profile and --arrivals, and
// --slo's capacity search (capacity.go), once the workload's units are
// known.
func (p *Plan) paceConfig(v *knob.Values) error {
	arrivals, err := v.Choice("arrivals")
	if err != nil {
		return err
	}
	poisson := arrivals == "poisson"
	c := &p.run
	prof := v.Get("profile")
	slo := len(v.List("slo")) > 0
	switch {
	case prof != "" && slo:
		return knob.Bad("drop --profile: a capacity search plans its own steps", "--profile and --slo")
	case (prof != "" || slo) && c.Rate > 0:
		return knob.Bad("drop --rate", "--rate and --%s both plan the open loop", map[bool]string{true: "slo", false: "profile"}[slo])
	case (prof != "" || slo) && (c.Units > 0 && (v.IsSet("units") || v.IsSet("transactions"))):
		return knob.Bad("drop --units and -t: the plan sets how long the run lasts", "--units or -t with an open loop's plan")
	case (prof != "" || slo) && v.IsSet("duration"):
		return knob.Bad("drop --duration: the profile's phases (or the capacity search's steps) set how long the run lasts", "--duration with --%s", map[bool]string{true: "slo", false: "profile"}[slo])
	case poisson && prof == "" && !slo && c.Rate <= 0:
		return knob.Bad("give --rate R or --profile too, or drop --arrivals", "--arrivals poisson paces an open loop, and this run is a closed one")
	}
	if slo {
		return p.capacityConfig(v, poisson)
	}
	for _, k := range []string{"step", "first-rate", "resolution"} {
		if v.IsSet(k) {
			return knob.Bad("give the search its goal with --slo, e.g. --slo 'p99<20ms', or drop --"+k, "--%s is a capacity search's, and this run has no --slo", k)
		}
	}
	if poisson {
		c.Profile = &run.Profile{Poisson: true}
	}
	if prof == "" {
		return nil
	}
	if c.WarmupAuto {
		return knob.Bad("give the warm-up a length, e.g. --warmup 30s", "--warmup auto with --profile: the profile's phases are placed in time, and auto's end is not known in advance")
	}
	if c.Profile, err = ParseProfile(prof, poisson); err != nil {
		return err
	}
	kinds := p.w.Shape().Kinds()
	for _, ph := range c.Profile.Phases {
		for k := range ph.Mix {
			if !slices.Contains(kinds, k) {
				return knob.Bad("name the workload's units: "+strings.Join(kinds, ", "), "--profile phase %q weighs %q, which is no unit of %s", ph.Text, k, p.wspec.Name)
			}
		}
	}
	if c.Profile.Varies() && slices.ContainsFunc(v.List("require"), func(r string) bool { return strings.TrimSpace(r) == "steady" }) {
		return knob.Bad("drop --require steady, or give a profile of one rate", "--require steady with --profile %q: its rate changes on purpose, so the run has no level to hold", prof)
	}
	c.Duration, c.Units, c.PerClient = c.Profile.Length(), 0, 0
	return nil
}

// profileRun sums each phase of a --profile (result.Profile): its offered
// and achieved rate and its latencies, from the seconds whose middle is in
// it.
type profileRun struct {
	measure time.Time // when the measure phase began: the profile's origin
	hists   []*hdrhistogram.Histogram
	offered []float64 // the starts each phase intended, so far
	phases  []result.ProfilePhase
}

func (r *profileRun) beforeRun(_ context.Context, s *session, cfg *run.Config) error {
	if cfg.Profile == nil || len(cfg.Profile.Phases) == 0 {
		return nil
	}
	at := time.Duration(0)
	rec := &result.Profile{Text: s.config.Profile, Arrivals: s.config.Arrivals}
	for _, ph := range cfg.Profile.Phases {
		r.phases = append(r.phases, result.ProfilePhase{Text: ph.Text, FromRate: ph.From, ToRate: ph.To, StartS: at.Seconds(), EndS: (at + ph.Length).Seconds()})
		r.hists, r.offered = append(r.hists, metrics.NewHistogram()), append(r.offered, 0)
		at += ph.Length
	}
	s.mu.Lock()
	s.res.Profile = rec
	s.mu.Unlock()
	return nil
}

func (r *profileRun) phaseBegins(_ *session, p *metrics.Phase) {
	if p.Name == run.Measure {
		r.measure = p.Start
	}
}

func (r *profileRun) second(s *session, p *metrics.Phase, iv *metrics.Interval, _ *result.Second) {
	if r.hists == nil || p.Name != run.Measure {
		return
	}
	mid := (iv.Start.Sub(r.measure) + iv.End.Sub(r.measure)) / 2
	for i := range r.phases {
		ph := &r.phases[i]
		if mid.Seconds() < ph.StartS || mid.Seconds() >= ph.EndS && i < len(r.phases)-1 {
			continue
		}
		metrics.Merge(r.hists[i], iv.All())
		ph.Seconds += iv.End.Sub(iv.Start).Seconds()
		ph.OK, ph.Failed, ph.Late = ph.OK+iv.OK(), ph.Failed+iv.Failed(), ph.Late+iv.Late()
		r.offered[i] += iv.Offered
		ph.Latency = metrics.Summarize("all", r.hists[i], false)
		if ph.Seconds > 0 {
			ph.Rate, ph.Offered = float64(ph.OK)/ph.Seconds, r.offered[i]/ph.Seconds
		}
		s.mu.Lock()
		s.res.Profile.Phases = append(s.res.Profile.Phases[:0], r.phases...)
		s.mu.Unlock()
		return
	}
}

// arrivals names how the open loop's starts arrive, "" in a closed loop.
func (p *Plan) arrivals() string {
	c := p.run
	switch {
	case c.Profile != nil && c.Profile.Poisson:
		return "poisson"
	case c.Rate > 0 || c.Profile != nil || p.capacity != nil:
		return "uniform"
	}
	return ""
}
