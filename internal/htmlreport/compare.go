package htmlreport

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/analysis"
)

func label(c *analysis.Comparison, i int) string {
	if i < len(c.Labels) && c.Labels[i] != "" {
		return c.Labels[i]
	}
	return "input " + strconv.Itoa(i+1)
}

func inputs(c *analysis.Comparison) int {
	n := len(c.Labels)
	for _, r := range c.Rows {
		n = max(n, len(r.Stats))
	}
	return n
}

func rowVerdict(r analysis.CompareRow, i int) string {
	df, _ := diffAt(r.Diffs, i)
	given := ""
	if i < len(r.Verdict) {
		given = r.Verdict[i]
	}
	if i == 0 {
		return "base"
	}
	return verdictWord(r.Metric, df, given)
}

func keyName(k string) string {
	if strings.TrimSpace(k) == "" {
		return "run"
	}
	return k
}

func (d *doc) compare(c *analysis.Comparison) error {
	d.Kind = "compare"
	n := inputs(c)
	var names []string
	for i := 0; i < n; i++ {
		names = append(names, label(c, i))
	}
	d.Head = header{Title: "Comparison: " + strings.Join(names, " vs ")}
	d.Title = "dbgauge " + strings.ToLower(d.Head.Title[:1]) + d.Head.Title[1:]
	if n > 0 {
		d.Head.Lines = append(d.Head.Lines, "base: "+names[0]+" · headline "+orDash(c.Metric)+" · ratios are each input's mean over the base's, with 95% intervals")
	}
	counts := map[string]int{}
	for _, r := range c.Rows {
		for i := 1; i < n; i++ {
			if i < len(r.Stats) {
				counts[verdictClass(rowVerdict(r, i))]++
			}
		}
	}
	d.Head.Cards = []card{
		{Label: "rows", Value: strconv.Itoa(len(c.Rows))},
		{Label: "better", Value: strconv.Itoa(counts["good"]), Class: "good", Note: "faster, or lower latency"},
		{Label: "worse", Value: strconv.Itoa(counts["bad"]), Class: "bad", Note: "slower, or higher latency"},
		{Label: "not significant", Value: strconv.Itoa(counts["neutral"])},
	}
	if len(c.Rows) == 0 {
		d.add(&section{Title: "Nothing to compare", Layout: "one", Items: []item{{Text: []string{"No cell matched across the inputs."}}}})
		return nil
	}
	it, err := d.ratioChart(c, n)
	if err != nil {
		return err
	}
	d.add(&section{Title: "Ratios against " + names[0], Layout: "one",
		Note:  "Each dot is an input's mean divided by the base's, with its 95% interval; the dashed line is 1 (no change). Green is better, red worse, grey not significant.",
		Items: []item{*it}})
	d.add(compareTable(c, n))
	return nil
}

