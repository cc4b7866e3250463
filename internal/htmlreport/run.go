package htmlreport

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
)

// run fills d with the report of one run.
func (d *doc) run(r *result.Result) error {
	c := r.Config
	d.Kind = "run"
	d.Title = strings.TrimSpace(fmt.Sprintf("dbgauge %s on %s", c.Workload, c.Backend))
	d.Head = runHeader(r)
	mergedBadge(r, &d.Head)

	if r.Disk != nil {
		d.add(diskSection(r))
	}
	capacity, err := d.capacitySection(r)
	if err != nil {
		return err
	}
	d.add(capacity)
	if err := d.runCharts(r); err != nil {
		return err
	}
	d.add(shardsSection(r))
	cs, err := d.clusterSection(r)
	if err != nil {
		return err
	}
	d.add(cs)
	d.add(opsSection(r))
	d.add(detailSection(r))
	d.add(failureSection(r))
	d.add(latencySection(r))
	d.add(outcomeSection(r))
	d.add(setupSection(r))
	d.add(engineSection(r))
	return nil
}

func statusBadge(s result.Status) badge {
	switch s {
	case result.Completed:
		return badge{string(s), "good"}
	case result.Failed:
		return badge{string(s), "bad"}
	case "":
		return badge{"no status", "warn"}
	}
	return badge{string(s), "warn"}
}

