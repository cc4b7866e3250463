// Package merge makes one result of the results of a run's shards (--shard
// i/N, `dbgauge merge`): histograms merged with HdrHistogram's Merge, never
// percentiles averaged; counts summed; the per-second series aligned by
// wall clock and summed; failures and checks combined; every shard's
// environment kept; the requirements judged again on the whole.
//
// It refuses shards of different runs or configurations, and names the
// shards that are missing or did not complete; it merges the rest only
// when asked (Partial), and marks the result partial.
package merge

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/verdict"
)

// Shard is one result folder given to Merge: its result, or why it could
// not be read.
type Shard struct {
	Dir string
	Res *result.Result // nil: Err says why
	Err error
}

// Options says how to merge.
type Options struct {
	// Partial merges the shards that completed when others are missing
	// or incomplete, and marks the result partial.
	Partial bool
	ID      string   // the merged result's id (its folder's name)
	Command []string // the merge's command line, for the record
}

// perMachine are the knobs that may differ between the shards of one run:
// where each writes, which shard it is, how it is placed.
var perMachine = []string{"shard", "results", "stop-file", "cpus", "log-units", "data-dir", "start-at"}

// Merge makes one result of shards. Every error it returns before a
// result is made is bad input (*knob.Error): nothing is written.
func Merge(shards []Shard, opt Options) (*result.Result, error) {
	if len(shards) == 0 {
		return nil, knob.Bad("give the shards' result folders, e.g. dbgauge merge results/run1/shard-* --out results/run1/merged", "no shard to merge")
	}
	var ok []Shard
	var missing []string
	count := 0
	seen := map[int]string{}
	for _, s := range shards {
		if s.Res == nil {
			missing = append(missing, fmt.Sprintf("%s unreadable (%v)", s.Dir, s.Err))
			continue
		}
		sh := s.Res.Shard
		if sh == nil || sh.Count < 1 {
			return nil, knob.Bad("give the results of runs with --shard i/N", "%s is not a shard's result", s.Dir)
		}
		if count == 0 {
			count = sh.Count
		} else if sh.Count != count {
			return nil, knob.Bad("give the shards of one run", "shards of different runs: %s is shard %d of %d, %s one of %d", s.Dir, sh.Index, sh.Count, ok[0].Dir, count)
		}
		if prev, dup := seen[sh.Index]; dup {
			return nil, knob.Bad("give each shard once", "shard %d is given twice: %s and %s", sh.Index, prev, s.Dir)
		}
		seen[sh.Index] = s.Dir
		if len(ok) > 0 {
			if err := sameRun(ok[0], s); err != nil {
				return nil, err
			}
		}
		ok = append(ok, s)
	}
	if len(ok) == 0 {
		return nil, knob.Bad("give the shards' result folders", "no shard could be read: %s", strings.Join(missing, "; "))
	}
	for i := range count {
		if _, there := seen[i]; !there {
			missing = append(missing, fmt.Sprintf("shard %d of %d missing", i, count))
		}
	}
	var done []Shard
	for _, s := range ok {
		if s.Res.Status != result.Completed || s.Res.Phase("measure") == nil {
			why := string(s.Res.Status)
			if s.Res.Reason != "" {
				why += ": " + s.Res.Reason
			}
			if s.Res.Status == result.Running {
				why += " (it died, or is still running)"
			}
			missing = append(missing, fmt.Sprintf("shard %d (%s) incomplete: %s", s.Res.Shard.Index, s.Dir, why))
			continue
		}
		done = append(done, s)
	}
	if len(missing) > 0 && !opt.Partial {
		return nil, knob.Bad("give every shard, or pass --partial to merge the rest into a result marked partial", "%s", strings.Join(missing, "; "))
	}
	if len(done) == 0 {
		return nil, knob.Bad("give at least one shard that completed", "no shard completed: %s", strings.Join(missing, "; "))
	}
	if err := overlap(done); err != nil {
		return nil, err
	}
	sort.Slice(done, func(i, j int) bool { return done[i].Res.Shard.Index < done[j].Res.Shard.Index })
	return build(done, count, missing, opt)
}