func (d *doc) ratioChart(c *analysis.Comparison, n int) (*item, error) {
	var cats []string
	var points, whisk arr
	lo, hi := 1.0, 1.0
	for _, r := range c.Rows {
		for i := 1; i < n; i++ {
			df, ok := diffAt(r.Diffs, i)
			if !ok || df.Ratio == 0 || math.IsNaN(df.Ratio) || math.IsInf(df.Ratio, 0) {
				continue
			}
			name := keyName(r.Key) + " · " + r.Metric.Label
			if n > 2 {
				name += " · " + label(c, i)
			}
			y := len(cats)
			cats = append(cats, name)
			w := rowVerdict(r, i)
			col := map[string]string{"good": "#1a7f37", "bad": "#cf222e"}[verdictClass(w)]
			if col == "" {
				col = "#8c959f"
			}
			lines := []string{name, fmt.Sprintf("%s ÷ %s: %s", label(c, i), label(c, 0), ratio(df.Ratio))}
			if df.Hi > df.Lo {
				lines = append(lines, "95% interval "+ratioInterval(df))
				whisk = append(whisk, obj{"value": arr{y, round(df.Lo, 6), round(df.Hi, 6), 0, 1}, "itemStyle": obj{"color": col}})
				lo, hi = math.Min(lo, df.Lo), math.Max(hi, df.Hi)
			}
			lines = append(lines, w)
			points = append(points, obj{"value": arr{round(df.Ratio, 6), y}, "itemStyle": obj{"color": col}, "tip": tip(lines...)})
			lo, hi = math.Min(lo, df.Ratio), math.Max(hi, df.Ratio)
		}
	}
	if len(cats) == 0 {
		return &item{Text: []string{"No ratio could be computed."}}, nil
	}
	pad := (hi - lo) * 0.08
	if pad == 0 {
		pad = 0.05
	}
	o := base()
	o["legend"] = obj{"show": false}
	o["tooltip"] = obj{"trigger": "item", "formatter": "fn:tip"}
	x := valueAxis("ratio to " + label(c, 0))
	x["min"] = round(math.Max(0, math.Floor((lo-pad)*10)/10), 3)
	x["max"] = round(math.Ceil((hi+pad)*10)/10, 3)
	x["nameLocation"] = "middle"
	x["nameGap"] = 28
	x["axisLabel"] = with(axisText(muted), "formatter", "fn:ratio")
	o["xAxis"] = x
	y := categoryAxis("", cats)
	y["inverse"] = true
	y["axisTick"] = obj{"show": false}
	o["yAxis"] = y
	o["grid"] = obj{"left": 16, "right": 32, "top": 16, "bottom": 40, "containLabel": true}
	o["series"] = arr{
		obj{"type": "scatter", "name": "ratio", "data": points, "symbolSize": 11, "z": 20,
			"markLine": obj{"symbol": "none", "silent": true,
				"lineStyle": obj{"color": "#1f2328", "type": "dashed", "width": 1},
				"label":     obj{"show": false},
				"data":      arr{obj{"xAxis": 1}}}},
	}
	if len(whisk) > 0 {
		o["series"] = append(o["series"].(arr), whiskers("interval", "errorBarsH", "#8c959f", whisk, true))
	}
	h := max(200, 72+34*len(cats))
	ch, err := d.addChart("ratios against "+label(c, 0), h, o)
	if err != nil {
		return nil, err
	}
	return &item{Chart: ch}, nil
}

func compareTable(c *analysis.Comparison, n int) *section {
	head := []string{"cell", "metric"}
	num := []bool{false, false}
	for i := 0; i < n; i++ {
		head = append(head, label(c, i))
		num = append(num, true)
	}
	for i := 1; i < n; i++ {
		head = append(head, label(c, i)+" ÷ "+label(c, 0), "verdict")
		num = append(num, true, false)
	}
	t := &table{Head: head, Num: num, Sortable: true}
	for _, r := range c.Rows {
		row := []cell{{Text: keyName(r.Key)}, {Text: metricName(r.Metric)}}
		for i := 0; i < n; i++ {
			s, ok := summaryAt(r.Stats, i)
			if !ok {
				row = append(row, cell{Text: "–", Sort: "-1"})
				continue
			}
			cl := cell{Text: meanPM(r.Metric, s), Sort: strconv.FormatFloat(s.Mean, 'g', -1, 64),
				Title: fmt.Sprintf("95%% interval %s, n = %d", interval(r.Metric, s), s.N)}
			if s.Noisy {
				cl.Badges = append(cl.Badges, badge{"noisy", "warn"})
			}
			row = append(row, cl)
		}
		for i := 1; i < n; i++ {
			df, ok := diffAt(r.Diffs, i)
			if !ok || df.Ratio == 0 {
				row = append(row, cell{Text: "–", Sort: "0"}, cell{Text: "no data", Class: "neutral"})
				continue
			}
			txt := ratio(df.Ratio)
			if iv := ratioInterval(df); iv != "–" {
				txt += " (" + iv + ")"
			}
			w := rowVerdict(r, i)
			row = append(row, cell{Text: txt, Sort: strconv.FormatFloat(df.Ratio, 'g', -1, 64)}, cell{Text: w, Class: verdictClass(w), Title: diffTitle(df)})
		}
		t.Rows = append(t.Rows, row)
	}
	return &section{Title: "Side by side", Layout: "one",
		Note:  "Means ± half the 95% confidence interval; ratios with their 95% interval. For latencies lower is better. Click a header to sort.",
		Items: []item{{Table: t}}}
}
