package htmlreport

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// headline is the metric a matrix's effects and scaling are about.
func headline(m *analysis.Matrix) analysis.Metric { return m.Headline() }

func metricName(m analysis.Metric) string {
	if m.Unit != "" && m.Unit != "µs" {
		return m.Label + " (" + m.Unit + ")"
	}
	return m.Label
}

func (d *doc) matrix(m *analysis.Matrix) error {
	d.Kind = "matrix"
	d.Head = matrixHeader(m)
	d.Title = "dbgauge matrix: " + d.Head.Title
	head := headline(m)
	d.add(failuresSection(m))

	for _, e := range m.Effects {
		s, err := d.effect(head, e)
		if err != nil {
			return err
		}
		d.add(s)
	}
	if m.Scaling != nil && len(m.Scaling.Clients) > 0 && len(m.Scaling.Lines) > 0 {
		s, err := d.scaling(head, m.Scaling)
		if err != nil {
			return err
		}
		d.add(s)
	}
	if m.Data != nil && len(m.Data.Lines) > 0 {
		s, err := d.dataCurve(head, m.Data)
		if err != nil {
			return err
		}
		d.add(s)
	}
	d.add(versionsSection(m))
	d.add(failoverSection(m))
	d.add(groupsSection(m))
	d.add(missingSection(m))
	return nil
}

func matrixHeader(m *analysis.Matrix) header {
	h := header{}
	ix := m.Index
	if ix == nil {
		ix = &result.Matrix{}
	}
	workload := ix.Workload
	if workload == "" {
		for _, g := range m.Groups {
			if len(g.Runs) > 0 && g.Runs[0] != nil {
				workload = g.Runs[0].Config.Workload
				break
			}
		}
	}
	h.Title = orDash(workload) + " matrix"
	if ix.Status != "" {
		h.Badges = append(h.Badges, statusBadge(ix.Status))
	}
	if m.Missing > 0 {
		h.Badges = append(h.Badges, badge{plural(m.Missing, "cell") + " missing", "warn"})
	}
	if n := len(m.Failures); n > 0 {
		h.Badges = append(h.Badges, badge{plural(n, "cell") + " failed a check or a requirement", "bad"})
	}
	var axes []string
	for _, a := range ix.Axes {
		axes = append(axes, a.Knob+" = "+strings.Join(a.Values, ", "))
	}
	if len(axes) > 0 {
		h.Lines = append(h.Lines, "axes: "+strings.Join(axes, " · "))
	}
	line := "metric " + orDash(headline(m).Label)
	if ix.Repeat > 0 {
		line += fmt.Sprintf(" · repeat %d", ix.Repeat)
	}
	if ix.Shuffle {
		line += fmt.Sprintf(" · shuffled (seed %d)", ix.Seed)
	}
	if ix.ReuseData {
		line += " · data reused between cells"
	}
	if m.Dir != "" {
		line += " · " + m.Dir
	}
	h.Lines = append(h.Lines, line)
	if len(ix.Args) > 0 {
		h.Lines = append(h.Lines, "every cell: "+strings.Join(ix.Args, " "))
	}
	if ix.ID != "" && !ix.Started.IsZero() {
		h.Lines = append(h.Lines, "matrix "+ix.ID+" · started "+ix.Started.Format("2006-01-02 15:04:05 MST"))
	}

	total := len(ix.Cells)
	done := 0
	for _, c := range ix.Cells {
		if c.Status == result.Completed {
			done++
		}
	}
	cells := card{Label: "cells done", Value: strconv.Itoa(done)}
	if total > 0 {
		cells.Unit = "of " + strconv.Itoa(total)
	}
	missing := card{Label: "missing", Value: strconv.Itoa(m.Missing), Note: "cells with no completed result"}
	if m.Missing > 0 {
		missing.Class = "bad"
	}
	h.Cards = append(h.Cards, cells, missing, card{Label: "combinations", Value: strconv.Itoa(len(m.Groups))})
	if ix.Repeat > 0 {
		h.Cards = append(h.Cards, card{Label: "repeat", Value: strconv.Itoa(ix.Repeat)})
	}
	return h
}

