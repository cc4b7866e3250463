package analysis

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// MetricsFor returns the metrics compared for a headline such as "calls/s":
// the rate first, then p50 and p99.
func MetricsFor(rate string) []Metric {
	return []Metric{
		{Key: "rate", Label: rate, HigherBetter: true},
		{Key: "p50_us", Label: "p50", Unit: "µs"},
		{Key: "p99_us", Label: "p99", Unit: "µs"},
	}
}

// CapacityMetrics are the metrics of a matrix of capacity searches
// (dbgauge capacity with a list): the capacity first, then the p99 of the
// step that found it.
func CapacityMetrics(rate string) []Metric {
	return []Metric{
		{Key: "capacity", Label: "capacity " + rate, HigherBetter: true},
		{Key: "knee_p99_us", Label: "p99 at capacity", Unit: "µs"},
	}
}

// Headline is the metric a matrix's cells and effects are about: its
// first, or the rate when it has none.
func (m *Matrix) Headline() Metric {
	if len(m.Metrics) > 0 {
		return m.Metrics[0]
	}
	rate := "rate"
	if m.Index != nil && m.Index.Metric != "" {
		rate = m.Index.Metric
	}
	return MetricsFor(rate)[0]
}

// matrixMetrics returns a matrix's metrics: a capacity search's when its
// cells search (--slo), a run's otherwise.
func matrixMetrics(idx *result.Matrix) []Metric {
	for _, a := range idx.Args {
		if strings.HasPrefix(a, "--slo") {
			return CapacityMetrics(idx.Metric)
		}
	}
	return MetricsFor(idx.Metric)
}

// costPrefix marks a metric of a run's cost per unit (result.UnitCost):
// "cost:server_cpu_us".
const costPrefix = "cost:"

// CostMetrics returns the costs per unit every run of every input counted,
// in result.CostKeys' order: lower is better.
func CostMetrics(inputs []*Input) []Metric {
	var out []Metric
	for _, key := range result.CostKeys {
		var label, unit string
		all := true
		for _, in := range inputs {
			for _, g := range in.Groups {
				for _, r := range g.Runs {
					c, ok := costOf(r, key)
					all = all && ok
					label, unit = c.Label, c.Unit
				}
			}
		}
		if all && label != "" {
			out = append(out, Metric{Key: costPrefix + key, Label: label + " per unit", Unit: unit, Cost: true})
		}
	}
	return out
}

func costOf(r *result.Result, key string) (result.UnitCost, bool) {
	for _, c := range r.Cost {
		if c.Key == key {
			return c, true
		}
	}
	return result.UnitCost{}, false
}

// value returns a run's headline value of metric key.
func value(r *result.Result, key string) float64 {
	if k, ok := strings.CutPrefix(key, costPrefix); ok {
		c, _ := costOf(r, k)
		return c.Value
	}
	switch key {
	case "rate":
		return r.Summary.Rate
	case "p50_us":
		return float64(r.Summary.P50Us)
	case "p99_us":
		return float64(r.Summary.P99Us)
	case CPUMetric.Key:
		return cpuPerUnit(r)
	case "capacity":
		if r.Capacity != nil {
			return r.Capacity.Knee
		}
	case "knee_p99_us":
		if c := r.Capacity; c != nil {
			for _, st := range c.Steps {
				if st.Held && st.Rate == c.Knee {
					return float64(st.Latency.P99Us)
				}
			}
		}
	}
	return 0
}

// PerSecond returns a run's per-second samples of metric key in the measure
// phase, leaving out the slivers at phase boundaries.
func PerSecond(r *result.Result, key string) []float64 {
	var out []float64
	for _, s := range r.Series {
		if s.Phase != "measure" || s.Dt < 0.5 {
			continue
		}
		switch key {
		case "rate":
			out = append(out, float64(s.OK)/s.Dt)
		case "p50_us":
			if s.OK > 0 {
				out = append(out, float64(s.P50Us))
			}
		case "p99_us":
			if s.OK > 0 {
				out = append(out, float64(s.P99Us))
			}
		}
	}
	return out
}

