package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Minute is one minute of a phase, from the series: what OLTP-EMUL's
// report_perf_per_minute and report_perf_dynamic show.
type Minute struct {
	Phase string
	N     int     // the minute of its phase, from 1
	Secs  float64 // seconds measured in it: 60 but for a phase's last, partial minute
	OK    int64
	// Failed and Nothing are the minute's failed units and those that
	// found nothing to do (the original's units ended by an exception).
	Failed, Nothing int64
	// Rate is the minute's own successful units per minute of it.
	Rate float64
	// Running is the successful units since the phase began per minute
	// since it began: report_perf_per_minute's perf_score, the original's
	// P as it stood at the end of the minute.
	Running float64
}

// Minutes cuts r's series into the minutes of each phase, an interval
// counted in the minute its middle falls in.
func Minutes(r *result.Result) []Minute {
	begin := map[string]float64{}
	for _, s := range r.Series {
		if b, ok := begin[s.Phase]; !ok || s.T-s.Dt < b {
			begin[s.Phase] = s.T - s.Dt
		}
	}
	var out []Minute
	index := map[[2]any]int{}
	for _, s := range r.Series {
		n := int((s.T-s.Dt/2-begin[s.Phase])/60) + 1
		k := [2]any{s.Phase, n}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, Minute{Phase: s.Phase, N: n})
		}
		m := &out[i]
		m.Secs += s.Dt
		m.OK += s.OK
		m.Failed += s.Failed
		m.Nothing += s.Nothing
	}
	sort.SliceStable(out, func(i, j int) bool {
		bi, bj := begin[out[i].Phase], begin[out[j].Phase]
		return bi < bj || bi == bj && out[i].N < out[j].N
	})
	var phase string
	var ok int64
	var secs float64
	for i := range out {
		m := &out[i]
		if m.Phase != phase {
			phase, ok, secs = m.Phase, 0, 0
		}
		ok, secs = ok+m.OK, secs+m.Secs
		if m.Secs > 0 {
			m.Rate = float64(m.OK) * 60 / m.Secs
		}
		if secs > 0 {
			m.Running = float64(ok) * 60 / secs
		}
	}
	return out
}

// minutes prints the minutes of a workload whose headline is per minute:
// P as it stood at each minute's end (the running average the original
// reports), the minute's own rate, and its outcomes.
func minutes(b *strings.Builder, r *result.Result) {
	ms := Minutes(r)
	if len(ms) == 0 {
		return
	}
	fmt.Fprintln(b, "\n  minute by minute (P: successful units per minute since the phase began, as OLTP-EMUL's report_perf_per_minute)")
	fmt.Fprintf(b, "  %-8s %6s %11s %9s %9s %7s %9s %12s %9s\n", "phase", "minute", "seconds", "ok", "nothing", "failed", "not ok %", "minute's /min", "P")
	for _, m := range ms {
		pct := "—" // the failed and those that found nothing to do: report_perf_dynamic's err_prc
		if all := m.OK + m.Failed + m.Nothing; all > 0 {
			pct = fmt.Sprintf("%.2f", 100*float64(m.Failed+m.Nothing)/float64(all))
		}
		secs := fmt.Sprintf("%.0f", m.Secs)
		if m.Secs < 59.5 {
			secs += " (part)"
		}
		fmt.Fprintf(b, "  %-8s %6d %11s %9d %9d %7d %9s %13s %9s\n", m.Phase, m.N, secs, m.OK, m.Nothing, m.Failed, pct, Rate(m.Rate), Rate(m.Running))
	}
}

// FailureGroups are the columns of the detailed report
// (report_perf_detailed): lock conflicts (lock_conflict, update_conflict,
// deadlock, a lock time-out, a busy engine, a race lost), constraint
// violations (check, unique, other), and the rest.
var FailureGroups = []struct {
	Name  string
	Kinds []string
}{
	{"conflicts", []string{"lock", "deadlock", "serialization", "timeout", "busy", "lost race"}},
	{"constraint", []string{"check", "unique", "constraint"}},
}

// FailedIn counts a unit kind's failures in each of FailureGroups, and the
// rest last.
func FailedIn(m *result.Phase, unit string) []int64 {
	out := make([]int64, len(FailureGroups)+1)
	for kind, n := range m.UnitsFailedBy[unit] {
		g := len(FailureGroups)
		for i, fg := range FailureGroups {
			for _, k := range fg.Kinds {
				if k == kind {
					g = i
				}
			}
		}
		out[g] += n
	}
	return out
}

// detailed prints the units as OLTP-EMUL's report_perf_detailed does: all,
// ok, failed, the share of those not ok (failed or nothing to do, as the
// original's err_prc counts every exception), the failures by group, the
// units that found nothing to do (the original's user exceptions), the
// latency of the ok.
func detailed(b *strings.Builder, m *result.Phase) {
	width := len("unit")
	for _, u := range m.Units {
		width = max(width, len(u.Name))
	}
	fmt.Fprintf(b, "  %-*s %8s %8s %7s %8s", width, "unit", "all", "ok", "failed", "not ok %")
	for _, g := range FailureGroups {
		fmt.Fprintf(b, " %*s", max(7, len(g.Name)), g.Name)
	}
	fmt.Fprintf(b, " %7s %8s %9s %9s\n", "other", "nothing", "ok mean", "ok max")
	for _, u := range m.Units {
		all := u.Count + u.Failed + u.Nothing
		pct := "—"
		if all > 0 {
			pct = fmt.Sprintf("%.2f", 100*float64(u.Failed+u.Nothing)/float64(all))
		}
		fmt.Fprintf(b, "  %-*s %8d %8d %7d %8s", width, u.Name, all, u.Count, u.Failed, pct)
		in := FailedIn(m, u.Name)
		for i, g := range FailureGroups {
			fmt.Fprintf(b, " %*d", max(7, len(g.Name)), in[i])
		}
		fmt.Fprintf(b, " %7d %8d %9s %9s\n", in[len(in)-1], u.Nothing, Us(int64(math.Round(u.MeanUs))), Us(u.MaxUs))
	}
}
