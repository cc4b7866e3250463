package analysis

import (
	"slices"
	"sort"

	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// Versions is a matrix over versions of one engine: the axis whose values
// ran the same engine at different versions, read back from each run
// (--db postgres:managed@13,postgres:managed@18, --pg-version 15,18). Each
// workload's throughput, p99 and CPU per unit against the first version,
// and the built-in defaults that differ between the versions.
type Versions struct {
	Knob     string        `json:"knob"`     // the axis: "db", "pg-version"
	Values   []string      `json:"values"`   // its values, the first the base
	Exact    []string      `json:"exact"`    // per value: the version the server reported ("13.23"); "" when no run completed
	Rows     []VersionRow  `json:"rows"`     // one per combination of the other axes
	Defaults []DefaultDiff `json:"defaults"` // the defaults that differ, by name
}

// VersionRow is one combination of the other axes, each metric across the
// versions.
type VersionRow struct {
	Others  string          `json:"others"` // "" when the version is the only axis
	Metrics []VersionMetric `json:"metrics"`
}

// VersionMetric is one metric across the versions: its summaries, each
// version's ratio to the first with its interval, and the verdict.
type VersionMetric struct {
	Metric  Metric          `json:"metric"`
	Stats   []stats.Summary `json:"stats"`
	Diffs   []stats.Diff    `json:"diffs"` // Diffs[0] is the identity
	Verdict []string        `json:"verdict"`
}

// DefaultDiff is one setting whose built-in default differs between the
// versions: its value in each ("" where the version has no such setting).
type DefaultDiff struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// CPUMetric is the CPU one unit cost: the managed server's where there is
// one, else dbgauge's (an embedded engine runs in it).
var CPUMetric = Metric{Key: "cpu_us", Label: "CPU per unit", Unit: "µs"}

// cpuPerUnit is a run's CPU per successful unit, in µs: CPUMetric.
func cpuPerUnit(r *result.Result) float64 {
	switch {
	case r.ServerCPU != nil:
		return r.ServerCPU.CPUPerUnitUs
	case r.Harness != nil:
		return r.Harness.CPUPerUnitUs
	}
	return 0
}

// versionAxis is the index of the axis whose values ran one engine at
// different versions, each value one version, or -1.
func versionAxis(idx *result.Matrix, byKey map[string]*Group) int {
	for ai, a := range idx.Axes {
		if len(a.Values) < 2 {
			continue
		}
		engines, at, distinct := map[string]bool{}, map[string]string{}, map[string]bool{}
		one := true
		for _, g := range byKey {
			v := g.Values[a.Knob]
			for _, r := range g.Runs {
				engines[r.Engine.Name] = true
				distinct[r.Engine.Version] = true
				if old, ok := at[v]; ok && old != r.Engine.Version {
					one = false // another axis decides the version too
				}
				at[v] = r.Engine.Version
			}
		}
		if one && len(engines) == 1 && len(distinct) > 1 {
			return ai
		}
	}
	return -1
}

// versions analyses the matrix's version axis; nil without one.
func versions(idx *result.Matrix, byKey map[string]*Group) *Versions {
	ai := versionAxis(idx, byKey)
	if ai < 0 {
		return nil
	}
	a := idx.Axes[ai]
	v := &Versions{Knob: a.Knob, Values: a.Values, Exact: make([]string, len(a.Values))}
	defs := make([]map[string]string, len(a.Values))
	for _, g := range byKey {
		i := slices.Index(a.Values, g.Values[a.Knob])
		if len(g.Runs) > 0 && i >= 0 {
			v.Exact[i] = g.Runs[0].Engine.Version
			if defs[i] == nil {
				defs[i] = g.Runs[0].Engine.Defaults
			}
		}
	}
	v.Defaults = differing(defs)
	combos, names := others(idx.Axes, ai)
	metrics := append(MetricsFor(idx.Metric)[:1:1], Metric{Key: "p99_us", Label: "p99", Unit: "µs"}, CPUMetric)
	for ci, c := range combos {
		row := VersionRow{Others: names[ci]}
		base := byKey[matrix.Key(idx.Axes, with(c, a.Knob, a.Values[0]))]
		for _, m := range metrics {
			row.Metrics = append(row.Metrics, versionMetric(idx, a, c, base, byKey, m))
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// versionMetric is metric m at each version, at combination c of the
// other axes, against base (the first version's group).
func versionMetric(idx *result.Matrix, a result.Axis, c map[string]string, base *Group, byKey map[string]*Group, m Metric) VersionMetric {
	vm := VersionMetric{Metric: m}
	for _, val := range a.Values {
		g := byKey[matrix.Key(idx.Axes, with(c, a.Knob, val))]
		xs := make([]float64, len(g.Runs))
		for i, r := range g.Runs {
			xs[i] = value(r, m.Key)
		}
		vm.Stats = append(vm.Stats, stats.Summarize(xs))
		var d stats.Diff
		switch {
		case len(g.Runs) == 0 || len(base.Runs) == 0:
			d = stats.Diff{Method: "none", P: 1, Reason: "a cell without a completed run"}
		case g == base:
			d = stats.Identity()
		case m.Key == CPUMetric.Key && (len(g.Runs) < 2 || len(base.Runs) < 2):
			// CPU is one figure a run, with no seconds to resample.
			d = stats.Diff{Method: "none", P: 1, Reason: "CPU is measured once a run: --repeat 2 or more gives it an interval"}
		default:
			d = Diff(base, g, m.Key, idx.Seed)
		}
		vm.Diffs = append(vm.Diffs, d)
		vm.Verdict = append(vm.Verdict, Verdict(d, m))
	}
	return vm
}

// differing lists the settings whose defaults are not the same in every
// version that has defaults recorded, in name order.
func differing(defs []map[string]string) []DefaultDiff {
	names := map[string]bool{}
	for _, d := range defs {
		for k := range d {
			names[k] = true
		}
	}
	var out []DefaultDiff
	for k := range names {
		dd := DefaultDiff{Name: k}
		same, first := true, true
		var v0 string
		for _, d := range defs {
			if d == nil {
				dd.Values = append(dd.Values, "")
				continue
			}
			v, ok := d[k]
			if !ok {
				v = ""
			}
			if first {
				v0, first = v, false
			} else if v != v0 {
				same = false
			}
			dd.Values = append(dd.Values, v)
		}
		if !same {
			out = append(out, dd)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