// NewGroup summarises the runs of one cell.
func NewGroup(key string, values map[string]string, runs []*result.Result, dirs []string, metrics []Metric) *Group {
	g := &Group{Key: key, Values: values, Runs: runs, Dirs: dirs, Stats: map[string]stats.Summary{}}
	g.summarize(metrics)
	return g
}

// summarize adds each metric's summary over the group's runs.
func (g *Group) summarize(metrics []Metric) {
	for _, m := range metrics {
		xs := make([]float64, len(g.Runs))
		for i, r := range g.Runs {
			xs[i] = value(r, m.Key)
		}
		g.Stats[m.Key] = stats.Summarize(xs)
	}
}

// Diff compares group b with group a on metric key: Welch's t when both have
// repeats, a bootstrap over per-second samples when both are one run.
func Diff(a, b *Group, key string, seed uint64) stats.Diff {
	if a == b {
		return stats.Identity()
	}
	if len(a.Runs) >= 2 && len(b.Runs) >= 2 {
		xa, xb := make([]float64, len(a.Runs)), make([]float64, len(b.Runs))
		for i, r := range a.Runs {
			xa[i] = value(r, key)
		}
		for i, r := range b.Runs {
			xb[i] = value(r, key)
		}
		return stats.Welch(xa, xb)
	}
	if strings.HasPrefix(key, costPrefix) || key == "capacity" || key == "knee_p99_us" {
		// A cost, a capacity search's knee, is one figure a run, not a
		// per-second sample.
		return stats.Figures(a.Stats[key].Mean, b.Stats[key].Mean)
	}
	var sa, sb []float64
	for _, r := range a.Runs {
		sa = append(sa, PerSecond(r, key)...)
	}
	for _, r := range b.Runs {
		sb = append(sb, PerSecond(r, key)...)
	}
	d := stats.Bootstrap(sa, sb, seed)
	// Seconds of one run show the noise inside it, not between runs (a VM
	// drifts by more than that): with one run each, nothing inside ±5 % is
	// called a difference.
	if d.Significant && d.Lo <= 1+SingleRunMargin && d.Hi >= 1/(1+SingleRunMargin) {
		d.Significant = false
	}
	return d
}

// CannotJudge says why d, a difference of Method "none", is no judgement.
func CannotJudge(d stats.Diff) string {
	if d.Reason == "" {
		return "cannot judge: too little data"
	}
	return "cannot judge: " + d.Reason
}

// SingleRunMargin is the smallest difference called between single runs.
const SingleRunMargin = 0.05

// Verdict words a difference: "faster", "slower" ("less", "more" for a
// cost per unit), "not significant", "no interval" (single figures), or
// why it cannot be judged ("cannot judge: too few seconds: 2 and 2 (3 each
// needed)").
func Verdict(d stats.Diff, m Metric) string {
	switch {
	case d.Method == "identity":
		return "base"
	case d.Method == "none":
		return CannotJudge(d)
	case d.Method == "figures":
		return "no interval"
	case !d.Significant:
		return "not significant"
	case m.Cost && d.Ratio < 1:
		return "less"
	case m.Cost:
		return "more"
	case (d.Ratio > 1) == m.HigherBetter:
		return "faster"
	default:
		return "slower"
	}
}

