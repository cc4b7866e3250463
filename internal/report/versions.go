package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/dbgauge/dbgauge/internal/analysis"
)

// versions prints a matrix over versions: each version's throughput, p99
// and CPU per unit with its ratio to the first version, then the built-in
// defaults that differ between them.
func versions(b *strings.Builder, m *analysis.Matrix) {
	v := m.Versions
	if v == nil {
		return
	}
	fmt.Fprintf(b, "\n  versions: against %s=%s (%s), ratio (95 %% interval)\n", v.Knob, v.Values[0], orDash(v.Exact[0]))
	for _, row := range v.Rows {
		if row.Others != "" {
			fmt.Fprintf(b, "    at %s\n", row.Others)
		}
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "    %s\tserver", v.Knob)
		for _, mt := range row.Metrics {
			fmt.Fprintf(tw, "\t%s", mt.Metric.Label)
		}
		fmt.Fprintln(tw)
		for i, val := range v.Values {
			fmt.Fprintf(tw, "    %s\t%s", val, orDash(v.Exact[i]))
			for _, mt := range row.Metrics {
				fmt.Fprintf(tw, "\t%s", versionCell(mt, i))
			}
			fmt.Fprintln(tw)
		}
		_ = tw.Flush()
	}
	if len(v.Defaults) == 0 {
		fmt.Fprintf(b, "\n  built-in defaults: the same in every version\n")
		return
	}
	fmt.Fprintf(b, "\n  built-in defaults that differ (%d, read back: pg_settings.boot_val; — where a version has no such setting)\n", len(v.Defaults))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "    setting\t%s\n", strings.Join(v.Exact, "\t"))
	for _, d := range v.Defaults {
		vals := make([]string, len(d.Values))
		for i, x := range d.Values {
			vals[i] = orDash(x)
		}
		fmt.Fprintf(tw, "    %s\t%s\n", d.Name, strings.Join(vals, "\t"))
	}
	_ = tw.Flush()
}

// versionCell is metric mt at version i: its summary and, past the first
// version, its ratio to the first.
func versionCell(mt analysis.VersionMetric, i int) string {
	s := Interval(mt.Stats[i], mt.Metric.Unit != "")
	if i == 0 {
		return s
	}
	d := mt.Diffs[i]
	if d.Method == "none" {
		return s + " (" + analysis.CannotJudge(d) + ")"
	}
	return s + " " + RatioLine(d, mt.Verdict[i])
}

// orDash is s, or "—" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
