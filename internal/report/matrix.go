package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// Interval formats a summary: "1234 ± 56" (the 95 % half-interval), or the
// mean alone for one run; a noisy one (CV over 5 %) is marked.
func Interval(s stats.Summary, us bool) string {
	f := func(x float64) string {
		if us {
			return Us(int64(x + 0.5))
		}
		return Rate(x)
	}
	if s.N == 0 {
		return "—"
	}
	out := f(s.Mean)
	if s.N > 1 {
		out += " ± " + f((s.Hi-s.Lo)/2)
	}
	if s.Noisy {
		out += fmt.Sprintf(" noisy (CV %.0f%%)", 100*s.CV)
	}
	return out
}

// IntervalOf is Interval for metric m: a cost per unit with its unit
// ("8.20 KiB", "0.98"), the others as Interval writes them.
func IntervalOf(s stats.Summary, m analysis.Metric) string {
	if !m.Cost {
		return Interval(s, m.Unit != "")
	}
	if s.N == 0 {
		return "—"
	}
	f := func(x float64) string { return CostValue(result.UnitCost{Value: x, Unit: m.Unit}) }
	out := f(s.Mean)
	if s.N > 1 {
		out += " ± " + f((s.Hi-s.Lo)/2)
	}
	return out
}

// RatioLine formats a difference: "×1.23 (1.10–1.37) faster", or why it
// cannot be judged: "cannot judge: too few seconds: 2 and 2 (3 each needed)".
func RatioLine(d stats.Diff, verdict string) string {
	if d.Method == "none" {
		return analysis.CannotJudge(d)
	}
	if d.Method == "identity" {
		return "base"
	}
	if d.Method == "figures" {
		return fmt.Sprintf("×%.3f (%s)", d.Ratio, d.Reason)
	}
	return fmt.Sprintf("×%.3f (%.3f–%.3f) %s", d.Ratio, d.Lo, d.Hi, verdict)
}

