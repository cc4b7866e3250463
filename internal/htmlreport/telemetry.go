package htmlreport

import (
	"fmt"
	"math"
	"sort"

	"github.com/dbgauge/dbgauge/internal/result"
)

// machineCharts are the panels under the throughput chart, on its time
// axis: the machine's side of each second (the data folder's device, the
// server's and dbgauge's CPU) and the engine's counters, the run's events
// drawn across them as on the throughput chart. None where the series has
// neither.
func (d *doc) machineCharts(r *result.Result) ([]item, error) {
	var items []item
	maxT := 0.0
	for _, s := range r.Series {
		maxT = math.Max(maxT, s.T)
	}
	axis := func() obj {
		x := bottomAxis(valueAxis("seconds since the start"))
		x["min"], x["max"] = 0, round(math.Ceil(maxT), 6)
		return x
	}
	symbols := len(r.Series) <= 40
	line := func(name string, data arr, y, c int, dashed bool) obj {
		ls := obj{"width": 1.5}
		if dashed {
			ls["type"] = "dashed"
		}
		return obj{"type": "line", "name": name, "data": data, "yAxisIndex": y, "showSymbol": symbols, "color": color(c), "lineStyle": ls}
	}
	var rd, wr, srv, own arr
	for _, s := range r.Series {
		m := s.Machine
		if m == nil || s.Partial {
			continue
		}
		t := round(s.T, 6)
		if m.Disk != nil {
			rd, wr = append(rd, arr{t, round(m.Disk.ReadMiB, 3)}), append(wr, arr{t, round(m.Disk.WriteMiB, 3)})
		}
		if m.ServerCores != nil {
			srv = append(srv, arr{t, round(*m.ServerCores, 3)})
		}
		own = append(own, arr{t, round(m.HarnessCores, 3)})
	}
	if len(own) > 0 {
		o := base()
		o["tooltip"] = obj{"trigger": "axis"}
		o["xAxis"] = axis()
		y2 := valueAxis("cores")
		y2["splitLine"] = obj{"show": false}
		o["yAxis"] = arr{valueAxis("MiB/s"), y2}
		writes := line("device writes (MiB/s)", wr, 0, 1, false)
		if lines := eventLines(r); lines != nil {
			writes["markLine"] = lines
		}
		o["series"] = arr{writes, line("device reads (MiB/s)", rd, 0, 2, false), line("server CPU (cores)", srv, 1, 3, true), line("dbgauge CPU (cores)", own, 1, 4, true)}
		ch, err := d.addChart("the machine per second", 260, o)
		if err != nil {
			return nil, err
		}
		items = append(items, item{Title: "The machine per second", Chart: ch,
			Note: "The data folder's device (any process's, /proc/diskstats), the managed server's processes' CPU and dbgauge's, each second, on the throughput chart's time axis; the dashed vertical lines are the run's events."})
	}
	if it, err := d.waitsPanel(r, axis(), line); err != nil {
		return nil, err
	} else if it != nil {
		items = append(items, *it)
	}
	it, err := d.engineChart(r, axis(), line)
	if err != nil {
		return nil, err
	}
	if it != nil {
		items = append(items, *it)
	}
	return items, nil
}

// engineChart draws each engine counter's rate per second (log scale: the
// counters differ by orders of magnitude), or nil when there are none.
func (d *doc) engineChart(r *result.Result, x obj, line func(string, arr, int, int, bool) obj) (*item, error) {
	series := map[string]arr{}
	for _, s := range r.Series {
		for k, v := range s.Engine {
			series[k] = append(series[k], arr{round(s.T, 6), positive(v)})
		}
	}
	if len(series) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(series))
	for k := range series {
		names = append(names, k)
	}
	sort.Strings(names)
	o := base()
	o["tooltip"] = obj{"trigger": "axis"}
	o["xAxis"] = x
	o["yAxis"] = arr{logAxis("per second (log)")}
	var all arr
	for i, k := range names {
		l := line(k, series[k], 0, i, false)
		if i == 0 {
			if lines := eventLines(r); lines != nil {
				l["markLine"] = lines
			}
		}
		all = append(all, l)
	}
	o["series"] = all
	ch, err := d.addChart("the engine's counters per second", 260, o)
	if err != nil {
		return nil, err
	}
	return &item{Title: "The engine's counters per second", Chart: ch,
		Note: "How fast each of the engine's own counters moved, sampled once a second on their own clock (up to a second behind the series); a checkpoint, an autovacuum, a memtable flush or a compaction is an event."}, nil
}

// positive is v, or nil (a gap) where a log axis cannot draw it.
func positive(v float64) any {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return round(v, 3)
}

// waitsPanel draws the top five waits of the measure phase second by
// second, beside the table of all of them; nil when none was read.
func (d *doc) waitsPanel(r *result.Result, x obj, line func(string, arr, int, int, bool) obj) (*item, error) {
	if len(r.Waits) == 0 {
		return nil, nil
	}
	t := &table{Head: []string{"wait", "connections waiting, on average", "share of the waiting"}, Num: []bool{false, true, true}}
	var all arr
	for i, w := range r.Waits {
		t.Rows = append(t.Rows, []cell{{Text: w.Wait, Class: "mono"}, {Text: fmt.Sprintf("%.2f", w.Waiting)}, {Text: fmt.Sprintf("%.0f %%", w.SharePct)}})
		if i >= 5 {
			continue
		}
		var data arr
		for _, s := range r.Series {
			if s.Waits != nil {
				data = append(data, arr{round(s.T, 6), round(s.Waits[w.Wait], 3)})
			}
		}
		all = append(all, line(w.Wait, data, 0, i, false))
	}
	o := base()
	o["tooltip"] = obj{"trigger": "axis"}
	o["xAxis"] = x
	o["yAxis"] = arr{valueAxis("connections waiting")}
	o["series"] = all
	ch, err := d.addChart("what the connections waited on", 260, o)
	if err != nil {
		return nil, err
	}
	return &item{Title: "What the connections waited on", Chart: ch, Table: t,
		Note: "The engine's view of the workload's connections, read ten times a second (PostgreSQL: pg_stat_activity's wait events, CPU where a backend runs with none; MariaDB: each thread's state): the top five second by second, and all of them over the measure phase."}, nil
}