func runHeader(r *result.Result) header {
	c, e, s := r.Config, r.Engine, r.Summary
	h := header{Title: fmt.Sprintf("%s on %s", orDash(c.Workload), orDash(c.Backend))}
	h.Badges = append(h.Badges, statusBadge(r.Status))
	if len(r.Checks) > 0 {
		if s.ChecksOK {
			h.Badges = append(h.Badges, badge{"checks passed", "good"})
		} else {
			h.Badges = append(h.Badges, badge{"checks failed", "bad"})
		}
	}
	if s.Pass != nil {
		if *s.Pass {
			h.Badges = append(h.Badges, badge{"requirements met", "good"})
		} else {
			h.Badges = append(h.Badges, badge{"requirements not met", "bad"})
		}
	}
	if r.Durability != nil && r.Durability.Verdict != "" {
		cls := "warn"
		if r.Durability.Verdict == result.Plausible {
			cls = "good"
		}
		h.Badges = append(h.Badges, badge{"durability: " + r.Durability.Verdict, cls})
	}
	if st := r.Steady; st != nil {
		cls := map[string]string{result.Level: "good", result.NotSteady: "warn", result.CannotTell: "warn"}[st.Verdict]
		h.Badges = append(h.Badges, badge{"trend: " + st.Verdict, cls})
	}
	if hr := r.Harness; hr != nil && hr.Limit != "" {
		cls := map[string]string{result.LimitYes: "bad", result.LimitMaybe: "warn", result.LimitNo: "good"}[hr.Limit]
		h.Badges = append(h.Badges, badge{"harness the limit: " + hr.Limit, cls})
	}

	engine := strings.TrimSpace(e.Name + " " + e.Version)
	if e.Driver != "" {
		engine += " (driver " + e.Driver + ")"
	}
	line := "engine " + orDash(engine) + " · backend " + orDash(c.Backend)
	if c.API != "" {
		line += " · api " + c.API
	}
	line += fmt.Sprintf(" · %d clients · durability %s · commit %s · prepare %s", c.Clients, orDash(c.Durability), orDash(c.Commit), orDash(c.Prepare))
	h.Lines = append(h.Lines, line)
	when := "result " + orDash(r.ID)
	if !r.Started.IsZero() {
		when += " · started " + r.Started.Format("2006-01-02 15:04:05 MST")
	}
	if r.Ended != nil {
		when += fmt.Sprintf(" · ran %.1f s", r.Ended.Sub(r.Started).Seconds())
	}
	h.Lines = append(h.Lines, when)
	if len(r.Command) > 0 {
		h.Lines = append(h.Lines, strings.Join(r.Command, " "))
	}
	if r.Reason != "" {
		h.Note = string(r.Status) + ": " + r.Reason
	}

	if r.Phase("measure") == nil && r.Disk == nil {
		if h.Note == "" {
			h.Note = "nothing was measured"
		}
		return h
	}
	if r.Disk != nil && len(r.Phases) == 0 {
		h.Cards = append(h.Cards, card{Label: "flush ceiling", Value: rate(r.Disk.Ceiling), Unit: "/s", Class: "headline"})
		return h
	}
	if cp := r.Capacity; cp != nil {
		// A search's headline is what it found; the steps together, the
		// overloaded ones with the rest, are no rate of the engine's.
		knee := card{Label: "capacity", Value: rate(cp.Knee), Unit: orDash(s.Metric), Class: "headline", Note: "meets " + strings.Join(cp.SLO, ", ")}
		if cp.Knee == 0 {
			knee.Class, knee.Note = "bad", "no rate met "+strings.Join(cp.SLO, ", ")
		}
		h.Cards = append(h.Cards, knee)
		for _, st := range cp.Steps {
			if st.Held && st.Rate == cp.Knee {
				h.Cards = append(h.Cards, card{Label: "p99 at capacity", Value: report.Us(st.Latency.P99Us)}, card{Label: "p99.9 at capacity", Value: report.Us(st.Latency.P999Us)})
			}
		}
		h.Cards = append(h.Cards, card{Label: "steps", Value: strconv.Itoa(len(cp.Steps)), Note: fmt.Sprintf("of %.0f s; probe %s/s unpaced", cp.StepSeconds, rate(cp.ProbeRate))})
		return h
	}
	h.Cards = append(h.Cards,
		card{Label: "throughput", Value: rate(s.Rate), Unit: orDash(s.Metric), Class: "headline",
			Note: fmt.Sprintf("over %.1f s measured", s.Seconds)},
		card{Label: "p50", Value: report.Us(s.P50Us)},
		card{Label: "p95", Value: report.Us(s.P95Us)},
		card{Label: "p99", Value: report.Us(s.P99Us)},
		card{Label: "max", Value: report.Us(s.MaxUs)},
		card{Label: "ok", Value: strconv.FormatInt(s.OK, 10), Unit: c.Unit + "s"},
	)
	if s.Nothing > 0 {
		h.Cards = append(h.Cards, card{Label: "nothing to do", Value: strconv.FormatInt(s.Nothing, 10), Unit: c.Unit + "s",
			Note: "found no work: not in the throughput"})
	}
	failed := card{Label: "failed", Value: strconv.FormatInt(s.Failed, 10), Note: pct(s.ErrorsPct) + " errors"}
	if s.Failed > 0 {
		failed.Class = "bad"
	}
	h.Cards = append(h.Cards, failed, card{Label: "retries", Value: strconv.FormatInt(s.Retries, 10)})
	for _, f := range s.Figures {
		fc := card{Label: f.Name, Value: rate(f.Value), Unit: f.Unit, Note: f.Said()}
		if f.NA != "" {
			fc = card{Label: f.Name, Value: "n/a", Note: f.NA}
		}
		if f.Pass != nil && !*f.Pass {
			fc.Class = "bad"
		}
		h.Cards = append(h.Cards, fc)
	}
	if s.LogBytesPerUnit > 0 {
		h.Cards = append(h.Cards, card{Label: "log growth", Value: report.Bytes(s.LogBytesPerHour), Unit: "/h",
			Note: report.Bytes(s.LogBytesPerUnit) + " per " + c.Unit})
	}
	return h
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// warmupArea is the markArea shading the warm-up seconds, or nil; with
// --warmup auto its label says whether the rate settled where it ends.
func warmupArea(r *result.Result) obj {
	name := "warm-up"
	if w := r.Phase("warmup"); w != nil && w.Settled != nil {
		name = "warm-up (auto: settled here)"
		if !*w.Settled {
			name = "warm-up (auto: not settled by its cap)"
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range r.Series {
		if s.Phase != "warmup" {
			continue
		}
		lo = math.Min(lo, s.T-s.Dt)
		hi = math.Max(hi, s.T)
	}
	if math.IsInf(lo, 1) {
		return nil
	}
	return obj{
		"silent":    true,
		"itemStyle": obj{"color": "rgba(99, 108, 118, 0.10)"},
		"label":     with(text(12, muted), "show", true, "position", "insideTop", "formatter", "{b}"),
		"data":      arr{arr{obj{"xAxis": round(math.Max(lo, 0), 4), "name": name}, obj{"xAxis": round(hi, 4)}}},
	}
}

func perSecond(n int64, dt float64) float64 {
	if dt <= 0 {
		return 0
	}
	return round(float64(n)/dt, 6)
}

func (d *doc) runCharts(r *result.Result) error {
	c := r.Config
	var items []item
	if len(r.Series) > 0 {
		ok, nothing, p50, p99, offered := arr{}, arr{}, arr{}, arr{}, arr{}
		maxT := 0.0
		someNothing, open := false, false
		for _, s := range r.Series {
			t := round(s.T, 6)
			maxT = math.Max(maxT, s.T)
			if s.Partial || s.Dt < 0.25 {
				// A few milliseconds (older results did not mark them):
				// their count ÷ dt would be drawn as a spike of a second.
				continue
			}
			ok = append(ok, arr{t, perSecond(s.OK, s.Dt)})
			nothing = append(nothing, arr{t, perSecond(s.Nothing, s.Dt)})
			someNothing = someNothing || s.Nothing > 0
			offered = append(offered, arr{t, round(s.Offered, 3)})
			open = open || s.Offered > 0
			p50 = append(p50, arr{t, ms(float64(s.P50Us))})
			p99 = append(p99, arr{t, ms(float64(s.P99Us))})
		}
		symbols := len(r.Series) <= 40
		metric := c.UnitRate
		if metric == "" {
			metric = r.Summary.Metric
		}
		okSeries := obj{"type": "line", "name": orDash(metric), "data": ok, "yAxisIndex": 0, "showSymbol": symbols,
			"color": color(0), "areaStyle": obj{"opacity": 0.12}, "lineStyle": obj{"width": 2}}
		area := warmupArea(r)
		shade := outageAreas(r)
		if b := backupArea(r); b != nil {
			shade = append(shade, b)
		}
		if len(shade) > 0 {
			if area == nil {
				area = obj{"silent": true, "itemStyle": obj{"color": "rgba(99, 108, 118, 0.10)"},
					"label": with(text(12, muted), "show", true, "position", "insideTop", "formatter", "{b}"), "data": arr{}}
			}
			for _, a := range shade {
				area["data"] = append(area["data"].(arr), a)
			}
		}
		if area != nil {
			okSeries["markArea"] = area
		}
		if lines := eventLines(r); lines != nil {
			okSeries["markLine"] = lines
		}
		o := base()
		o["tooltip"] = obj{"trigger": "axis", "formatter": "fn:secondTip"}
		x := bottomAxis(valueAxis("seconds since the start"))
		x["min"] = 0
		x["max"] = round(math.Ceil(maxT), 6)
		o["xAxis"] = x
		y2 := logAxis("latency (ms)")
		y2["splitLine"] = obj{"show": false}
		o["yAxis"] = arr{valueAxis(orDash(metric)), y2}
		o["grid"].(obj)["right"] = 16
		o["series"] = arr{
			okSeries,
			obj{"type": "line", "name": "p50", "data": p50, "yAxisIndex": 1, "showSymbol": symbols, "color": color(5), "lineStyle": obj{"width": 1.5}},
			obj{"type": "line", "name": "p99", "data": p99, "yAxisIndex": 1, "showSymbol": symbols, "color": color(6), "lineStyle": obj{"width": 1.5, "type": "dashed"}},
		}
		note := "Units done per second (left axis) and the p50 and p99 of each second (right axis, log scale). The shaded seconds are the warm-up, left out of the headline."
		if open {
			o["series"] = append(o["series"].(arr), obj{"type": "line", "name": "offered", "data": offered, "yAxisIndex": 0, "showSymbol": false,
				"color": "#1f2328", "lineStyle": obj{"width": 1.5, "type": "dashed"}})
			note += " Dashed black: the open loop's offered rate (the starts it intended per second); where the units done fall below it, the engine fell behind, and the latency, counted from each intended start, holds the wait."
		}
		if someNothing {
			o["series"] = append(o["series"].(arr), obj{"type": "line", "name": "nothing to do", "data": nothing, "yAxisIndex": 0, "showSymbol": symbols,
				"color": "#8c959f", "lineStyle": obj{"width": 1.5, "type": "dotted"}})
			note += " Dotted: units per second that found nothing to do, not counted in the throughput."
		}
		ch, err := d.addChart("throughput and latency per second", 340, o)
		if err != nil {
			return err
		}
		items = append(items, item{Title: "Throughput and latency per second", Chart: ch, Note: note})
		panels, err := d.machineCharts(r)
		if err != nil {
			return err
		}
		items = append(items, panels...)
	} else {
		items = append(items, item{Title: "Throughput per second", Text: []string{"This result has no per-second series."}})
	}
	var perMinute []result.Figure
	for _, f := range r.Summary.Figures {
		if len(f.Kinds) > 0 && f.Of == 0 { // a share of a ceiling (efficiency) is no count per minute
			perMinute = append(perMinute, f)
		}
	}
	if r.Summary.PerMinute > 0 {
		it, err := d.pChart(r)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	if len(perMinute) > 0 {
		it, err := d.perMinuteChart(r, perMinute)
		if err != nil {
			return err
		}
		items = append(items, it)
	}
	d.add(&section{Title: "Over time", Layout: "one", Items: items})

	items = nil
	if it, err := d.percentileChart(r); err != nil {
		return err
	} else if it != nil {
		items = append(items, *it)
	}
	if it, err := d.failureChart(r); err != nil {
		return err
	} else if it != nil {
		items = append(items, *it)
	}
	d.add(&section{Title: "Latency and failures", Layout: "two", Items: items})
	return nil
}

// percentilePoints samples h on the "1/(1-p)" scale: x = log10(1/(1-p)),
// from 50 % to the highest percentile the count supports.
func percentilePoints(hist string) (arr, float64, error) {
	h, err := metrics.Decode(result.Latency{Hist: hist})
	if err != nil {
		return nil, 0, err
	}
	n := h.TotalCount()
	if n == 0 {
		return nil, 0, nil
	}
	top := math.Max(math.Log10(float64(n)), 1) // beyond 1 - 1/n there is only the max
	top = math.Min(top, 6)
	const step = 0.025
	var pts arr
	for x := math.Log10(2); x < top; x += step {
		p := 100 * (1 - math.Pow(10, -x))
		pts = append(pts, arr{round(x, 5), ms(float64(h.ValueAtQuantile(p)))})
	}
	pts = append(pts, arr{round(top, 5), ms(float64(h.Max()))})
	return pts, top, nil
}

func (d *doc) percentileChart(r *result.Result) (*item, error) {
	m := r.Phase("measure")
	it := &item{Title: "Latency distribution (measure phase)"}
	if m == nil || m.All.Hist == "" {
		it.Text = []string{"No latency histogram was recorded for the measure phase."}
		return it, nil
	}
	type line struct{ name, hist string }
	lines := []line{{"all units", m.All.Hist}}
	if len(m.Units) > 1 {
		for _, u := range m.Units {
			if u.Hist != "" && u.Count > 0 {
				lines = append(lines, line{u.Name, u.Hist})
			}
		}
	}
	var series arr
	top := 1.0
	for i, l := range lines {
		pts, t, err := percentilePoints(l.hist)
		if err != nil {
			return nil, fmt.Errorf("htmlreport: the %s histogram of the measure phase: %w", l.name, err)
		}
		if len(pts) == 0 {
			continue
		}
		top = math.Max(top, t)
		width := 1.5
		if i == 0 {
			width = 2.5
		}
		series = append(series, obj{"type": "line", "name": l.name, "data": pts, "showSymbol": false,
			"color": color(i), "lineStyle": obj{"width": width}})
	}
	if len(series) == 0 {
		it.Text = []string{"The measure phase recorded no latency."}
		return it, nil
	}
	o := base()
	// Ticks at 50 %, 90 %, 99 %, 99.9 %…: 50 % is not a whole step of the
	// scale, so the ticks are given (customValues, ECharts ≥ 5.5.1).
	ticks := arr{round(math.Log10(2), 6)}
	for k := 1.0; k <= math.Ceil(top); k++ {
		ticks = append(ticks, k)
	}
	x := bottomAxis(valueAxis("percentile"))
	x["min"] = round(math.Log10(2), 6)
	x["max"] = math.Ceil(top)
	x["axisLabel"] = with(axisText(muted), "formatter", "fn:percentile", "customValues", ticks)
	x["axisTick"] = obj{"customValues": ticks}
	x["splitLine"] = obj{"show": false} // ECharts 5.6 draws split lines at its own ticks, not customValues
	var grid arr
	for _, t := range ticks[1:] {
		grid = append(grid, obj{"xAxis": t})
	}
	series[0].(obj)["markLine"] = obj{"silent": true, "symbol": "none", "label": obj{"show": false},
		"lineStyle": obj{"color": gridLine, "type": "solid", "width": 1}, "data": grid}
	o["xAxis"] = x
	o["yAxis"] = logAxis("latency (ms)")
	o["tooltip"] = obj{"trigger": "axis", "formatter": "fn:percentileTip"}
	o["grid"].(obj)["right"] = 40
	o["series"] = series
	ch, err := d.addChart("latency by percentile", 340, o)
	if err != nil {
		return nil, err
	}
	it.Chart = ch
	it.Note = "Latency at each percentile, on HdrHistogram's 1/(1−p) scale: each step right is ten times rarer."
	if len(series) > 1 {
		it.Note += " One line per unit kind."
	}
	return it, nil
}

func (d *doc) failureChart(r *result.Result) (*item, error) {
	it := &item{Title: "Failures and retries per second"}
	var failed, retries arr
	some := false
	for _, s := range r.Series {
		t := round(s.T, 6)
		// Per second, but an interval shorter than a second (at a phase
		// boundary) shows its count: scaling a few events in a few
		// milliseconds up to a rate would draw spikes that never happened.
		failed = append(failed, arr{t, perSecond(s.Failed, math.Max(s.Dt, 1))})
		retries = append(retries, arr{t, perSecond(s.Retries, math.Max(s.Dt, 1))})
		some = some || s.Failed > 0 || s.Retries > 0
	}
	if !some {
		it.Text = []string{"No unit failed and no error was retried in any second."}
		return it, nil
	}
	maxT := 0.0
	for _, s := range r.Series {
		maxT = math.Max(maxT, s.T)
	}
	o := base()
	o["tooltip"] = obj{"trigger": "axis", "formatter": "fn:secondTip"}
	x := bottomAxis(valueAxis("seconds since the start"))
	x["min"] = 0
	x["max"] = round(math.Ceil(maxT), 6)
	o["xAxis"] = x
	o["yAxis"] = valueAxis("per second")
	failedSeries := obj{"type": "line", "step": "start", "name": "failed", "data": failed, "color": "#cf222e",
		"showSymbol": false, "areaStyle": obj{"opacity": 0.25}, "lineStyle": obj{"width": 1.5}}
	if area := warmupArea(r); area != nil {
		failedSeries["markArea"] = area
	}
	series := arr{failedSeries, obj{"type": "line", "step": "start", "name": "retries", "data": retries, "color": "#fc8452",
		"showSymbol": false, "areaStyle": obj{"opacity": 0.15}, "lineStyle": obj{"width": 1.5}}}
	// By class, when the result counts them (failures over time by class):
	// failed units stacked in reds, retried errors stacked in oranges.
	if byClass := classSeries(r.Series); len(byClass) > 0 {
		series = byClass
		if area := warmupArea(r); area != nil {
			series[0].(obj)["markArea"] = area
		}
	}
	o["series"] = series
	ch, err := d.addChart("failures and retries per second", 340, o)
	if err != nil {
		return nil, err
	}
	it.Chart = ch
	it.Note = "Failed units (after their retries) and retried errors in each second, by error class where the result counts them."
	return it, nil
}

// failureSection is the table of failures and retried errors by cause.
func failureSection(r *result.Result) *section {
	t := &table{Head: []string{"phase", "outcome", "class", "kind", "code", "count", "sample"}, Num: []bool{false, false, false, false, false, true, false}}
	for _, p := range r.Phases {
		for _, g := range []struct {
			what string
			list []result.Failure
		}{{"failed", p.Failures}, {"retried", p.Retried}, {"nothing to do", p.NothingBy}} {
			for _, f := range g.list {
				sample := ""
				if len(f.Samples) > 0 {
					sample = f.Samples[0]
				}
				cls := ""
				if g.what == "failed" {
					cls = "bad"
				}
				t.Rows = append(t.Rows, []cell{{Text: p.Name}, {Text: g.what, Class: cls}, {Text: f.Class}, {Text: f.Kind}, {Text: f.Code, Class: "mono"},
					{Text: strconv.FormatInt(f.Count, 10)}, {Text: sample, Class: "sample", Title: strings.Join(f.Samples, "\n")}})
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return &section{Title: "Failures by cause", Layout: "one", Items: []item{{Table: t,
		Note: "Failed: units that failed after their retries. Retried: errors that were retried (the unit may have succeeded later). " +
			"Nothing to do: units that found no work, by the reason the workload gave (neither ok nor failed)."}}}
}

// latencySection tabulates phases, unit kinds and operations.
func latencySection(r *result.Result) *section {
	if len(r.Phases) == 0 {
		return nil
	}
	s := &section{Title: "Phases, unit kinds and operations", Layout: "one"}
	ph := &table{Head: []string{"phase", "seconds", "ok", "nothing to do", "failed", "retries", "lost", "late", "rate", "p50", "p95", "p99", "p99.9", "max"},
		Num: []bool{false, true, true, true, true, true, true, true, true, true, true, true, true, true}}
	for _, p := range r.Phases {
		name := p.Name
		if p.Discarded {
			name += " (discarded)"
		}
		ph.Rows = append(ph.Rows, []cell{{Text: name}, {Text: fmt.Sprintf("%.1f", p.Seconds)}, {Text: strconv.FormatInt(p.OK, 10)},
			{Text: strconv.FormatInt(p.Nothing, 10)}, {Text: strconv.FormatInt(p.Failed, 10)}, {Text: strconv.FormatInt(p.Retries, 10)}, {Text: strconv.FormatInt(p.Lost, 10)},
			{Text: strconv.FormatInt(p.Late, 10)}, {Text: rate(p.Rate)}, {Text: report.Us(p.All.P50Us)}, {Text: report.Us(p.All.P95Us)},
			{Text: report.Us(p.All.P99Us)}, {Text: report.Us(p.All.P999Us)}, {Text: report.Us(p.All.MaxUs)}})
	}
	s.Items = append(s.Items, item{Title: "Phases", Table: ph})
	if m := r.Phase("measure"); m != nil {
		lt := &table{Head: []string{"unit kind / operation", "", "count", "nothing to do", "mean", "p50", "p90", "p99", "p99.9", "max"},
			Num: []bool{false, false, true, true, true, true, true, true, true, true}}
		add := func(what string, l result.Latency) {
			if l.Count == 0 && l.Nothing == 0 {
				return
			}
			nothing := ""
			if what == "unit" {
				nothing = strconv.FormatInt(l.Nothing, 10)
			}
			lt.Rows = append(lt.Rows, []cell{{Text: l.Name}, {Text: what, Class: "muted"}, {Text: strconv.FormatInt(l.Count, 10)}, {Text: nothing}, {Text: usF(l.MeanUs)},
				{Text: report.Us(l.P50Us)}, {Text: report.Us(l.P90Us)}, {Text: report.Us(l.P99Us)}, {Text: report.Us(l.P999Us)}, {Text: report.Us(l.MaxUs)}})
		}
		for _, u := range m.Units {
			add("unit", u)
		}
		for _, op := range m.Ops {
			add("operation", op)
		}
		if m.Lag != nil {
			add("start lag", *m.Lag)
		}
		if len(lt.Rows) > 0 {
			s.Items = append(s.Items, item{Title: "Latency by unit kind and operation (measure phase)", Table: lt})
		}
	}
	return s
}

// outcomeSection: requirements, checks, durability.
func outcomeSection(r *result.Result) *section {
	s := &section{Title: "Verdicts", Layout: "two"}
	if len(r.Verdicts) > 0 {
		t := &table{Head: []string{"requirement", "measured", "verdict"}, Num: []bool{false, true, false}}
		for _, v := range r.Verdicts {
			t.Rows = append(t.Rows, []cell{{Text: v.Require, Class: "mono"}, {Text: report.Measured(v)}, okCell(v.OK, "met", "not met")})
		}
		s.Items = append(s.Items, item{Title: "Requirements", Table: t})
	}
	if len(r.Checks) > 0 {
		t := &table{Head: []string{"check", "result", "detail"}}
		for _, ch := range r.Checks {
			t.Rows = append(t.Rows, []cell{{Text: ch.Name}, okCell(ch.OK, "ok", "failed"), {Text: ch.Detail}})
		}
		s.Items = append(s.Items, item{Title: "Consistency checks", Table: t})
	}
	if dur := r.Durability; dur != nil {
		t := kv(
			"verdict", dur.Verdict,
			"detail", dur.Detail,
			"folder", dur.Folder,
			"flush ceiling", ceiling(dur),
			"probed", probed(dur),
			"commits", rate(dur.Commits)+"/s",
			"engine flushes", flushes(dur.Flushes),
			"clients", strconv.Itoa(dur.Clients),
			"disk warnings", strings.Join(dur.DiskWarning, "; "),
		)
		if len(t.Rows) > 0 {
			t.Rows[0][1].Class = map[bool]string{true: "good", false: "bad"}[dur.Verdict == result.Plausible]
		}
		s.Items = append(s.Items, item{Title: "Disk ceiling and durability", Table: t,
			Note: "The commit rate judged against the flushes per second the data folder's device made in the probe."})
	}
	if st := r.Steady; st != nil {
		s.Items = append(s.Items, steadyItem(st))
	}
	if len(r.Cost) > 0 {
		t := &table{Head: []string{"per " + orDash(r.Config.Unit), "", "counted from"}, Num: []bool{false, true, false}}
		for _, c := range r.Cost {
			t.Rows = append(t.Rows, []cell{{Text: c.Label}, {Text: report.CostValue(c)}, {Text: c.Source}})
		}
		s.Items = append(s.Items, item{Title: "What each unit cost", Table: t,
			Note: "Over the measure phase, divided by its successful units; dbgauge compare sets these side by side."})
	}
	if h := r.Harness; h != nil && h.Verdict != "" {
		placed := "no: where the kernel put it"
		if h.Placed {
			placed = "yes: --cpus harness=" + h.CPUs
		}
		t := kv(
			"could it be the limit?", h.Limit,
			"verdict", h.Verdict,
			"dbgauge's CPUs", fmt.Sprintf("%s (%d), placed %s", h.CPUs, h.CPUCount, placed),
			"dbgauge's CPU", fmt.Sprintf("%.2f cores, %.1f µs per %s, %.0f %% of the machine", h.Cores, h.CPUPerUnitUs, orDash(r.Config.Unit), 100*h.Share),
			"its CPUs busy", fmt.Sprintf("%.2f of %d (by any process)", h.CPUsBusy, h.CPUCount),
			"the machine busy", fmt.Sprintf("%.2f of %d CPUs", h.MachineBusy, h.MachineCPUs),
		)
		if sc := r.ServerCPU; sc != nil {
			t.Rows = append(t.Rows, []cell{{Text: "the server's CPU"}, {Text: fmt.Sprintf("%.2f cores; its CPUs %.2f busy of %d", sc.Cores, sc.CPUsBusy, sc.CPUCount)}})
		}
		t.Rows[0][1].Class = map[string]string{result.LimitYes: "bad", result.LimitMaybe: "warn", result.LimitNo: "good"}[h.Limit]
		s.Items = append(s.Items, item{Title: "Was dbgauge the limit?", Table: t,
			Note: "dbgauge's own CPU (rusage) over the measure phase, beside the busy time of the CPUs it ran on (/proc/stat)."})
	}
	return s
}

// steadyItem is the measure phase's trend: the verdict, then the rate's
// and the p99's change over the phase with their intervals.
func steadyItem(st *result.Steady) item {
	t := &table{Head: []string{"series", "trend", "change over the phase", "95 % interval", "per 10 min", "mean"}, Num: []bool{false, false, true, true, true, true}}
	for _, d := range []struct {
		name string
		d    *result.Drift
		unit string
	}{{"rate", st.Rate, "/s"}, {"p99", st.P99, " µs"}} {
		if d.d == nil {
			continue
		}
		cls := map[string]string{result.Level: "good", result.Falling: "bad", result.Rising: "bad", result.Unclear: "warn"}[d.d.Trend]
		t.Rows = append(t.Rows, []cell{{Text: d.name}, {Text: d.d.Trend, Class: cls},
			{Text: fmt.Sprintf("%+.1f %%", d.d.ChangePct)}, {Text: fmt.Sprintf("%+.1f to %+.1f %%", d.d.LoPct, d.d.HiPct)},
			{Text: fmt.Sprintf("%+.1f %%", d.d.Per10MinPct)}, {Text: rate(d.d.Mean) + d.unit}})
	}
	return item{Title: "Did the run hold level?", Table: t,
		Note: fmt.Sprintf("%s: %s. %s; level means within ±%g %% over the %.0f s measured, the interval too.", st.Verdict, st.Why, st.Method, st.TolerancePct, st.Seconds)}
}

func ceiling(d *result.Durability) string {
	if d.Ceiling <= 0 {
		return ""
	}
	s := rate(d.Ceiling) + " flushes/s"
	if d.Method != "" {
		s += " (" + d.Method + ")"
	}
	return s
}

func probed(d *result.Durability) string {
	if d.ProbedAt == "" {
		return ""
	}
	if d.Cached {
		return d.ProbedAt + " (cached)"
	}
	return d.ProbedAt
}

func flushes(f float64) string {
	if f == 0 {
		return ""
	}
	return rate(f) + "/s"
}

func okCell(ok bool, yes, no string) cell {
	if ok {
		return cell{Text: "✓ " + yes, Class: "good"}
	}
	return cell{Text: "✗ " + no, Class: "bad"}
}

// setupSection: config and environment.
func setupSection(r *result.Result) *section {
	c, env := r.Config, r.Environment
	cfg := kv(
		"workload", c.Workload,
		"unit", strings.TrimSpace(c.Unit+" ("+c.UnitRate+")"),
		"backend", c.Backend,
		"db", c.DB,
		"api", c.API,
		"clients", strconv.Itoa(c.Clients),
		"warm-up", c.Warmup.String(),
		"duration", nonZero(c.Duration.String(), c.Duration != 0),
		"units", nonZero(strconv.FormatInt(c.Units, 10), c.Units != 0),
		"open-loop rate", nonZero(rate(c.Rate)+"/s", c.Rate != 0),
		"retries", strconv.Itoa(c.Retries),
		"seed", strconv.FormatUint(c.Seed, 10),
		"durability", c.Durability,
		"commit", c.Commit,
		"prepare", c.Prepare,
		"--set", strings.Join(c.Set, ", "),
		"--require", strings.Join(c.Require, ", "),
		"stop file", c.StopFile,
	)
	var given []string
	for _, k := range sortedKeys(c.Knobs) {
		v := strings.ReplaceAll(c.Knobs.Text(k), "\n", ", ")
		given = append(given, "--"+k)
		if shownKnobs[k] {
			continue
		}
		cfg.Rows = append(cfg.Rows, []cell{{Text: "--" + k}, {Text: v, Class: "mono"}})
	}
	if len(given) > 0 {
		cfg.Rows = append(cfg.Rows, []cell{{Text: "set explicitly"}, {Text: strings.Join(given, " "), Class: "mono"}})
	}
	if c.Workloads != nil {
		if b, err := json.Marshal(c.Workloads); err == nil && string(b) != "null" && string(b) != "{}" {
			cfg.Rows = append(cfg.Rows, []cell{{Text: "workload config"}, {Text: string(b), Class: "mono"}})
		}
	}
	for _, l := range r.Limits {
		cfg.Rows = append(cfg.Rows, []cell{{Text: "engine limits"}, {Text: l}})
	}
	dd := env.DataDir
	rot := ""
	if dd.Rotational != nil {
		rot = map[bool]string{true: "rotational", false: "solid state"}[*dd.Rotational]
	}
	mem := ""
	if env.MemoryB > 0 {
		mem = report.Bytes(float64(env.MemoryB))
	}
	envT := kv(
		"host", env.Hostname,
		"OS", env.OS,
		"kernel", env.Kernel,
		"arch", env.Arch,
		"CPU", env.CPU,
		"cores", nonZero(strconv.Itoa(env.Cores), env.Cores != 0),
		"memory", mem,
		"Go", env.Go,
		"dbgauge", env.Dbgauge,
		"data folder", dd.Path,
		"file system", dd.FS,
		"mounted at", dd.MountPoint,
		"mount options", dd.MountOptions,
		"source", dd.Source,
		"device", strings.TrimSpace(dd.Device+" "+dd.Model),
		"medium", rot,
		"write cache", dd.WriteCache,
		"could not read", strings.Join(env.Problems, "; "),
	)
	ds := kv(
		"reused", yesNo(r.Dataset.Reused),
		"load seconds", fmt.Sprintf("%.2f", r.Dataset.Seconds),
	)
	for _, k := range sortedKeys(r.Dataset.Facts) {
		ds.Rows = append(ds.Rows, []cell{{Text: k}, {Text: r.Dataset.Facts[k]}})
	}
	return &section{Title: "Configuration and environment", Layout: "two", Items: []item{
		{Title: "Configuration", Table: cfg, Note: "What was asked, after defaults; secrets redacted."},
		{Title: "Environment", Table: envT},
		{Title: "Dataset", Table: ds},
	}}
}

// shownKnobs are the common knobs the configuration table shows in their
// own rows.
var shownKnobs = map[string]bool{
	"db": true, "api": true, "clients": true, "warmup": true, "duration": true, "units": true, "rate": true,
	"durability": true, "commit": true, "prepare": true, "set": true, "require": true, "retries": true,
	"seed": true, "stop-file": true,
}

func nonZero(s string, ok bool) string {
	if !ok {
		return ""
	}
	return s
}

// engineSection: settings as read back, the server, the counters' delta.
func engineSection(r *result.Result) *section {
	e := r.Engine
	s := &section{Title: "Engine", Layout: "two"}
	st := kv("engine", e.Name, "version", e.Version, "driver", e.Driver, "path", e.Path)
	for _, k := range sortedKeys(e.Settings) {
		st.Rows = append(st.Rows, []cell{{Text: k, Class: "mono"}, {Text: e.Settings[k], Class: "mono"}})
	}
	s.Items = append(s.Items, item{Title: "Settings as read back from the engine", Table: st})
	if sv := r.Server; sv != nil {
		t := kv(
			"engine", sv.Engine,
			"account", sv.Account,
			"data folder", sv.DataDir,
			"port", nonZero(strconv.Itoa(sv.Port), sv.Port != 0),
			"socket", sv.Socket,
			"log", sv.Log,
			"start-up", fmt.Sprintf("%.2f s", sv.StartupSeconds),
			"crash recovery", recoveryText(sv),
			"shut-down", fmt.Sprintf("%.2f s", sv.ShutdownSeconds),
			"note", sv.Note,
			"CPUs (--cpus server=…, read back)", sv.CPUs,
		)
		if sc := r.ServerCPU; sc != nil {
			t.Rows = append(t.Rows, []cell{{Text: "CPU in the measure phase"},
				{Text: fmt.Sprintf("%.2f cores, %.1f µs per %s, %d processes at the end", sc.Cores, sc.CPUPerUnitUs, orDash(r.Config.Unit), sc.Processes)}})
		}
		if h := r.Harness; h != nil {
			t.Rows = append(t.Rows, []cell{{Text: "dbgauge's CPU beside it"}, {Text: fmt.Sprintf("%.2f cores, %.1f µs per %s", h.Cores, h.CPUPerUnitUs, orDash(r.Config.Unit))}})
		}
		s.Items = append(s.Items, item{Title: "Server dbgauge managed", Table: t})
	}
	if st := r.Storage; st != nil {
		t := kv(
			"data", st.DataPath,
			"when the measure phase began", report.Bytes(float64(st.DataBegin)),
			"at its end", report.Bytes(float64(st.DataEnd)),
			"growth an hour at this pace", report.Bytes(st.DataPerHour),
			"server log", st.LogPath,
			"its growth an hour", nonZero(report.Bytes(st.LogPerHour), st.LogPath != ""),
		)
		s.Items = append(s.Items, item{Title: "Storage", Table: t, Note: "Sizes of the engine's data and the server's log over the measure phase."})
	}
	if sl := r.ServerLog; sl != nil {
		it := item{Title: "Server log", Note: fmt.Sprintf("%s, %d lines, read after the run; known-harmless lines are not counted.", sl.Path, sl.Lines)}
		if len(sl.Anomalies) == 0 {
			it.Text = []string{"Clean: no errors, panics, bugchecks, crashes or recoveries."}
		} else {
			it.Table = &table{Head: []string{"kind", "count", "first line", "sample"}, Num: []bool{false, true, true, false}}
			for _, a := range sl.Anomalies {
				it.Table.Rows = append(it.Table.Rows, []cell{{Text: a.Kind}, {Text: strconv.Itoa(a.Count)}, {Text: strconv.Itoa(a.FirstLine)}, {Text: a.Sample, Class: "mono"}})
			}
		}
		s.Items = append(s.Items, it)
	}
	if r.Stats != nil && len(r.Stats.Delta) > 0 {
		t := &table{Head: []string{"counter", "before", "after", "delta"}, Num: []bool{false, true, true, true}}
		for _, k := range sortedKeys(r.Stats.Delta) {
			before, after := "", ""
			if v, ok := r.Stats.Before[k]; ok {
				before = strconv.FormatInt(v, 10)
			}
			if v, ok := r.Stats.After[k]; ok {
				after = strconv.FormatInt(v, 10)
			}
			t.Rows = append(t.Rows, []cell{{Text: k, Class: "mono"}, {Text: before}, {Text: after}, {Text: strconv.FormatInt(r.Stats.Delta[k], 10)}})
		}
		s.Items = append(s.Items, item{Title: "Engine counters during the measure phase", Table: t})
	}
	if r.Stats != nil && r.Stats.Note != "" {
		s.Items = append(s.Items, item{Title: "Engine counters during the measure phase", Text: []string{r.Stats.Note}})
	}
	return s
}

// diskSection shows what `dbgauge disk` measured.
func diskSection(r *result.Result) *section {
	dk := r.Disk
	s := &section{Title: "Disk probe", Layout: "one"}
	if len(dk.Findings) > 0 {
		var text []string
		for _, f := range dk.Findings {
			text = append(text, f.Level+": "+f.Text)
		}
		s.Items = append(s.Items, item{Title: "Findings", Text: text})
	}
	t := &table{Head: []string{"method", "pattern", "block", "direct", "ops", "rate", "p50", "p99", "max", "error"},
		Num: []bool{false, false, true, false, true, true, true, true, true, false}}
	for _, c := range dk.Cells {
		t.Rows = append(t.Rows, []cell{{Text: c.Method}, {Text: c.Pattern}, {Text: strconv.Itoa(c.Block)}, {Text: yesNo(c.Direct)},
			{Text: strconv.FormatInt(c.Ops, 10)}, {Text: rate(c.Rate) + "/s"}, {Text: report.Us(c.Latency.P50Us)},
			{Text: report.Us(c.Latency.P99Us)}, {Text: report.Us(c.Latency.MaxUs)}, {Text: c.Error, Class: "bad"}})
	}
	if len(t.Rows) > 0 {
		s.Items = append(s.Items, item{Title: "Cells", Table: t, Note: "Flush ceiling " + rate(dk.Ceiling) + "/s on " + dk.Device.Path})
	}
	return s
}

// classSeries draws failures and retried errors per second, one stacked line
// per error class; nil when the series has no counts by class.
func classSeries(series []result.Second) arr {
	classes := func(pick func(result.Second) map[string]int64) []string {
		seen := map[string]bool{}
		for _, s := range series {
			for k := range pick(s) {
				seen[k] = true
			}
		}
		out := make([]string, 0, len(seen))
		for k := range seen {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	failedBy := func(s result.Second) map[string]int64 { return s.FailedBy }
	retriedBy := func(s result.Second) map[string]int64 { return s.RetriedBy }
	reds := []string{"#cf222e", "#a40e26", "#ff8182", "#82071e"}
	oranges := []string{"#fc8452", "#bc4c00", "#fb8f44", "#953800"}
	var out arr
	for _, g := range []struct {
		what    string
		pick    func(result.Second) map[string]int64
		colors  []string
		opacity float64
	}{{"failed", failedBy, reds, 0.3}, {"retried", retriedBy, oranges, 0.15}} {
		for i, class := range classes(g.pick) {
			var data arr
			for _, s := range series {
				data = append(data, arr{round(s.T, 6), perSecond(g.pick(s)[class], math.Max(s.Dt, 1))})
			}
			out = append(out, obj{"type": "line", "step": "start", "stack": g.what, "name": g.what + ": " + class, "data": data,
				"color": g.colors[i%len(g.colors)], "showSymbol": false, "areaStyle": obj{"opacity": g.opacity}, "lineStyle": obj{"width": 1.2}})
		}
	}
	return out
}

// perMinuteChart draws the figures fs (TPC-C's tpmC and NOPM) minute by
// minute over the measure phase: the units of each figure's kinds in each
// whole minute, from the series' per-kind counts. A last minute the phase
// did not fill is left out, and said so: its count over a full minute
// would understate it, and scaled up it would be a guess.
func (d *doc) perMinuteChart(r *result.Result, fs []result.Figure) (item, error) {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	it := item{Title: strings.Join(names, " and ") + " per minute"}
	m := r.Phase("measure")
	if m == nil {
		it.Text = []string{"Nothing was measured."}
		return it, nil
	}
	begin := math.Inf(1)
	for _, s := range r.Series {
		if s.Phase == "measure" {
			begin = math.Min(begin, s.T-s.Dt)
		}
	}
	type minute struct {
		n       []int64 // per figure
		covered float64
	}
	var mins []minute
	for _, s := range r.Series {
		if s.Phase != "measure" || len(s.Units) < len(m.Units) {
			continue
		}
		k := int((s.T - s.Dt/2 - begin) / 60)
		for len(mins) <= k {
			mins = append(mins, minute{n: make([]int64, len(fs))})
		}
		for j, f := range fs {
			for i, u := range m.Units {
				if slices.Contains(f.Kinds, u.Name) {
					mins[k].n[j] += s.Units[i]
				}
			}
		}
		mins[k].covered += s.Dt
	}
	var cats []string
	data := make([]arr, len(fs))
	left := 0.0
	for k, mn := range mins {
		if mn.covered < 59.5 {
			left += mn.covered
			continue
		}
		cats = append(cats, strconv.Itoa(k+1))
		for j := range fs {
			data[j] = append(data[j], round(float64(mn.n[j])*60/mn.covered, 3))
		}
	}
	if len(cats) == 0 {
		it.Text = []string{fmt.Sprintf("The measure phase held no whole minute (%.0f s measured): %s only in the headline.", m.Seconds, it.Title[:len(it.Title)-len(" per minute")])}
		return it, nil
	}
	o := base()
	o["tooltip"] = obj{"trigger": "axis"}
	o["xAxis"] = bottomAxis(categoryAxis("minute of the measure phase", cats))
	o["yAxis"] = valueAxis(fs[0].Unit)
	var series arr
	var what []string
	for j, f := range fs {
		series = append(series, obj{"type": "bar", "name": f.Name, "data": data[j], "color": color(j)})
		what = append(what, fmt.Sprintf("%s: %s (%s)", f.Name, strings.Join(f.Kinds, " + "), f.Detail))
	}
	o["series"] = series
	ch, err := d.addChart(it.Title, 300, o)
	if err != nil {
		return it, err
	}
	it.Chart = ch
	it.Note = "Each whole minute of the measure phase. " + strings.Join(what, "; ") + "."
	if left > 0 {
		it.Note += fmt.Sprintf(" The last %.0f s, less than a minute, are not drawn: they count in the headline.", left)
	}
	return it, nil
}
