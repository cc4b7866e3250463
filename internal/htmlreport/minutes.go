package htmlreport

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
)

// pChart draws, for a workload whose headline is per minute (OLTP-EMUL's
// P), each whole minute's successful units per minute as bars and P as it
// stood at the minute's end — the units since the phase began per minute
// since it began, report_perf_per_minute's running average — as a line,
// for the warm-up and the measure phase. A last minute a phase did not
// fill is not drawn, and said so.
func (d *doc) pChart(r *result.Result) (item, error) {
	it := item{Title: "P minute by minute"}
	var cats []string
	var bars, line arr
	left := 0.0
	for _, m := range report.Minutes(r) {
		if m.Secs < 59.5 {
			left += m.Secs
			continue
		}
		name := strconv.Itoa(m.N)
		if m.Phase != "measure" {
			name = m.Phase + " " + name
		}
		cats = append(cats, name)
		bars = append(bars, round(m.Rate, 3))
		line = append(line, round(m.Running, 3))
	}
	if len(cats) == 0 {
		it.Text = []string{fmt.Sprintf("No phase held a whole minute: P (%s) is in the headline only.", rate(r.Summary.PerMinute))}
		return it, nil
	}
	o := base()
	o["tooltip"] = obj{"trigger": "axis"}
	o["xAxis"] = bottomAxis(categoryAxis("minute of the phase", cats))
	o["yAxis"] = valueAxis(r.Config.Unit + "s per minute")
	o["series"] = arr{
		obj{"type": "bar", "name": "this minute", "data": bars, "color": color(0)},
		obj{"type": "line", "name": "P since the phase began", "data": line, "color": color(1), "lineStyle": obj{"width": 2}},
	}
	ch, err := d.addChart(it.Title, 300, o)
	if err != nil {
		return it, err
	}
	it.Chart = ch
	it.Note = "Bars: each whole minute's successful units per minute. Line: the successful units since the phase began per minute since it began " +
		"(OLTP-EMUL's report_perf_per_minute): the measure phase's last point is P. Units that found nothing to do or failed are in neither."
	if left > 0 {
		it.Note += fmt.Sprintf(" %.0f s in minutes a phase did not fill are not drawn: they count in the headline.", left)
	}
	return it, nil
}

// detailSection is OLTP-EMUL's report_perf_detailed for the measure phase:
// each unit's outcomes, its failures by group, those that found nothing to
// do (the original's user exceptions), and the latency of the ok ones.
func detailSection(r *result.Result) *section {
	m := r.Phase("measure")
	if m == nil || r.Summary.PerMinute == 0 {
		return nil
	}
	head := []string{"unit", "all", "ok", "failed", "not ok %"}
	for _, g := range report.FailureGroups {
		head = append(head, g.Name)
	}
	head = append(head, "other", "nothing to do", "ok mean", "ok max")
	t := &table{Head: head, Num: []bool{false, true, true, true, true, true, true, true, true, true, true}}
	for _, u := range m.Units {
		all := u.Count + u.Failed + u.Nothing
		pct := "—"
		if all > 0 {
			pct = fmt.Sprintf("%.2f", 100*float64(u.Failed+u.Nothing)/float64(all))
		}
		row := []cell{{Text: u.Name, Class: "mono"}, {Text: strconv.FormatInt(all, 10)}, {Text: strconv.FormatInt(u.Count, 10)},
			{Text: strconv.FormatInt(u.Failed, 10)}, {Text: pct}}
		for _, n := range report.FailedIn(m, u.Name) {
			row = append(row, cell{Text: strconv.FormatInt(n, 10)})
		}
		row = append(row, cell{Text: strconv.FormatInt(u.Nothing, 10)}, cell{Text: report.Us(int64(math.Round(u.MeanUs)))}, cell{Text: report.Us(u.MaxUs)})
		t.Rows = append(t.Rows, row)
	}
	return &section{Title: "Units in detail", Layout: "one", Items: []item{{Table: t,
		Note: "The measure phase's units as OLTP-EMUL's report_perf_detailed shows them. Not ok % counts the failed and those that found nothing to do " +
			"(the original ends both with an exception). Conflicts: lock, update and deadlock conflicts, lock time-outs; constraint: CHECK, unique and other constraints violated."}}}
}
