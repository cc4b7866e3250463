package htmlreport

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// usF formats microseconds for people, as report.Us does, from a float.
func usF(us float64) string {
	switch {
	case math.IsNaN(us) || math.IsInf(us, 0):
		return "–"
	case us < 0:
		return "-" + usF(-us)
	case us < 10:
		return fmt.Sprintf("%.2gµs", us)
	case us < 1000:
		return fmt.Sprintf("%.0fµs", us)
	case us < 10_000:
		return fmt.Sprintf("%.2fms", us/1000)
	case us < 1_000_000:
		return fmt.Sprintf("%.1fms", us/1000)
	default:
		return fmt.Sprintf("%.2fs", us/1e6)
	}
}

// rate formats a rate (report.Rate, with thousands kept readable).
func rate(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "–"
	}
	return report.Rate(r)
}

// value formats one value of metric m: latencies as durations, rates as numbers.
func value(m analysis.Metric, v float64) string {
	if m.Cost {
		return report.CostValue(result.UnitCost{Value: v, Unit: m.Unit})
	}
	if m.Unit == "µs" {
		return usF(v)
	}
	if m.Unit != "" {
		return rate(v) + " " + m.Unit
	}
	return rate(v)
}

// ms converts microseconds to milliseconds for charts, nil (a gap) for 0.
func ms(us float64) any {
	if us <= 0 || math.IsNaN(us) || math.IsInf(us, 0) {
		return nil
	}
	return round(us/1000, 4)
}

// round keeps sig significant digits, so the JSON stays short.
func round(v float64, sig int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', sig, 64), 64)
	return f
}

// interval writes "lo–hi" of a summary in metric m's unit.
func interval(m analysis.Metric, s stats.Summary) string {
	return value(m, s.Lo) + "–" + value(m, s.Hi)
}

// meanPM writes "mean ± half-interval".
func meanPM(m analysis.Metric, s stats.Summary) string {
	if s.N == 0 {
		return "–"
	}
	half := (s.Hi - s.Lo) / 2
	if half <= 0 {
		return value(m, s.Mean)
	}
	return value(m, s.Mean) + " ± " + value(m, half)
}

func ratio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) || r == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3g×", r)
}

func ratioInterval(d stats.Diff) string {
	if d.Method == "none" || d.Method == "figures" || (d.Lo == 0 && d.Hi == 0) {
		return "–"
	}
	return fmt.Sprintf("%.3g–%.3g", d.Lo, d.Hi)
}

func pct(v float64) string {
	switch {
	case v == 0:
		return "0%"
	case v < 0.1:
		return fmt.Sprintf("%.2g%%", v)
	case v < 10:
		return fmt.Sprintf("%.1f%%", v)
	}
	return fmt.Sprintf("%.0f%%", v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// orAll names the combination of the other knobs, "all" when there is none.
func orAll(others string) string {
	if strings.TrimSpace(others) == "" {
		return "all"
	}
	return others
}

// verdictWord says what a diff means for metric m: "faster", "slower" or "not
// significant" for rates; "better" or "worse" for latencies.
func verdictWord(m analysis.Metric, d stats.Diff, given string) string {
	w := given
	if w == "" {
		switch {
		case d.Method == "identity":
			return "base"
		case d.Method == "none":
			return analysis.CannotJudge(d)
		case !d.Significant:
			w = "not significant"
		case (d.Ratio > 1) == m.HigherBetter:
			w = "faster"
		default:
			w = "slower"
		}
	}
	if d.Method == "identity" {
		return "base"
	}
	if m.Unit == "µs" || !m.HigherBetter {
		switch w {
		case "faster":
			return "better"
		case "slower":
			return "worse"
		}
	}
	return w
}

// verdictClass is the CSS class that colours a verdict word.
func verdictClass(w string) string {
	switch w {
	case "faster", "better", "less":
		return "good"
	case "slower", "worse", "more":
		return "bad"
	case "base":
		return "muted"
	}
	return "neutral"
}

// plural writes "1 cell", "2 cells".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
