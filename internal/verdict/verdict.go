package verdict

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
)

// Requirement is one parsed --require "METRIC OP VALUE", or "steady".
type Requirement struct {
	Text   string
	Metric string  // "calls/s", "p99", "errors%", "steady"
	Op     string  // ">=", "<=", ">", "<", "=="
	Want   float64 // per second, milliseconds or percent; 1 for steady (held: 1, not: 0)
	Unit   string  // "/s", "ms" or "%"; "" for steady
}

var form = regexp.MustCompile(`^\s*([A-Za-z0-9_./%]+?)\s*(>=|<=|==|=|>|<)\s*(\S+)\s*$`)

// percentiles maps latency metric names to HdrHistogram percentiles.
var percentiles = map[string]float64{"p50": 50, "p90": 90, "p95": 95, "p99": 99, "p99.9": 99.9, "max": 100, "mean": -1}

// Metrics lists the metrics a workload with headline metric rate accepts.
func Metrics(rate string) []string {
	return []string{rate, "units/s", "p50", "p90", "p95", "p99", "p99.9", "max", "mean", "errors%", "steady"}
}

// Parse parses s for a workload whose headline metric is rate ("calls/s").
//
// "steady" alone asks that the measure phase held level (Steady).
func Parse(s, rate string) (Requirement, error) {
	if strings.TrimSpace(s) == "steady" {
		return Requirement{Text: "steady", Metric: "steady", Op: "==", Want: 1}, nil
	}
	m := form.FindStringSubmatch(s)
	if m == nil {
		return Requirement{}, knob.Bad(`write it as METRIC OP VALUE, e.g. --require "`+rate+`>=16" or --require "p99<=20ms"`,
			"--require %q is not METRIC OP VALUE", s)
	}
	r := Requirement{Text: strings.TrimSpace(s), Metric: m[1], Op: m[2], Unit: "/s"}
	if r.Op == "=" {
		r.Op = "=="
	}
	val := m[3]
	switch _, isLatency := percentiles[r.Metric]; {
	case r.Metric == rate || r.Metric == "units/s":
		r.Metric = rate
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 {
			return r, knob.Bad(`give a number of units per second, e.g. --require "`+rate+`>=16"`, "--require %q: %q is not a rate", s, val)
		}
		r.Want = f
	case isLatency:
		r.Unit = "ms"
		d, err := time.ParseDuration(strings.ReplaceAll(val, "µs", "us"))
		if err != nil || d < 0 {
			return r, knob.Bad(`give the latency with its unit, e.g. --require "p99<=20ms"`, "--require %q: %q is not a latency", s, val)
		}
		r.Want = float64(d) / float64(time.Millisecond)
	case r.Metric == "errors%":
		r.Unit = "%"
		f, err := strconv.ParseFloat(strings.TrimSuffix(val, "%"), 64)
		if err != nil || f < 0 || f > 100 {
			return r, knob.Bad(`give a percentage from 0 to 100, e.g. --require "errors%<=1"`, "--require %q: %q is not a percentage", s, val)
		}
		r.Want = f
	default:
		return r, knob.Bad("use one of "+strings.Join(Metrics(rate), ", "), "--require %q: there is no metric %q", s, r.Metric)
	}
	return r, nil
}

// Judge evaluates r against the measure phase of res.
func Judge(r Requirement, res *result.Result) result.Verdict {
	v := result.Verdict{Require: r.Text, Metric: r.Metric, Op: r.Op, Want: r.Want, Unit: r.Unit}
	switch {
	case r.Metric == "steady":
		v.Got, v.Detail = 0, "no measure phase to judge"
		if st := res.Steady; st != nil {
			v.Detail = st.Verdict + ": " + st.Why
			if st.Verdict == result.Level {
				v.Got = 1
			}
		}
	case r.Unit == "/s":
		v.Got = res.Summary.Rate
	case r.Unit == "%":
		v.Got = res.Summary.ErrorsPct
	case r.Unit == "ms":
		if p := res.Phase("measure"); p != nil {
			v.Got = LatencyMs(p.All, r.Metric)
		}
	}
	v.OK = Holds(v.Got, r.Op, r.Want)
	if r.Unit == "ms" && (res.Phase("measure") == nil || res.Phase("measure").All.Count == 0) {
		v.OK = false // no unit succeeded: a latency requirement cannot be met
	}
	return v
}

// LatencyMs returns a latency summary's metric ("p99", "mean"…) in
// milliseconds.
func LatencyMs(l result.Latency, metric string) float64 {
	var us float64
	switch metric {
	case "p50":
		us = float64(l.P50Us)
	case "p90":
		us = float64(l.P90Us)
	case "p95":
		us = float64(l.P95Us)
	case "p99":
		us = float64(l.P99Us)
	case "p99.9":
		us = float64(l.P999Us)
	case "max":
		us = float64(l.MaxUs)
	case "mean":
		us = l.MeanUs
	}
	return us / 1000
}

// Holds says whether got op want holds (op as Parse reads it).
func Holds(got float64, op string, want float64) bool {
	switch op {
	case ">=":
		return got >= want
	case "<=":
		return got <= want
	case ">":
		return got > want
	case "<":
		return got < want
	}
	return got == want // "==": Parse admits no other operator
}

// ParseSLO reads one --slo, a capacity search's goal: a latency goal
// ("p99<20ms") or an errors goal ("errors<0.1%", "errors%<=1"), as
// --require writes them; a rate or "steady" is no goal to search on.
func ParseSLO(s, rate string) (Requirement, error) {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "errors"); ok && !strings.HasPrefix(rest, "%") {
		t = "errors%" + rest
	}
	const hint = `give a latency or an errors goal, e.g. --slo 'p99<20ms' --slo 'errors<0.1%'`
	if t == "steady" {
		return Requirement{}, knob.Bad(hint, "--slo %q: each step's steadiness is not a goal to search on", s)
	}
	r, err := Parse(t, rate)
	if err != nil {
		return r, knob.Bad(hint, "--slo %q: %s", s, strings.TrimPrefix(err.Error(), "--require "))
	}
	if r.Unit == "/s" {
		return r, knob.Bad(hint, "--slo %q: the rate is what the search finds, not a goal", s)
	}
	return r, nil
}
