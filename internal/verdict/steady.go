package verdict

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// SteadyTolerancePct is the change over the measure phase, in percent of
// its mean, that still counts as level: a run whose rate drifts less than
// this from its first seconds to its last reports a mean that stands for
// all of them.
const SteadyTolerancePct = 5.0

// Steady judges whether res's measure phase held level: the trend of its
// rate and of its p99, second by second, fitted by batch means
// (stats.FitTrend), each change over the phase with its 95 % interval.
// Steady when both changes and their intervals lie within ±5 %; not steady
// when either moved beyond that, its interval on one side of zero; cannot
// tell when the phase is too short or an interval too wide. nil when no
// measure phase ran.
func Steady(res *result.Result) *result.Steady {
	if res.Phase("measure") == nil {
		return nil
	}
	var measure []result.Second
	for _, s := range res.Series {
		if s.Phase == "measure" {
			measure = append(measure, s)
		}
	}
	return SteadyOf(measure)
}

// SteadyOf judges seconds of a series (a measure phase's, a capacity
// step's) as Steady does.
func SteadyOf(series []result.Second) *result.Steady {
	var ts, rate, tp, p99 []float64
	var span float64
	for _, s := range series {
		if s.Partial || s.Dt <= 0 {
			continue
		}
		mid := s.T - s.Dt/2
		span += s.Dt
		ts, rate = append(ts, mid), append(rate, float64(s.OK)/s.Dt)
		if s.OK > 0 {
			tp, p99 = append(tp, mid), append(p99, float64(s.P99Us))
		}
	}
	st := &result.Steady{TolerancePct: SteadyTolerancePct, Seconds: span,
		Method: fmt.Sprintf("batch means: up to %d batches of consecutive seconds, a least-squares line through them, 95 %% t interval of its slope", stats.TrendBlocks)}
	over := "over the " + time.Duration(span*float64(time.Second)).Round(time.Second).String() + " measured"
	if need := 5 * stats.TrendMinPerBlock; len(ts) < need {
		st.Verdict, st.Why = result.CannotTell, fmt.Sprintf("too short to tell: %d whole seconds measured (%d needed)", len(ts), need)
		return st
	}
	var err error
	if st.Rate, err = drift(ts, rate, span); err != nil {
		st.Verdict, st.Why = result.CannotTell, "the rate: "+err.Error()
		return st
	}
	st.P99, _ = drift(tp, p99, span) // nil when too few seconds had a unit
	moved, unclear := []string{}, []string{}
	for _, d := range []struct {
		name string
		d    *result.Drift
	}{{"the rate", st.Rate}, {"p99", st.P99}} {
		switch {
		case d.d == nil:
		case d.d.Trend == result.Falling || d.d.Trend == result.Rising:
			line := fmt.Sprintf("%s %s: %s %s", d.name, verb(d.d.Trend), pct(d.d), over)
			if span >= 300 { // the pace of a shorter phase is no forecast
				line += fmt.Sprintf(" (%+.1f %% per 10 min)", d.d.Per10MinPct)
			}
			moved = append(moved, line)
		case d.d.Trend == result.Unclear:
			unclear = append(unclear, fmt.Sprintf("%s %s", d.name, pct(d.d)))
		}
	}
	switch {
	case len(moved) > 0:
		st.Verdict, st.Why = result.NotSteady, strings.Join(moved, "; ")
	case len(unclear) > 0:
		st.Verdict = result.CannotTell
		st.Why = fmt.Sprintf("%s %s: an interval reaches beyond ±%g %% (run longer, or on a quieter machine)", strings.Join(unclear, ", "), over, SteadyTolerancePct)
	default:
		st.Verdict = result.Level
		st.Why = fmt.Sprintf("the rate %s", pct(st.Rate))
		if st.P99 != nil {
			st.Why += fmt.Sprintf(", p99 %s", pct(st.P99))
		}
		st.Why += fmt.Sprintf(" %s, within ±%g %%", over, SteadyTolerancePct)
	}
	return st
}

// drift fits xs at ts and says how it moved over a phase of span seconds.
func drift(ts, xs []float64, span float64) (*result.Drift, error) {
	tr, err := stats.FitTrend(ts, xs)
	if err != nil {
		return nil, err
	}
	if tr.Mean == 0 {
		return nil, fmt.Errorf("its mean is 0")
	}
	// From where the line begins: "fell 20 %" is a fifth of the first
	// seconds' pace gone by the last.
	from := tr.Mean - tr.Slope*span/2
	if from <= 0 || math.Abs(tr.Mean) > 0 && from > 2*math.Abs(tr.Mean) {
		from = math.Abs(tr.Mean)
	}
	of := func(slope float64) float64 { return 100 * slope * span / from }
	d := &result.Drift{Mean: tr.Mean, ChangePct: of(tr.Slope), LoPct: of(tr.Lo), HiPct: of(tr.Hi),
		Per10MinPct: 100 * tr.Slope * 600 / from, Blocks: tr.Blocks}
	tol := SteadyTolerancePct
	switch {
	case d.LoPct >= -tol && d.HiPct <= tol:
		d.Trend = result.Level
	case d.HiPct < 0 && d.ChangePct < -tol:
		d.Trend = result.Falling
	case d.LoPct > 0 && d.ChangePct > tol:
		d.Trend = result.Rising
	default:
		d.Trend = result.Unclear
	}
	return d, nil
}

func verb(trend string) string {
	if trend == result.Falling {
		return "fell"
	}
	return "rose"
}

// pct writes a drift's change with its interval: "-12.0 % [-14.1, -9.8]".
func pct(d *result.Drift) string {
	return fmt.Sprintf("%+.1f %% [%+.1f, %+.1f]", d.ChangePct, d.LoPct, d.HiPct)
}