// LoadMatrix reads a matrix folder and analyses the cells that completed.
func LoadMatrix(dir string) (*Matrix, error) {
	idx, err := matrix.Load(dir)
	if err != nil {
		return nil, err
	}
	out := &Matrix{Dir: dir, Index: idx, Metrics: matrixMetrics(idx)}
	byKey := map[string]*Group{}
	for _, c := range matrix.Combos(idx.Axes) {
		key := matrix.Key(idx.Axes, c)
		var runs []*result.Result
		var dirs []string
		for _, cell := range idx.Cells {
			if cell.Key != key || cell.Status != result.Completed {
				continue
			}
			r, err := result.Load(filepath.Join(dir, cell.Dir))
			if err != nil {
				return nil, fmt.Errorf("cell %s: %w", cell.ID, err)
			}
			runs, dirs = append(runs, r), append(dirs, cell.Dir)
			if f, failed := FailureOf(cell, r); failed {
				out.Failures = append(out.Failures, f)
			}
		}
		g := NewGroup(key, c, runs, dirs, out.Metrics)
		byKey[key] = g
		out.Groups = append(out.Groups, g)
	}
	out.Missing = len(matrix.Pending(idx))
	for ai, a := range idx.Axes {
		out.Effects = append(out.Effects, effect(idx, ai, a, byKey, out.Metrics[0].Key))
	}
	out.Scaling = scaling(idx, byKey)
	out.Versions = versions(idx, byKey)
	out.Data = dataCurve(idx, byKey)
	return out, nil
}

// others lists the combinations of every axis but skip, and names each.
func others(axes []result.Axis, skip int) ([]map[string]string, []string) {
	rest := slices.Delete(slices.Clone(axes), skip, skip+1)
	combos := matrix.Combos(rest)
	names := make([]string, len(combos))
	for i, c := range combos {
		names[i] = matrix.Key(rest, c)
	}
	return combos, names
}

func with(c map[string]string, k, v string) map[string]string {
	m := make(map[string]string, len(c)+1)
	for a, b := range c {
		m[a] = b
	}
	m[k] = v
	return m
}

// effect compares each value of axis a with its first, on the headline
// metric key.
func effect(idx *result.Matrix, ai int, a result.Axis, byKey map[string]*Group, key string) Effect {
	e := Effect{Knob: a.Knob, Values: a.Values}
	combos, names := others(idx.Axes, ai)
	for ci, c := range combos {
		row := EffectRow{Others: names[ci]}
		base := byKey[matrix.Key(idx.Axes, with(c, a.Knob, a.Values[0]))]
		for _, v := range a.Values {
			g := byKey[matrix.Key(idx.Axes, with(c, a.Knob, v))]
			row.Stats = append(row.Stats, g.Stats[key])
			if len(g.Runs) == 0 || len(base.Runs) == 0 {
				row.Diffs = append(row.Diffs, stats.Diff{Method: "none", P: 1, Reason: "a cell without a completed run"})
				continue
			}
			row.Diffs = append(row.Diffs, Diff(base, g, key, idx.Seed))
		}
		e.Rows = append(e.Rows, row)
	}
	return e
}

func scaling(idx *result.Matrix, byKey map[string]*Group) *Scaling {
	ai := slices.IndexFunc(idx.Axes, func(a result.Axis) bool { return a.Knob == result.ClientsKnob && a.Flag == "" })
	if ai < 0 || len(idx.Axes[ai].Values) < 2 {
		return nil
	}
	vals := slices.Clone(idx.Axes[ai].Values)
	sort.SliceStable(vals, func(i, j int) bool { return atoi(vals[i]) < atoi(vals[j]) })
	s := &Scaling{}
	for _, v := range vals {
		s.Clients = append(s.Clients, atoi(v))
	}
	combos, names := others(idx.Axes, ai)
	for ci, c := range combos {
		line := ScalingLine{Others: names[ci]}
		best := 0.0
		for _, v := range vals {
			g := byKey[matrix.Key(idx.Axes, with(c, result.ClientsKnob, v))]
			line.Rate = append(line.Rate, g.Stats["rate"])
			line.P99 = append(line.P99, g.Stats["p99_us"])
			best = max(best, g.Stats["rate"].Mean)
		}
		for i, r := range line.Rate {
			if best > 0 && r.N > 0 && r.Mean >= 0.95*best {
				line.Plateau = s.Clients[i]
				break
			}
		}
		s.Lines = append(s.Lines, line)
	}
	return s
}

func atoi(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}