// fingerprint is what the shards of one run share: their configuration,
// less what each machine may choose, and less the shares of --units and
// --rate each shard ran.
func fingerprint(r *result.Result) map[string]string {
	c := r.Config
	knobs := result.Knobs{}
	for k, v := range c.Knobs {
		if !slices.Contains(perMachine, k) {
			knobs[k] = v
		}
	}
	kb, _ := json.Marshal(knobs)
	return map[string]string{
		"workload": c.Workload, "backend": c.Backend, "db": c.DB, "api": c.API,
		"clients": fmt.Sprint(c.Clients), "warmup": c.Warmup.String(), "duration": c.Duration.String(),
		"retries": fmt.Sprint(c.Retries), "seed": fmt.Sprint(c.Seed), "durability": c.Durability,
		"commit": c.Commit, "prepare": c.Prepare, "set": strings.Join(c.Set, " "), "require": strings.Join(c.Require, " "),
		"interval": c.Interval.String(), "knobs": string(kb), "start-at": startAt(r),
		"schema": r.Schema,
	}
}

func startAt(r *result.Result) string {
	if r.Shard == nil || r.Shard.StartAt == nil {
		return "none"
	}
	return r.Shard.StartAt.Format(time.RFC3339Nano)
}

// sameRun refuses b when its configuration is not a's.
func sameRun(a, b Shard) error {
	fa, fb := fingerprint(a.Res), fingerprint(b.Res)
	keys := make([]string, 0, len(fa))
	for k := range fa {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if fa[k] != fb[k] {
			return knob.Bad("merge the shards of one run, run with the same command line but --shard",
				"shards of different runs or configurations: %s and %s differ in %s (%s vs %s)", a.Dir, b.Dir, k, fa[k], fb[k])
		}
	}
	return nil
}

// slack is how far apart the shards' measure phases may be on their own
// clocks and still be one run: their clocks may disagree by that much.
const slack = time.Minute

// overlap refuses shards whose measure phases do not overlap: they are not
// one run, whatever their configurations.
func overlap(ss []Shard) error {
	a := ss[0]
	ma := a.Res.Phase("measure")
	for _, b := range ss[1:] {
		mb := b.Res.Phase("measure")
		if mb.Start.After(ma.End.Add(slack)) || ma.Start.After(mb.End.Add(slack)) {
			return knob.Bad("merge the shards of one run (start them together with --start-at)",
				"shards of different runs: %s measured %s to %s, %s %s to %s",
				a.Dir, ma.Start.Format(time.RFC3339), ma.End.Format(time.RFC3339), b.Dir, mb.Start.Format(time.RFC3339), mb.End.Format(time.RFC3339))
		}
	}
	return nil
}

// offset is how much to add to a shard's clock to read the server's; 0
// when it did not measure it.
func offset(r *result.Result) time.Duration {
	if c := r.Shard.Clock; c != nil && c.Measured {
		return time.Duration(c.OffsetUs) * time.Microsecond
	}
	return 0
}