// Matrix prints the cells of a matrix with their intervals, then each
// knob's effect.
func Matrix(out io.Writer, m *analysis.Matrix, htmlPath string) error {
	b := &strings.Builder{}
	idx := m.Index
	fmt.Fprintf(b, "dbgauge matrix %s: %s\n", idx.Workload, idx.Status)
	fmt.Fprintf(b, "  folder  %s\n", m.Dir)
	if htmlPath != "" {
		fmt.Fprintf(b, "  report  %s\n", htmlPath)
	}
	if m.Missing > 0 {
		fmt.Fprintf(b, "  %d cell(s) without a completed result: dbgauge run %s --resume %s\n", m.Missing, idx.Workload, m.Dir)
	}
	fmt.Fprintln(b)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	// Where the data lived goes beside the numbers when it differs between
	// cells (--data-dir as an axis): the device explains them.
	where := map[string]bool{}
	for _, g := range m.Groups {
		where[storageCell(g.Runs)] = true
	}
	head := ""
	if len(where) > 1 {
		head = "\tdata folder"
	}
	// The cache hit ratio goes beside the throughput where the engine
	// counts it, and the data's size when it differs between cells.
	hits, sizes := "", map[int64]bool{}
	for _, g := range m.Groups {
		if analysis.CacheHitPct(g.Runs) != nil {
			hits = "\tcache hits"
		}
		sizes[analysis.DataBytes(g.Runs)] = true
	}
	data := ""
	if len(sizes) > 1 {
		data = "\tdata"
	}
	headline, lat := idx.Metric, []string{"p50_us", "p99_us"}
	latHead := "p50\tp99"
	if m.Headline().Key == "capacity" {
		headline, lat, latHead = m.Headline().Label, []string{"knee_p99_us"}, "p99 at capacity"
	}
	fmt.Fprintf(tw, "  cell\t%s%s\t%s%s\truns%s\n", headline, hits, latHead, data, head)
	for _, g := range m.Groups {
		key := g.Key
		if key == "" {
			key = "all"
		}
		fmt.Fprintf(tw, "  %s\t%s", key, Interval(g.Stats[m.Headline().Key], false))
		if hits != "" {
			h := "—"
			if p := analysis.CacheHitPct(g.Runs); p != nil {
				h = HitPct(*p)
			}
			fmt.Fprintf(tw, "\t%s", h)
		}
		for _, k := range lat {
			fmt.Fprintf(tw, "\t%s", Interval(g.Stats[k], true))
		}
		if data != "" {
			d := "—"
			if n := analysis.DataBytes(g.Runs); n > 0 {
				d = Bytes(float64(n))
			}
			fmt.Fprintf(tw, "\t%s", d)
		}
		fmt.Fprintf(tw, "\t%d", len(g.Runs))
		if head != "" {
			fmt.Fprintf(tw, "\t%s", storageCell(g.Runs))
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
	matrixFailures(b, m.Failures)
	rate := m.Headline()
	for _, e := range m.Effects {
		if len(e.Values) < 2 {
			continue
		}
		fmt.Fprintf(b, "\n  %s: against %s=%s\n", e.Knob, e.Knob, e.Values[0])
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, row := range e.Rows {
			for i, v := range e.Values[1:] {
				where := ""
				if row.Others != "" {
					where = " at " + row.Others
				}
				d := row.Diffs[i+1]
				fmt.Fprintf(tw, "    %s=%s%s\t%s\n", e.Knob, v, where, RatioLine(d, analysis.Verdict(d, rate)))
			}
		}
		_ = tw.Flush()
	}
	head = "\n  failovers\n"
	for _, g := range m.Groups {
		key := g.Key
		if key == "" {
			key = "all"
		}
		if line := FailoverSummary(g.Runs); line != "" {
			fmt.Fprintf(b, "%s    %s: %s\n", head, key, line)
			head = ""
		}
	}
	if s := m.Scaling; s != nil {
		for _, l := range s.Lines {
			where := ""
			if l.Others != "" {
				where = " at " + l.Others
			}
			if l.Plateau > 0 {
				fmt.Fprintf(b, "\n  throughput reaches 95 %% of its best at %d clients%s\n", l.Plateau, where)
			}
			var per []string // seed 002: each client's share beside the cumulative rate
			for i, n := range s.Clients {
				if i < len(l.Rate) && n > 0 && l.Rate[i].N > 0 {
					per = append(per, fmt.Sprintf("%d clients %s", n, Rate(l.Rate[i].Mean/float64(n))))
				}
			}
			if len(per) > 1 {
				fmt.Fprintf(b, "  %s per client%s: %s\n", idx.Metric, where, strings.Join(per, " · "))
			}
		}
	}
	dataCurve(b, m)
	versions(b, m)
	_, err := io.WriteString(out, b.String())
	return err
}

// matrixFailures names each failed check of each cell with what it found,
// and each requirement it did not meet with what was measured: a matrix's
// failures are said where its cells are, not only in their result files.
func matrixFailures(b *strings.Builder, fs []analysis.Failure) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n  failed checks and requirements\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, f := range fs {
		where := f.Cell + "\t" + orAll(f.Key)
		for _, c := range f.Checks {
			fmt.Fprintf(tw, "    %s\t✗ %s: %s\n", where, c.Name, Cut(c.Detail, detailWidth))
		}
		for _, v := range f.Verdicts {
			fmt.Fprintf(tw, "    %s\t✗ --require %s: measured %s\n", where, v.Require, Measured(v))
		}
	}
	_ = tw.Flush()
}

// detailWidth is as much of a failed check's detail as a matrix's summary
// shows on its line: the figure leads it; the rest is in the cell's result.
const detailWidth = 100

// Cut shortens s to n characters, marking the cut with "…".
func Cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func orAll(key string) string {
	if key == "" {
		return "all"
	}
	return key
}

// dataCurve prints throughput against data size, the cache and the knee.
func dataCurve(b *strings.Builder, m *analysis.Matrix) {
	dc := m.Data
	if dc == nil {
		return
	}
	for _, l := range dc.Lines {
		where := ""
		if l.Others != "" {
			where = " at " + l.Others
		}
		fmt.Fprintf(b, "\n  %s against data size%s", m.Index.Metric, where)
		switch {
		case l.Cache > 0 && l.Memory > 0:
			fmt.Fprintf(b, " (engine cache %s, server memory %s)", Bytes(float64(l.Cache)), Bytes(float64(l.Memory)))
		case l.Cache > 0:
			fmt.Fprintf(b, " (engine cache %s)", Bytes(float64(l.Cache)))
		case l.Memory > 0:
			fmt.Fprintf(b, " (server memory %s)", Bytes(float64(l.Memory)))
		}
		fmt.Fprintln(b)
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for i, p := range l.Points {
			line := fmt.Sprintf("    %s=%s\t%s\t%s", dc.Knob, p.Value, Bytes(float64(p.Bytes)), Rate(p.Rate.Mean))
			if p.HitPct != nil {
				line += "\tcache hits " + HitPct(*p.HitPct)
			}
			line += "\tp99 " + Us(int64(p.P99.Mean+0.5))
			if i == l.Knee {
				line += fmt.Sprintf("\t← the knee: below %.0f %% of the best at smaller sizes", 100*analysis.KneeShare)
			}
			fmt.Fprintln(tw, line)
		}
		_ = tw.Flush()
	}
}

// Compare prints a comparison: each metric of each matched cell, every
// input's value with its interval, and its ratio to the first.
func Compare(out io.Writer, c *analysis.Comparison) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "dbgauge compare, against %s\n", c.Labels[0])
	for i, l := range c.Labels {
		fmt.Fprintf(b, "  %c  %s\n", 'A'+i, l)
	}
	fmt.Fprintln(b)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	head := "  cell\tmetric"
	for i := range c.Labels {
		head += fmt.Sprintf("\t%c", 'A'+i)
	}
	for i := range c.Labels[1:] {
		head += fmt.Sprintf("\t%c ÷ A", 'B'+i)
	}
	fmt.Fprintln(tw, head)
	for _, r := range c.Rows {
		key := r.Key
		if key == "" {
			key = "—"
		}
		line := "  " + key + "\t" + r.Metric.Label
		for _, s := range r.Stats {
			line += "\t" + IntervalOf(s, r.Metric)
		}
		for i, d := range r.Diffs[1:] {
			line += "\t" + RatioLine(d, r.Verdict[i+1])
		}
		fmt.Fprintln(tw, line)
	}
	_ = tw.Flush()
	fmt.Fprintln(b, "\n  intervals are 95 %: Welch's t over repeats, or a block bootstrap over per-second samples for single runs")
	_, err := io.WriteString(out, b.String())
	return err
}
