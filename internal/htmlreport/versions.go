package htmlreport

import (
	"fmt"
	"strconv"

	"github.com/dbgauge/dbgauge/internal/analysis"
)

// versionsSection is a matrix over versions of one engine: each version's
// throughput, p99 and CPU per unit, its ratio to the first version with
// the 95 % interval and the verdict, and the built-in defaults that differ.
func versionsSection(m *analysis.Matrix) *section {
	v := m.Versions
	if v == nil {
		return nil
	}
	s := &section{Title: "Versions", Layout: "one",
		Note: fmt.Sprintf("Against %s=%s (the server reported %s). Each ratio is to the first version, with its 95%% interval; "+
			"with repeats a Welch test over runs, with one run a bootstrap over its seconds (CPU, one figure a run, needs repeats).", v.Knob, v.Values[0], v.Exact[0])}
	for _, row := range v.Rows {
		head := []string{v.Knob, "server"}
		num := []bool{false, false}
		for _, mt := range row.Metrics {
			head = append(head, metricName(mt.Metric), "ratio (95% interval)")
			num = append(num, true, false)
		}
		t := &table{Head: head, Num: num}
		for i, val := range v.Values {
			r := []cell{{Text: val}, {Text: orNone(v.Exact[i])}}
			for _, mt := range row.Metrics {
				st := mt.Stats[i]
				r = append(r, cell{Text: meanPM(mt.Metric, st), Sort: strconv.FormatFloat(st.Mean, 'g', -1, 64)})
				d := mt.Diffs[i]
				w := verdictWord(mt.Metric, d, mt.Verdict[i])
				text := w
				if d.Method != "none" && d.Method != "identity" {
					text = ratio(d.Ratio) + " (" + ratioInterval(d) + ") " + w
				}
				r = append(r, cell{Text: text, Class: verdictClass(w), Title: diffTitle(d)})
			}
			t.Rows = append(t.Rows, r)
		}
		s.Items = append(s.Items, item{Title: orAll(row.Others), Table: t})
	}
	s.Items = append(s.Items, defaultsItem(v))
	return s
}

// defaultsItem is the table of the built-in defaults that differ between
// the versions, read back from each server.
func defaultsItem(v *analysis.Versions) item {
	if len(v.Defaults) == 0 {
		return item{Title: "Built-in defaults", Text: []string{"The same in every version (read back from each server)."}}
	}
	t := &table{Head: append([]string{"setting"}, v.Exact...), Sortable: true}
	for _, d := range v.Defaults {
		r := []cell{{Text: d.Name}}
		for _, x := range d.Values {
			r = append(r, cell{Text: orNone(x)})
		}
		t.Rows = append(t.Rows, r)
	}
	return item{Title: fmt.Sprintf("Built-in defaults that differ (%d)", len(v.Defaults)),
		Note: "Read back from each server (PostgreSQL: pg_settings.boot_val, with its unit); – where a version has no such setting.", Table: t}
}

// orNone is s, or "–" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
