package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/dbgauge/dbgauge/internal/result"
)

// OpenLoopLine says what an open loop offered and how the engine kept up:
// the intended rate, the units that started late, those never started.
func OpenLoopLine(r *result.Result, m *result.Phase) string {
	if m.Offered <= 0 && m.Late == 0 && m.Missed == 0 {
		return ""
	}
	arr := r.Config.Arrivals
	if arr == "" {
		arr = "uniform"
	}
	line := fmt.Sprintf("offered %s/s (%s arrivals), achieved %s/s; %d started over one intended gap late", Rate(m.Offered), arr, Rate(m.Rate), m.Late)
	if m.Missed > 0 {
		line += fmt.Sprintf("; %d never started (left waiting at the end: in no latency)", m.Missed)
	}
	return line + "; latency counts from each intended start"
}

// profileBlock is a table of a --profile's phases.
func profileBlock(b *strings.Builder, r *result.Result) {
	p := r.Profile
	if p == nil || len(p.Phases) == 0 {
		return
	}
	fmt.Fprintf(b, "\n  profile  %s (%s arrivals)\n", p.Text, p.Arrivals)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  phase\tfrom s\toffered/s\tachieved/s\tp50\tp99\tmax\tlate\tfailed\t")
	for _, ph := range p.Phases {
		fmt.Fprintf(tw, "  %s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", ph.Text, ph.StartS, Rate(ph.Offered), Rate(ph.Rate),
			Us(ph.Latency.P50Us), Us(ph.Latency.P99Us), Us(ph.Latency.MaxUs), ph.Late, ph.Failed)
	}
	_ = tw.Flush()
}

// StepTrend is a capacity step's steady-state verdict, with the times it
// was lengthened to reach it.
func StepTrend(st result.CapacityStep) string {
	out := "—"
	if st.Trend != nil {
		out = st.Trend.Verdict
	}
	if st.Extended > 0 {
		out += fmt.Sprintf(" (+%d×)", st.Extended)
	}
	return out
}

// CapacityLine says what a capacity search found, in one line.
func CapacityLine(c *result.Capacity, rate string) string {
	goals := strings.Join(c.SLO, ", ")
	switch {
	case c.Knee > 0 && c.Found:
		return fmt.Sprintf("%s %s meets %s (%s broke it; %s)", Rate(c.Knee), rate, goals, Rate(c.Broke), c.Why)
	case c.Knee > 0:
		return fmt.Sprintf("at least %s %s meets %s, not bisected to the end: %s", Rate(c.Knee), rate, goals, c.Why)
	}
	return fmt.Sprintf("no rate met %s: %s", goals, c.Why)
}

// capacityBlock is a capacity search's steps and what it found.
func capacityBlock(b *strings.Builder, r *result.Result) {
	c := r.Capacity
	if c == nil {
		return
	}
	fmt.Fprintf(b, "\n  capacity  %s\n", CapacityLine(c, r.Config.UnitRate))
	fmt.Fprintf(b, "  probe: %s/s unpaced (the warm-up's closed loop); steps of %.0f s, the first %.0f s of each left out, %s arrivals\n",
		Rate(c.ProbeRate), c.StepSeconds, c.SettleSeconds, c.Arrivals)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  step\trate/s\toffered/s\tachieved/s\tp50\tp99\tp99.9\terrors\tlate\tdropped\ttrend\t\t")
	for _, st := range c.Steps {
		verdict := "held"
		if !st.Held {
			verdict = "broke: " + strings.Join(st.Broke, "; ")
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f%%\t%d\t%d\t%s\t\t%s\n", st.N, Rate(st.Rate), Rate(st.Offered), Rate(st.Achieved),
			Us(st.Latency.P50Us), Us(st.Latency.P99Us), Us(st.Latency.P999Us), st.ErrorsPct, st.Late, st.Dropped, StepTrend(st), verdict)
	}
	_ = tw.Flush()
}
