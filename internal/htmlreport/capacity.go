package htmlreport

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/verdict"
)

// capacitySection draws a capacity search: each step's latency
// percentiles and achieved rate against the rate it offered, the goals as
// lines, the knee marked; and the steps in a table, in the order they ran.
func (d *doc) capacitySection(r *result.Result) (*section, error) {
	c := r.Capacity
	if c == nil {
		return nil, nil
	}
	steps := slices.Clone(c.Steps)
	slices.SortStableFunc(steps, func(a, b result.CapacityStep) int {
		switch {
		case a.Offered < b.Offered:
			return -1
		case a.Offered > b.Offered:
			return 1
		}
		return 0
	})
	achieved, p50, p99, p999 := arr{}, arr{}, arr{}, arr{}
	for _, st := range steps {
		x := round(st.Offered, 3)
		achieved = append(achieved, arr{x, round(st.Achieved, 3)})
		if st.Latency.Count > 0 {
			p50 = append(p50, arr{x, ms(float64(st.Latency.P50Us))})
			p99 = append(p99, arr{x, ms(float64(st.Latency.P99Us))})
			p999 = append(p999, arr{x, ms(float64(st.Latency.P999Us))})
		}
	}
	metric := orDash(r.Config.UnitRate)
	ideal := arr{}
	if n := len(steps); n > 0 {
		ideal = arr{arr{0, 0}, arr{round(steps[n-1].Offered, 3), round(steps[n-1].Offered, 3)}}
	}
	var goals arr
	for _, g := range c.SLO {
		req, err := verdict.ParseSLO(g, metric)
		if err == nil && req.Unit == "ms" {
			goals = append(goals, obj{"yAxis": req.Want, "name": g, "label": with(text(11, "#cf222e"), "formatter", g, "position", "insideEndTop")})
		}
	}
	p99Series := obj{"type": "line", "name": "p99", "data": p99, "yAxisIndex": 1, "color": color(6), "lineStyle": obj{"width": 2}}
	if len(goals) > 0 {
		p99Series["markLine"] = obj{"silent": true, "symbol": "none", "lineStyle": obj{"color": "#cf222e", "type": "dashed"}, "data": goals}
	}
	achievedSeries := obj{"type": "line", "name": "achieved " + metric, "data": achieved, "yAxisIndex": 0, "color": color(0), "lineStyle": obj{"width": 2}}
	if c.Knee > 0 {
		achievedSeries["markLine"] = obj{"silent": true, "symbol": "none", "lineStyle": obj{"color": "#1a7f37", "width": 2},
			"data": arr{obj{"xAxis": round(c.Knee, 3), "name": "capacity", "label": with(text(11, "#1a7f37"), "formatter", "capacity "+report.Rate(c.Knee)+"/s", "position", "insideEndTop")}}}
	}
	o := base()
	o["tooltip"] = obj{"trigger": "axis"}
	x := bottomAxis(valueAxis("offered " + metric + " (each step's intended rate)"))
	x["min"] = 0
	o["xAxis"] = x
	y2 := logAxis("latency (ms)")
	y2["splitLine"] = obj{"show": false}
	o["yAxis"] = arr{valueAxis(metric), y2}
	o["series"] = arr{
		achievedSeries,
		obj{"type": "line", "name": "achieved = offered", "data": ideal, "yAxisIndex": 0, "showSymbol": false, "color": "#8c959f", "lineStyle": obj{"width": 1, "type": "dotted"}},
		obj{"type": "line", "name": "p50", "data": p50, "yAxisIndex": 1, "color": color(5), "lineStyle": obj{"width": 1.5}},
		p99Series,
		obj{"type": "line", "name": "p99.9", "data": p999, "yAxisIndex": 1, "color": color(3), "lineStyle": obj{"width": 1.5, "type": "dashed"}},
	}
	ch, err := d.addChart("capacity: latency against the offered rate", 360, o)
	if err != nil {
		return nil, err
	}
	t := &table{Head: []string{"step", "rate/s", "offered/s", "achieved/s", "p50", "p99", "p99.9", "errors", "late", "dropped", "trend", "verdict"},
		Num: []bool{true, true, true, true, true, true, true, true, true, true, false, false}}
	for _, st := range c.Steps {
		v := cell{Text: "held", Class: "good"}
		if !st.Held {
			v = cell{Text: "broke: " + strings.Join(st.Broke, "; "), Class: "bad"}
		}
		t.Rows = append(t.Rows, []cell{{Text: strconv.Itoa(st.N)}, {Text: report.Rate(st.Rate)}, {Text: report.Rate(st.Offered)}, {Text: report.Rate(st.Achieved)},
			{Text: report.Us(st.Latency.P50Us)}, {Text: report.Us(st.Latency.P99Us)}, {Text: report.Us(st.Latency.P999Us)},
			{Text: fmt.Sprintf("%.2f %%", st.ErrorsPct)}, {Text: strconv.FormatInt(st.Late, 10)}, {Text: strconv.FormatInt(st.Dropped, 10)}, trendCell(st), v})
	}
	note := "Trend: the steady-state rule on the step's judged seconds; a step that held but whose rate or p99 still moved ran up to two more lengths (+N×). " + fmt.Sprintf("After a closed-loop warm-up (%s/s unpaced), each step ran an open loop at one rate for %.0f s; its first %.0f s are left out of its figures. "+
		"Latency counts from each unit's intended start, so a queue that builds is in it; starts a step left waiting at its end are dropped (and break it above %g %% of its starts), never carried into the next step.",
		report.Rate(c.ProbeRate), c.StepSeconds, c.SettleSeconds, c.DroppedLimitPct)
	return &section{Title: "Capacity: " + report.CapacityLine(c, metric), Layout: "one", Items: []item{
		{Title: "Latency and achieved rate against the offered rate", Chart: ch, Note: note},
		{Title: "Steps, in the order they ran", Table: t},
	}}, nil
}

// trendCell is a step's steady-state verdict, its reason on hover.
func trendCell(st result.CapacityStep) cell {
	c := cell{Text: report.StepTrend(st)}
	if st.Trend != nil {
		c.Title = st.Trend.Why
	}
	return c
}