func summaryAt(list []stats.Summary, i int) (stats.Summary, bool) {
	if i < len(list) && list[i].N > 0 {
		return list[i], true
	}
	return stats.Summary{}, false
}

func diffAt(list []stats.Diff, i int) (stats.Diff, bool) {
	if i < len(list) {
		return list[i], true
	}
	return stats.Diff{}, false
}

// effect is one knob's bar chart (with 95 % whiskers) and its table of ratios.
func (d *doc) effect(head analysis.Metric, e analysis.Effect) (*section, error) {
	if len(e.Values) == 0 || len(e.Rows) == 0 {
		return nil, nil
	}
	cats := make([]string, len(e.Rows))
	for i, r := range e.Rows {
		cats[i] = orAll(r.Others)
	}
	var series arr
	slots := len(e.Values)
	for j, v := range e.Values {
		name := e.Knob + "=" + v
		bars, whisk := arr{}, arr{}
		for i, r := range e.Rows {
			s, ok := summaryAt(r.Stats, j)
			if !ok {
				bars = append(bars, obj{"value": "-"})
				continue
			}
			lines := []string{name, cats[i], head.Label + " " + value(head, s.Mean)}
			if s.N > 1 {
				lines = append(lines, "95% interval "+interval(head, s), fmt.Sprintf("n = %d, CV %s", s.N, pct(100*s.CV)))
				whisk = append(whisk, arr{i, round(s.Lo, 6), round(s.Hi, 6), j, slots, barMaxWidth})
			} else {
				lines = append(lines, fmt.Sprintf("n = %d", s.N))
			}
			bars = append(bars, obj{"value": round(s.Mean, 6), "tip": tip(lines...)})
		}
		series = append(series, obj{"type": "bar", "name": name, "data": bars, "color": color(j),
			"barGap": barGap, "barCategoryGap": barCatGap, "barMaxWidth": barMaxWidth})
		if len(whisk) > 0 {
			series = append(series, whiskers(name, "errorBars", "#1f2328", whisk, false))
		}
	}
	o := base()
	o["tooltip"] = obj{"trigger": "item", "formatter": "fn:tip"}
	o["xAxis"] = categoryAxis("", cats)
	y := valueAxis(metricName(head))
	y["min"] = 0
	o["yAxis"] = y
	o["series"] = series
	if len(cats) > 3 {
		o["xAxis"].(obj)["axisLabel"] = with(axisText("#1f2328"), "interval", 0, "rotate", 20)
		// A rotated first label reaches left of the axis: room for it, so
		// that containLabel does not clip it.
		o["grid"] = obj{"left": 72, "right": 24, "top": 48, "bottom": 30, "containLabel": true}
	}
	ch, err := d.addChart("effect of "+e.Knob, 320, o)
	if err != nil {
		return nil, err
	}

	t := &table{Head: []string{"others", e.Knob, head.Label, "ratio", "95% interval", "verdict"},
		Num: []bool{false, false, true, true, true, false}}
	for i, r := range e.Rows {
		for j, v := range e.Values {
			s, ok := summaryAt(r.Stats, j)
			mean := "–"
			if ok {
				mean = meanPM(head, s)
			}
			row := []cell{{Text: cats[i]}, {Text: v}, {Text: mean}}
			if j == 0 {
				row = append(row, cell{Text: "1×", Class: "muted"}, cell{Text: "base", Class: "muted"}, cell{Text: "base", Class: "muted"})
			} else if df, ok := diffAt(r.Diffs, j); ok && df.Ratio != 0 {
				w := verdictWord(head, df, "")
				row = append(row, cell{Text: ratio(df.Ratio)}, cell{Text: ratioInterval(df)}, cell{Text: w, Class: verdictClass(w), Title: diffTitle(df)})
			} else {
				row = append(row, cell{Text: "–"}, cell{Text: "–"}, cell{Text: "no data", Class: "neutral"})
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if len(e.Rows) == 1 && e.Rows[0].Others == "" {
		t.Head, t.Num = t.Head[1:], t.Num[1:]
		for i := range t.Rows {
			t.Rows[i] = t.Rows[i][1:]
		}
	}
	title := fmt.Sprintf("Effect of %s", e.Knob)
	return &section{Title: title, Layout: "chart-table",
		Note: fmt.Sprintf("%s for each value of %s, everything else held equal; whiskers are 95%% confidence intervals of the mean over repeats. Ratios are against %s=%s.",
			head.Label, e.Knob, e.Knob, e.Values[0]),
		Items: []item{{Chart: ch}, {Table: t}}}, nil
}

func diffTitle(df stats.Diff) string {
	if df.Method == "" {
		return ""
	}
	return fmt.Sprintf("%s, p = %.3g", df.Method, df.P)
}

// scaling draws throughput and p99 against clients.
func (d *doc) scaling(head analysis.Metric, sc *analysis.Scaling) (*section, error) {
	cats := make([]string, len(sc.Clients))
	for i, c := range sc.Clients {
		cats[i] = strconv.Itoa(c)
	}
	p99 := analysis.Metric{Key: "p99_us", Label: "p99", Unit: "µs"}
	build := func(m analysis.Metric, pick func(analysis.ScalingLine) []stats.Summary, toMs bool, plateau bool) obj {
		var series arr
		for li, l := range sc.Lines {
			name := orAll(l.Others)
			col := color(li)
			pts, whisk := arr{}, arr{}
			list := pick(l)
			conv := func(v float64) float64 {
				if toMs {
					return round(v/1000, 6)
				}
				return round(v, 6)
			}
			for k := range sc.Clients {
				s, ok := summaryAt(list, k)
				if !ok {
					pts = append(pts, obj{"value": "-"})
					continue
				}
				lines := []string{name, plural(sc.Clients[k], "client"), m.Label + " " + value(m, s.Mean)}
				if s.N > 1 {
					lines = append(lines, "95% interval "+interval(m, s), fmt.Sprintf("n = %d", s.N))
					whisk = append(whisk, arr{k, conv(s.Lo), conv(s.Hi), 0, 1})
				}
				pts = append(pts, obj{"value": conv(s.Mean), "tip": tip(lines...)})
			}
			line := obj{"type": "line", "name": name, "data": pts, "color": col, "symbolSize": 7, "lineStyle": obj{"width": 2}}
			if plateau && l.Plateau > 0 {
				for k, c := range sc.Clients {
					s, ok := summaryAt(list, k)
					if c != l.Plateau || !ok {
						continue
					}
					label := fmt.Sprintf("plateau: %d clients", c)
					line["markPoint"] = obj{"symbol": "circle", "symbolSize": 14, "silent": true,
						"itemStyle": obj{"color": "#fff", "borderColor": col, "borderWidth": 3},
						"label": with(text(12, col), "show", true, "position", "top", "formatter", label, "fontWeight", "bold", "distance", 8,
							"backgroundColor", "rgba(255, 255, 255, 0.85)", "padding", arr{1, 4}),
						"data": arr{obj{"coord": arr{k, conv(s.Mean)}, "name": label}}}
					line["markLine"] = obj{"symbol": "none", "silent": true,
						"lineStyle": obj{"color": col, "type": "dashed", "width": 1},
						"label":     obj{"show": false},
						"data":      arr{arr{obj{"coord": arr{k, 0}}, obj{"coord": arr{k, conv(s.Mean)}}}}}
				}
			}
			series = append(series, line)
			if len(whisk) > 0 {
				series = append(series, whiskers(name, "errorBars", col, whisk, false))
			}
		}
		o := base()
		o["tooltip"] = obj{"trigger": "item", "formatter": "fn:tip"}
		o["xAxis"] = bottomAxis(categoryAxis("clients", cats))
		name := metricName(m)
		if toMs {
			name = m.Label + " (ms)"
		}
		y := valueAxis(name)
		y["min"] = 0
		o["yAxis"] = y
		o["series"] = series
		return o
	}
	thr, err := d.addChart("throughput against clients", 320, build(head, func(l analysis.ScalingLine) []stats.Summary { return l.Rate }, false, true))
	if err != nil {
		return nil, err
	}
	lat, err := d.addChart("p99 against clients", 320, build(p99, func(l analysis.ScalingLine) []stats.Summary { return l.P99 }, true, false))
	if err != nil {
		return nil, err
	}
	var plateaus []string
	for _, l := range sc.Lines {
		if l.Plateau > 0 {
			plateaus = append(plateaus, fmt.Sprintf("%s: %d clients", orAll(l.Others), l.Plateau))
		}
	}
	note := "One line per combination of the other knobs; whiskers are 95% confidence intervals."
	if len(plateaus) > 0 {
		note += " Plateau (the fewest clients reaching 95% of the best throughput): " + strings.Join(plateaus, "; ") + "."
	}
	return &section{Title: "Scaling with clients", Layout: "two", Note: note, Items: []item{
		{Title: "Throughput", Chart: thr},
		{Title: "p99 latency", Chart: lat},
	}}, nil
}

// groupsSection is the sortable table of every combination.
func groupsSection(m *analysis.Matrix) *section {
	if len(m.Groups) == 0 {
		return nil
	}
	metrics := m.Metrics
	if len(metrics) == 0 {
		metrics = []analysis.Metric{headline(m)}
	}
	head := []string{"combination"}
	num := []bool{false}
	for _, mt := range metrics {
		head = append(head, metricName(mt))
		num = append(num, true)
	}
	head = append(head, "CV", "n", "runs")
	num = append(num, true, true, false)
	t := &table{Head: head, Num: num, Sortable: true}
	for _, g := range m.Groups {
		if g == nil {
			continue
		}
		row := []cell{{Text: orAll(g.Key)}}
		n := 0
		for _, mt := range metrics {
			s, ok := g.Stats[mt.Key]
			if !ok || s.N == 0 {
				row = append(row, cell{Text: "–", Sort: "-1"})
				continue
			}
			n = max(n, s.N)
			c := cell{Text: meanPM(mt, s), Sort: strconv.FormatFloat(s.Mean, 'g', -1, 64),
				Title: fmt.Sprintf("95%% interval %s, n = %d, CV %s", interval(mt, s), s.N, pct(100*s.CV))}
			if s.Noisy && mt.Key != metrics[0].Key {
				c.Badges = append(c.Badges, badge{"noisy", "warn"})
			}
			row = append(row, c)
		}
		cv := cell{Text: "–", Sort: "-1"}
		if s, ok := g.Stats[metrics[0].Key]; ok && s.N > 1 {
			cv = cell{Text: pct(100 * s.CV), Sort: strconv.FormatFloat(s.CV, 'g', -1, 64),
				Title: "coefficient of variation of " + metrics[0].Label}
			if s.Noisy {
				cv.Badges = append(cv.Badges, badge{"noisy", "warn"})
			}
		}
		var links []link
		for j, dir := range g.Dirs {
			links = append(links, link{Text: "r" + strconv.Itoa(j+1), Href: dir + "/report.html"})
		}
		runs := cell{Links: links, Sort: strconv.Itoa(len(g.Dirs))}
		if len(links) == 0 {
			runs.Text = "–"
		}
		row = append(row, cv, cell{Text: strconv.Itoa(n), Sort: strconv.Itoa(n)}, runs)
		t.Rows = append(t.Rows, row)
	}
	return &section{Title: "Every combination", Layout: "one",
		Note:  fmt.Sprintf("Means ± half the 95%% confidence interval over repeats. A CV above %s marks the cell noisy. Click a header to sort; the links open each run's report.", pct(100*stats.NoisyCV)),
		Items: []item{{Table: t}}}
}

// missingSection lists the cells that have no completed result.
// failuresSection names each failed check of each cell with what it found,
// and each requirement it did not meet with what was measured, each cell
// linked to its report: a matrix's failures where its cells are.
func failuresSection(m *analysis.Matrix) *section {
	if len(m.Failures) == 0 {
		return nil
	}
	t := &table{Head: []string{"cell", "combination", "failed", "what it found"}}
	for _, f := range m.Failures {
		at := []cell{{Links: []link{{Text: f.Cell, Href: f.Dir + "/report.html"}}}, {Text: orAll(f.Key)}}
		for _, c := range f.Checks {
			t.Rows = append(t.Rows, slices.Concat(at, []cell{{Text: c.Name, Class: "bad"}, {Text: c.Detail}}))
		}
		for _, v := range f.Verdicts {
			t.Rows = append(t.Rows, slices.Concat(at, []cell{{Text: "--require " + v.Require, Class: "bad"}, {Text: "measured " + report.Measured(v)}}))
		}
	}
	return &section{Title: "Failed checks and requirements", Layout: "one",
		Note:  "Each cell whose consistency checks failed or whose requirements were not met (its process exited 1), with what it found.",
		Items: []item{{Table: t}}}
}

func missingSection(m *analysis.Matrix) *section {
	if m.Index == nil {
		return nil
	}
	t := &table{Head: []string{"cell", "combination", "status", "reason"}}
	for _, c := range m.Index.Cells {
		if c.Status == result.Completed {
			continue
		}
		st := string(c.Status)
		if st == "" {
			st = "not run"
		}
		t.Rows = append(t.Rows, []cell{{Text: c.ID}, {Text: c.Key}, {Text: st, Class: "bad"}, {Text: c.Reason}})
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return &section{Title: "Cells without a completed result", Layout: "one", Items: []item{{Table: t}}}
}

// dataCurve draws throughput and p99 against the data's size after the load
// (a log axis), with the engine's cache marked and each point labelled with
// its cache hit ratio: where the data outgrows the cache, the knee.
func (d *doc) dataCurve(head analysis.Metric, dc *analysis.DataCurve) (*section, error) {
	var series arr
	caches := map[int64]bool{}
	for li, l := range dc.Lines {
		name := orAll(l.Others)
		col := color(li)
		thr, lat := arr{}, arr{}
		for i, p := range l.Points {
			if p.Bytes <= 0 {
				continue
			}
			lines := []string{name, dc.Knob + "=" + p.Value, "data " + report.Bytes(float64(p.Bytes)),
				head.Label + " " + value(head, p.Rate.Mean), "p99 " + usF(p.P99.Mean)}
			label := ""
			if p.HitPct != nil {
				label = "hits " + report.HitPct(*p.HitPct)
				lines = append(lines, "cache hits "+report.HitPct(*p.HitPct))
			}
			if i == l.Knee {
				lines = append(lines, fmt.Sprintf("the knee: below %.0f%% of the best throughput at smaller sizes", 100*analysis.KneeShare))
			}
			pt := obj{"value": arr{p.Bytes, round(p.Rate.Mean, 6)}, "tip": tip(lines...)}
			if label != "" {
				pt["label"] = with(text(11, col), "show", true, "position", "top", "formatter", label, "distance", 8,
					"backgroundColor", "rgba(255, 255, 255, 0.85)", "padding", arr{1, 4})
			}
			if i == l.Knee {
				pt["symbolSize"], pt["itemStyle"] = 14, obj{"color": col}
			}
			thr = append(thr, pt)
			lat = append(lat, obj{"value": arr{p.Bytes, round(p.P99.Mean/1000, 6)}, "tip": tip(lines...)})
		}
		line := obj{"type": "line", "name": name + " · " + head.Label, "data": thr, "color": col, "symbolSize": 8, "lineStyle": obj{"width": 2}}
		if l.Cache > 0 && !caches[l.Cache] {
			caches[l.Cache] = true
			line["markLine"] = obj{"symbol": "none", "silent": true,
				"lineStyle": obj{"color": "#1f2328", "type": "dashed", "width": 1.5},
				"label": with(text(12, "#1f2328"), "show", true, "position", "end", "formatter", "cache "+report.Bytes(float64(l.Cache)),
					"fontWeight", "bold"),
				"data": arr{obj{"xAxis": l.Cache}}}
		}
		if l.Memory > 0 && !caches[-l.Memory] {
			caches[-l.Memory] = true
			ml, _ := line["markLine"].(obj)
			if ml == nil {
				ml = obj{"symbol": "none", "silent": true, "data": arr{}}
				line["markLine"] = ml
			}
			ml["data"] = append(ml["data"].(arr), obj{"xAxis": l.Memory,
				"lineStyle": obj{"color": "#cf222e", "type": "dotted", "width": 2},
				"label": with(text(12, "#cf222e"), "show", true, "position", "end", "formatter", "server memory "+report.Bytes(float64(l.Memory)),
					"fontWeight", "bold")})
		}
		series = append(series, line,
			obj{"type": "line", "name": name + " · p99", "data": lat, "color": col, "yAxisIndex": 1, "symbol": "diamond", "symbolSize": 7,
				"lineStyle": obj{"width": 1.5, "type": "dashed"}})
	}
	o := base()
	o["tooltip"] = obj{"trigger": "item", "formatter": "fn:tip"}
	x := bottomAxis(logAxis("data size after the load (log scale)"))
	x["logBase"] = 2
	x["axisLabel"] = with(axisText(muted), "formatter", "fn:bytes")
	o["xAxis"] = x
	y := valueAxis(metricName(head))
	y["min"] = 0
	p99 := valueAxis("p99 (ms)")
	p99["min"], p99["splitLine"] = 0, obj{"show": false}
	o["yAxis"] = arr{y, p99}
	o["series"] = series
	o["grid"] = obj{"left": 16, "right": 24, "top": 56, "bottom": 40, "containLabel": true}
	ch, err := d.addChart("throughput against data size", 360, o)
	if err != nil {
		return nil, err
	}
	t := &table{Head: []string{"others", dc.Knob, "data", head.Label, "cache hits", "p99"}, Num: []bool{false, false, true, true, true, true}}
	var knees []string
	for _, l := range dc.Lines {
		for i, p := range l.Points {
			hits := "–"
			if p.HitPct != nil {
				hits = report.HitPct(*p.HitPct)
			}
			v := cell{Text: p.Value}
			if i == l.Knee {
				v.Badges = append(v.Badges, badge{"knee", "warn"})
				knees = append(knees, fmt.Sprintf("%s: %s=%s (%s)", orAll(l.Others), dc.Knob, p.Value, report.Bytes(float64(p.Bytes))))
			}
			t.Rows = append(t.Rows, []cell{{Text: orAll(l.Others)}, v, {Text: report.Bytes(float64(p.Bytes))},
				{Text: meanPM(head, p.Rate)}, {Text: hits}, {Text: usF(p.P99.Mean)}})
		}
	}
	if len(dc.Lines) == 1 && dc.Lines[0].Others == "" {
		t.Head, t.Num = t.Head[1:], t.Num[1:]
		for i := range t.Rows {
			t.Rows[i] = t.Rows[i][1:]
		}
	}
	note := "Throughput (solid) and p99 (dashed, right axis) against the data's size after the load; the dashed vertical line is the engine's cache as read back (a dotted red one the server's memory limit, --server-memory, its page cache included), and each point is labelled with the share of page lookups its cache answered (the engine's own counters, measure phase)."
	if len(knees) > 0 {
		note += fmt.Sprintf(" The knee (throughput below %.0f%% of its best at smaller sizes): %s.", 100*analysis.KneeShare, strings.Join(knees, "; "))
	}
	return &section{Title: "Throughput against data size", Layout: "chart-table", Note: note, Items: []item{{Chart: ch}, {Table: t}}}, nil
}