func build(ss []Shard, count int, missing []string, opt Options) (*result.Result, error) {
	first := ss[0].Res
	out := &result.Result{
		Schema: result.Schema, ID: opt.ID, Status: result.Completed, Command: opt.Command,
		Started: first.Started, Updated: time.Now().UTC(),
		Config: first.Config, Engine: first.Engine, Environment: first.Environment, Dataset: first.Dataset,
		Phases: []result.Phase{}, Series: []result.Second{}, Checks: []result.Check{}, Verdicts: []result.Verdict{},
	}
	m := &result.Merged{Count: count, Partial: len(missing) > 0, Missing: missing, ClockCorrected: true}
	out.Merged = m
	if m.Partial {
		out.Reason = fmt.Sprintf("partial: %d of %d shards merged; %s", len(ss), count, strings.Join(missing, "; "))
	}
	knobs := result.Knobs{}
	for k, v := range first.Config.Knobs {
		if k != "shard" {
			knobs[k] = v
		}
	}
	out.Config.Knobs = knobs
	out.Config.Clients, out.Config.Units, out.Config.Rate = 0, 0, 0
	var hosts []string
	var ended time.Time
	for _, s := range ss {
		r := s.Res
		out.Config.Clients += r.Config.Clients
		out.Config.Units += r.Config.Units
		out.Config.Rate += r.Config.Rate
		if r.Started.Before(out.Started) {
			out.Started = r.Started
		}
		if r.Ended != nil && r.Ended.After(ended) {
			ended = *r.Ended
		}
		if !slices.Contains(hosts, r.Environment.Hostname) {
			hosts = append(hosts, r.Environment.Hostname)
		}
		if r.Shard.Index == 0 {
			out.Dataset = r.Dataset
		}
		if r.Shard.Clock == nil || !r.Shard.Clock.Measured {
			m.ClockCorrected = false
		}
		ms := result.MergedShard{
			Dir: s.Dir, ID: r.ID, Index: r.Shard.Index, FirstClient: r.Shard.FirstClient, Clients: r.Config.Clients,
			Status: r.Status, Reason: r.Reason, Command: r.Command, Started: r.Started, Ended: r.Ended,
			Environment: r.Environment, Shard: *r.Shard, Summary: r.Summary, Harness: r.Harness, Checks: r.Checks,
			MeasureStart: r.Phase("measure").Start,
		}
		m.Shards = append(m.Shards, ms)
		for _, c := range r.Checks {
			c.Name = fmt.Sprintf("shard %d: %s", r.Shard.Index, c.Name)
			out.Checks = append(out.Checks, c)
		}
	}
	if !ended.IsZero() {
		out.Ended = &ended
	}
	out.Environment.Hostname = strings.Join(hosts, ", ")
	out.Environment.Problems = append(slices.Clone(out.Environment.Problems),
		fmt.Sprintf("merged from %d shard(s): this is shard %d's environment; every shard's is in merged.shards", len(ss), first.Shard.Index))
	m.StartSpreadSeconds = spread(ss, m.ClockCorrected)

	for _, name := range []string{"warmup", "measure"} {
		var ps []*result.Phase
		for _, s := range ss {
			if p := s.Res.Phase(name); p != nil {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		p, err := phase(ps)
		if err != nil {
			return nil, err
		}
		out.Phases = append(out.Phases, p)
	}
	out.Series = series(ss, m.ClockCorrected)
	summarize(out, ss)
	if p := out.Phase("measure"); p != nil && p.Seconds > 0 && m.StartSpreadSeconds > lateShare*p.Seconds {
		m.Apart = fmt.Sprintf(
			"the shards' measure phases began %.3f s apart, %.1f %% of the %.0f s measured: at its edges the whole ran with fewer clients than it says; give --start-at more lead, so that every shard is ready before it (a shard's late_seconds says which was not)",
			m.StartSpreadSeconds, 100*m.StartSpreadSeconds/p.Seconds, p.Seconds)
	}
	return out, nil
}

// lateShare is the share of the measure phase by which the shards' starts
// may spread before the merged result says the whole is not one run's.
const lateShare = 0.01

// spread is how far apart the shards' measure phases began.
func spread(ss []Shard, corrected bool) float64 {
	var lo, hi time.Time
	for i, s := range ss {
		t := s.Res.Phase("measure").Start
		if corrected {
			t = t.Add(offset(s.Res))
		}
		if i == 0 || t.Before(lo) {
			lo = t
		}
		if i == 0 || t.After(hi) {
			hi = t
		}
	}
	return hi.Sub(lo).Seconds()
}

// phase merges one phase of every shard: counts summed, histograms merged.
// Its rate is the sum of the shards' rates (each over its own seconds,
// which --start-at makes the same seconds), its length the longest.
func phase(ps []*result.Phase) (result.Phase, error) {
	out := result.Phase{Name: ps[0].Name, Discarded: ps[0].Discarded, Start: ps[0].Start, End: ps[0].End}
	for _, p := range ps {
		if p.Start.Before(out.Start) {
			out.Start = p.Start
		}
		if p.End.After(out.End) {
			out.End = p.End
		}
		out.Seconds = max(out.Seconds, p.Seconds)
		out.OK += p.OK
		out.Failed += p.Failed
		out.Nothing += p.Nothing
		out.Retries += p.Retries
		out.Lost += p.Lost
		out.Late += p.Late
		out.Rate += p.Rate
		out.Failures = failures(out.Failures, p.Failures)
		out.Retried = failures(out.Retried, p.Retried)
	}
	alls := make([]result.Latency, len(ps))
	for i, p := range ps {
		alls[i] = p.All
	}
	var err error
	if out.All, err = mergeLatency(alls); err != nil {
		return out, err
	}
	if out.Units, err = latencies(pick(ps, func(p *result.Phase) []result.Latency { return p.Units })); err != nil {
		return out, err
	}
	if out.Ops, err = latencies(pick(ps, func(p *result.Phase) []result.Latency { return p.Ops })); err != nil {
		return out, err
	}
	var lags []result.Latency
	for _, p := range ps {
		if p.Lag != nil {
			lags = append(lags, *p.Lag)
		}
	}
	if len(lags) > 0 {
		l, err := mergeLatency(lags)
		if err != nil {
			return out, err
		}
		out.Lag = &l
	}
	return out, nil
}

// pick gathers, by name in the order first seen, the latencies f gives of
// each phase.
func pick(ps []*result.Phase, f func(*result.Phase) []result.Latency) [][]result.Latency {
	var names []string
	by := map[string][]result.Latency{}
	for _, p := range ps {
		for _, l := range f(p) {
			if _, ok := by[l.Name]; !ok {
				names = append(names, l.Name)
			}
			by[l.Name] = append(by[l.Name], l)
		}
	}
	out := make([][]result.Latency, len(names))
	for i, n := range names {
		out[i] = by[n]
	}
	return out
}

func latencies(groups [][]result.Latency) ([]result.Latency, error) {
	out := make([]result.Latency, 0, len(groups))
	for _, g := range groups {
		l, err := mergeLatency(g)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// mergeLatency merges the histograms of one latency of every shard with
// HdrHistogram's Merge and summarises the whole; the counts of failures
// and of units with nothing to do are summed.
func mergeLatency(ls []result.Latency) (result.Latency, error) {
	var h *hdrhistogram.Histogram
	var failed, nothing, count, above, bound int64
	for _, l := range ls {
		failed += l.Failed
		nothing += l.Nothing
		count += l.Count
		above, bound = above+l.Above, max(bound, l.BoundUs)
		if l.Count == 0 {
			continue
		}
		if l.Hist == "" {
			return result.Latency{}, fmt.Errorf("%s: %d values without their histogram: cannot merge them", l.Name, l.Count)
		}
		d, err := metrics.Decode(l)
		if err != nil {
			return result.Latency{}, fmt.Errorf("%s: decode its histogram: %w", l.Name, err)
		}
		if h == nil {
			h = metrics.NewHistogram()
		}
		if dropped := h.Merge(d); dropped != 0 {
			return result.Latency{}, fmt.Errorf("%s: %d values out of the histogram's range", l.Name, dropped)
		}
	}
	out := metrics.Summarize(ls[0].Name, h, true)
	if out.Count != count {
		return out, fmt.Errorf("%s: the merged histogram holds %d values, the shards counted %d", ls[0].Name, out.Count, count)
	}
	out.Failed, out.Nothing, out.Above, out.BoundUs = failed, nothing, above, bound
	return out, nil
}

// failures adds src's causes into dst, by class, kind and code.
func failures(dst, src []result.Failure) []result.Failure {
	for _, f := range src {
		i := slices.IndexFunc(dst, func(d result.Failure) bool { return d.Class == f.Class && d.Kind == f.Kind && d.Code == f.Code })
		if i < 0 {
			f.Samples = slices.Clone(f.Samples)
			dst = append(dst, f)
			continue
		}
		dst[i].Count += f.Count
		for _, s := range f.Samples {
			if len(dst[i].Samples) < 5 && !slices.Contains(dst[i].Samples, s) {
				dst[i].Samples = append(dst[i].Samples, s)
			}
		}
	}
	sort.SliceStable(dst, func(i, j int) bool { return dst[i].Count > dst[j].Count })
	return dst
}

// series aligns the shards' seconds by wall clock (the server's, where
// every shard measured its offset) and sums their counts. The seconds'
// percentiles cannot be merged without their histograms, which a series
// does not keep: the merged seconds have their maximum (the largest of
// the shards'), and no p50 or p99.
func series(ss []Shard, corrected bool) []result.Second {
	// t0: the earliest first phase's start; each shard's second ends at
	// its own first phase's start + T.
	starts := make([]time.Time, len(ss))
	var t0 time.Time
	for i, s := range ss {
		starts[i] = s.Res.Phases[0].Start
		if corrected {
			starts[i] = starts[i].Add(offset(s.Res))
		}
		if i == 0 || starts[i].Before(t0) {
			t0 = starts[i]
		}
	}
	tick := time.Duration(ss[0].Res.Config.Interval)
	if tick <= 0 {
		tick = time.Second
	}
	by := map[int64]*result.Second{}
	for i, s := range ss {
		for _, sec := range s.Res.Series {
			end := starts[i].Add(time.Duration(sec.T * float64(time.Second)))
			k := int64(math.Round(float64(end.Sub(t0)) / float64(tick)))
			if sec.Partial && k > 0 {
				// a sliver: it belongs to the interval it ends in
				k = int64(math.Ceil(float64(end.Sub(t0)) / float64(tick)))
			}
			m, ok := by[k]
			if !ok {
				m = &result.Second{T: float64(k) * tick.Seconds(), Dt: sec.Dt, Partial: sec.Partial, Phase: sec.Phase}
				by[k] = m
			}
			m.Dt = max(m.Dt, sec.Dt)
			m.Partial = m.Partial && sec.Partial
			if sec.Phase == "measure" {
				m.Phase = sec.Phase
			}
			m.OK += sec.OK
			m.Failed += sec.Failed
			m.Nothing += sec.Nothing
			m.Retries += sec.Retries
			for j, u := range sec.Units {
				for len(m.Units) <= j {
					m.Units = append(m.Units, 0)
				}
				m.Units[j] += u
			}
			m.FailedBy = result.AddCounts(m.FailedBy, sec.FailedBy)
			m.RetriedBy = result.AddCounts(m.RetriedBy, sec.RetriedBy)
			m.MaxUs = max(m.MaxUs, sec.MaxUs)
		}
	}
	keys := make([]int64, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]result.Second, 0, len(keys))
	for _, k := range keys {
		out = append(out, *by[k])
	}
	return out
}

// summarize makes the headline from the merged measure phase and judges
// the requirements on it again.
func summarize(out *result.Result, ss []Shard) {
	sum := result.Summary{Metric: out.Config.UnitRate, ChecksOK: true}
	if m := out.Phase("measure"); m != nil {
		sum.Rate, sum.OK, sum.Failed, sum.Retries, sum.Seconds, sum.Nothing = m.Rate, m.OK, m.Failed, m.Retries, m.Seconds, m.Nothing
		if n := m.OK + m.Failed; n > 0 {
			sum.ErrorsPct = 100 * float64(m.Failed) / float64(n)
		}
		sum.P50Us, sum.P95Us, sum.P99Us, sum.MaxUs = m.All.P50Us, m.All.P95Us, m.All.P99Us, m.All.MaxUs
	}
	for _, s := range ss {
		if s.Res.Summary.PerMinute > 0 {
			sum.PerMinute = 60 * sum.Rate
		}
	}
	for _, c := range out.Checks {
		sum.ChecksOK = sum.ChecksOK && c.OK
	}
	sum.Figures = figures(out.Phase("measure"), ss)
	out.Summary = sum
	out.Steady = verdict.Steady(out) // from the whole's seconds: its rate (the merged seconds have no p99)
	if len(out.Config.Require) == 0 {
		return
	}
	pass := true
	for _, text := range out.Config.Require {
		r, err := verdict.Parse(text, out.Config.UnitRate)
		if err != nil {
			pass = false
			out.Verdicts = append(out.Verdicts, result.Verdict{Require: text})
			continue
		}
		v := verdict.Judge(r, out)
		out.Verdicts = append(out.Verdicts, v)
		pass = pass && v.OK
	}
	out.Summary.Pass = &pass
}

// figures makes the workload's own figures again for the whole, from what
// each says it is made of (result.Figure): per minute of unit kinds, each
// shard's summed (as the rate is); a share of a ceiling, from that sum; a
// part of a whole, from the shards' parts and wholes summed; a 90th
// percentile, from the merged histogram of its unit kind; a limit judged
// again on the merged value. A figure with no value (NA) is kept as it is;
// one that says none of these is left out.
func figures(m *result.Phase, ss []Shard) []result.Figure {
	if m == nil || len(ss) == 0 {
		return nil
	}
	var out []result.Figure
	for _, f := range ss[0].Res.Summary.Figures {
		switch {
		case f.NA != "": // no value in any shard, nor in the whole (the shards' configurations are one)
		case f.P90Of != "":
			for _, u := range m.Units {
				if u.Name == f.P90Of {
					f.Value = float64(u.P90Us) / 1000
				}
			}
		case f.Whole > 0:
			f.Part, f.Whole = 0, 0
			for _, s := range ss {
				for _, g := range s.Res.Summary.Figures {
					if g.Name == f.Name {
						f.Part += g.Part
						f.Whole += g.Whole
					}
				}
			}
			f.Value = 100 * float64(f.Part) / float64(f.Whole)
		case len(f.Kinds) > 0:
			var sum float64 // the shards' per minute summed, as their rates are
			for _, s := range ss {
				sum += kindsPerMinute(s.Res, f.Kinds)
			}
			f.Value = sum
			if f.Of > 0 {
				f.Value = 100 * sum / f.Of
			}
		default:
			continue
		}
		if f.Pass != nil {
			pass := f.Value <= f.Limit
			f.Pass = &pass
		}
		out = append(out, f)
	}
	return out
}

// kindsPerMinute is a result's count of the unit kinds per minute of its
// measure phase.
func kindsPerMinute(r *result.Result, kinds []string) float64 {
	p := r.Phase("measure")
	if p == nil || p.Seconds <= 0 {
		return 0
	}
	var n int64
	for _, u := range p.Units {
		if slices.Contains(kinds, u.Name) {
			n += u.Count
		}
	}
	return float64(n) / (p.Seconds / 60)
}
