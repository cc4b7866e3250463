package htmlreport

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
)

// eventLines marks the run's events on the time axis of the throughput
// chart: a dashed vertical line each, labelled with its kind.
func eventLines(r *result.Result) obj {
	// Events closer than a hundredth of the run's length draw one line,
	// named for each of their kinds: a checkpoint and the autovacuum that
	// began in the same second would write their labels over each other.
	near := 0.0
	if n := len(r.Series); n > 0 {
		near = r.Series[n-1].T / 100
	}
	var data arr
	var last float64
	for _, e := range r.Events {
		if e.T < 0 || e.Kind == result.EventBackupStarted || e.Kind == result.EventBackupEnded {
			continue // the backup has its shaded area
		}
		if n := len(data); n > 0 && e.T-last <= near {
			prev := data[n-1].(obj)
			if name := prev["name"].(string); !slices.Contains(strings.Split(name, " · "), e.Kind) {
				prev["name"] = name + " · " + e.Kind
			}
			continue
		}
		last = e.T
		data = append(data, obj{"xAxis": round(e.T, 4), "name": e.Kind})
	}
	if len(data) == 0 {
		return nil
	}
	label := with(text(11, muted), "formatter", "{b}", "position", "insideEndTop")
	if len(data) > labelledEvents {
		// An LSM engine's flushes and compactions, every second or so:
		// their labels would be one smudge. The table below names them.
		label["show"] = false
	}
	return obj{
		"silent": true, "symbol": arr{"none", "none"},
		"lineStyle": obj{"color": color(3), "type": "dashed", "width": 1},
		"label":     label,
		"data":      data,
	}
}

// labelledEvents is how many events the charts label; beyond it the lines
// are drawn unlabelled.
const labelledEvents = 24

// eventsListed is how many events of one kind the Events table lists;
// the rest are counted in one row (result.json holds them all).
const eventsListed = 10

// backupArea shades the seconds the backup ran, for the throughput chart's
// markArea (beside the warm-up's).
func backupArea(r *result.Result) arr {
	b := r.Backup
	if b == nil || !b.Taken {
		return nil
	}
	return arr{obj{"xAxis": round(b.StartT, 4), "name": "backup"}, obj{"xAxis": round(math.Max(b.EndT, b.StartT+0.05), 4)}}
}

// outageAreas shade the seconds the engine answered no unit, for the
// throughput chart's markArea (beside the warm-up's).
func outageAreas(r *result.Result) []arr {
	var out []arr
	for _, o := range r.Outages {
		end := o.EndT
		if end == 0 { // the run ended inside it
			end = o.StartT
			if n := len(r.Series); n > 0 {
				end = r.Series[n-1].T
			}
		}
		out = append(out, arr{obj{"xAxis": round(o.StartT, 4), "name": "outage"}, obj{"xAxis": round(math.Max(end, o.StartT+0.05), 4)}})
	}
	return out
}

// opsSection shows what happened to the server and the data during the
// run: the time line's events, the online backup and its restores.
func opsSection(r *result.Result) *section {
	s := &section{Title: "Operations", Layout: "one"}
	if f := r.Fault; f != nil {
		title := "Server killed under load (--fault)"
		switch f.Kind {
		case "pause":
			title = "Server stopped under load (--fault)"
		case "partition", "loss", "delay":
			title = "The cluster's network cut under load (--fault)"
		}
		s.Items = append(s.Items, item{Title: title, Text: []string{report.FaultLine(f)}})
	}
	if len(r.Outages) > 0 {
		var lines []string
		for _, o := range r.Outages {
			lines = append(lines, report.OutageLine(o))
		}
		s.Items = append(s.Items, item{Title: "Outages", Text: lines,
			Note: "From the first unit that failed as unavailable to the first success of a unit begun after it; shaded on the throughput chart."})
	}
	if b := r.Backup; b != nil {
		s.Items = append(s.Items, item{Title: "Online backup", Text: []string{report.BackupLine(b)}})
		if len(b.Windows) > 0 {
			t := &table{Head: []string{"window", "seconds", "ok", "rate/s", "p50", "p99", "max"}, Num: []bool{false, true, true, true, true, true, true}}
			for _, w := range b.Windows {
				t.Rows = append(t.Rows, []cell{{Text: w.Name}, {Text: fmt.Sprintf("%.1f", w.Seconds)}, {Text: strconv.FormatInt(w.OK, 10)},
					{Text: report.Rate(w.Rate)}, {Text: report.Us(w.P50Us)}, {Text: report.Us(w.P99Us)}, {Text: report.Us(w.MaxUs)}})
			}
			note := "The measure phase's seconds before, during (any second the backup overlapped) and after the backup; latency from the merged histograms of each stretch."
			if x, ok := report.WindowRatio(b, "during", "before"); ok {
				note = fmt.Sprintf("During ÷ before: ×%.2f. ", x) + note
			}
			s.Items = append(s.Items, item{Title: "The workload before, during and after it", Table: t, Note: note})
		}
		if len(b.Restores) > 0 {
			t := &table{Head: []string{"restored to", "seconds", "acknowledged before", "lost", "never committed, present", "in flight", "verdict"},
				Num: []bool{false, true, true, true, true, true, false}}
			for _, x := range b.Restores {
				target := x.Target
				if x.Target != result.RestoreToBackup {
					target = fmt.Sprintf("%s (%.1f s)", x.Target, x.TargetT)
				}
				verdict := cell{Text: report.RestoreLine(x), Badges: []badge{{"ok", "good"}}}
				if !x.OK {
					verdict.Badges = []badge{{"failed", "bad"}}
				}
				t.Rows = append(t.Rows, []cell{{Text: target}, {Text: fmt.Sprintf("%.2f", x.Seconds)}, {Text: strconv.FormatInt(x.Required, 10)},
					{Text: strconv.FormatInt(x.Lost, 10)}, {Text: strconv.FormatInt(x.Phantom, 10)}, {Text: strconv.FormatInt(x.Unknown, 10)}, verdict})
			}
			s.Items = append(s.Items, item{Title: "Restores, checked", Table: t,
				Note: "Each restore is a fresh instance. Acknowledged before: ids the workload saw committed before the point restored to (for the backup alone, before it began): each must be there. Never committed: ids no commit had been sent for by then: none may be there. In flight: commits around the point, which may go either way."})
		}
	}
	if len(r.Events) > 0 {
		t := &table{Head: []string{"second", "event", "detail"}, Num: []bool{true, false, false}}
		listed := map[string]int{}
		for _, e := range r.Events {
			if listed[e.Kind]++; listed[e.Kind] <= eventsListed {
				t.Rows = append(t.Rows, []cell{{Text: fmt.Sprintf("%.1f", e.T)}, {Text: e.Kind}, {Text: e.Detail, Class: "mono"}})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(listed)) {
			if n := listed[k] - eventsListed; n > 0 {
				t.Rows = append(t.Rows, []cell{{Text: ""}, {Text: k}, {Text: fmt.Sprintf("and %d more (every one is in result.json's events and on the charts)", n)}})
			}
		}
		s.Items = append(s.Items, item{Title: "Events", Table: t, Note: "Seconds since the run began, as on the charts. Server log lines are events when they first appear (crashes, recoveries and panics every time); all are counted in the engine section."})
	}
	return s
}

// recoveryText is the crash-recovery measurement of a server: its time and
// what it replayed, or why it was not measured.
func recoveryText(sv *result.Server) string {
	switch {
	case sv.RecoverySeconds > 0 && sv.RecoveryNote != "":
		return fmt.Sprintf("%.2f s after kill -9 (%s)", sv.RecoverySeconds, sv.RecoveryNote)
	case sv.RecoverySeconds > 0:
		return fmt.Sprintf("%.2f s after kill -9", sv.RecoverySeconds)
	case sv.RecoveryNote != "":
		return "not measured: " + sv.RecoveryNote
	}
	return ""
}

// clusterSection shows a run's cluster: its servers, each replica's lag per
// second, and the failover.
func (d *doc) clusterSection(r *result.Result) (*section, error) {
	c := r.Cluster
	if c == nil {
		return nil, nil
	}
	s := &section{Title: "Replication", Layout: "two", Note: report.Topology(c) + ", replication " + c.Replication + "."}
	t := &table{Head: []string{"server", "streams from", "synchronous", "port", "started in", "after the run"}, Num: []bool{false, false, false, true, true, false}}
	for _, n := range c.Nodes {
		after := c.Following[n.Name]
		if slices.Contains(c.Writable, n.Name) {
			after = "accepts writes"
		}
		sync := ""
		if n.Sync {
			sync = "yes"
		}
		t.Rows = append(t.Rows, []cell{{Text: n.Name}, {Text: orDash(n.Upstream)}, {Text: sync}, {Text: strconv.Itoa(n.Port)},
			{Text: fmt.Sprintf("%.2f s", n.StartupSeconds)}, {Text: after}})
	}
	s.Items = append(s.Items, item{Title: "Servers", Table: t, Note: "A replica's start-up runs from its base backup's start to its first accepted connection."})
	if ch, err := d.lagChart(r); err != nil {
		return nil, err
	} else if ch != nil {
		s.Items = append(s.Items, item{Title: "Replication lag per second", Chart: ch, Note: report.LagSummary(r) + ". WAL its upstream has that the replica has not replayed (left), and replay_lag (right), as pg_stat_replication tells them each second."})
	}
	if f := c.Failover; f != nil {
		s.Items = append(s.Items, item{Title: "Failover", Text: []string{report.FailoverLine(f)}, Table: kv(
			"primary cut off before the kill", nonZero(fmt.Sprintf("%.1f s (from its replicas; its clients still reached it)", f.PauseSeconds), f.PauseSeconds > 0),
			"primary killed", fmt.Sprintf("at %.2f s; gone %.2f s later", f.KillT, f.DetectSeconds),
			"promoted", nonZero(fmt.Sprintf("%s, accepting writes %.2f s later", f.Promoted, f.PromoteSeconds), f.Promoted != ""),
			"write downtime", nonZero(fmt.Sprintf("%.2f s: last acknowledged at %.2f s, next at %.2f s", f.DowntimeSeconds, f.LastAckT, f.FirstAckT), f.FirstAckT > 0),
			"clients reconnected", nonZero(fmt.Sprintf("%.2f s after the promotion", f.ReconnectSeconds), f.FirstAckT > 0),
			"acknowledged commits lost", fmt.Sprintf("%d of %d", f.Lost, f.Acknowledged),
			"in flight at the kill", strconv.FormatInt(f.Unknown, 10),
			"split brain", map[bool]string{true: "YES: more than one server accepts writes", false: "none"}[f.SplitBrain],
		)})
	}
	return s, nil
}

// lagChart draws each replica's lag per second: bytes on the left axis,
// replay lag on the right.
func (d *doc) lagChart(r *result.Result) (*chartRef, error) {
	series := map[string]arr{}
	var keys []string
	for _, s := range r.Series {
		for k, v := range s.Lag {
			if _, ok := series[k]; !ok {
				keys = append(keys, k)
			}
			series[k] = append(series[k], arr{round(s.T, 6), round(v, 3)})
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	slices.Sort(keys)
	var list arr
	colors := map[string]int{}
	for _, k := range keys {
		kind, name, _ := strings.Cut(k, ":")
		i, ok := colors[name]
		if !ok {
			i = len(colors)
			colors[name] = i
		}
		axis, label, dash := 0, name+" bytes behind", "solid"
		if kind == "replay_lag_ms" {
			axis, label, dash = 1, name+" replay lag", "dashed"
		}
		list = append(list, obj{"type": "line", "name": label, "data": series[k], "yAxisIndex": axis, "showSymbol": false,
			"color": color(i), "lineStyle": obj{"width": 1.5, "type": dash}})
	}
	o := base()
	o["tooltip"] = obj{"trigger": "axis"}
	o["xAxis"] = bottomAxis(valueAxis("seconds since the start"))
	y2 := valueAxis("replay lag (ms)")
	y2["splitLine"] = obj{"show": false}
	o["yAxis"] = arr{valueAxis("bytes behind"), y2}
	o["series"] = list
	return d.addChart("replication lag per second", 300, o)
}

// failoverSection lists, per cell of a matrix, what its failovers cost.
func failoverSection(m *analysis.Matrix) *section {
	t := &table{Head: []string{"cell", "failovers"}}
	for _, g := range m.Groups {
		if line := report.FailoverSummary(g.Runs); line != "" {
			key := g.Key
			if key == "" {
				key = "all"
			}
			t.Rows = append(t.Rows, []cell{{Text: key}, {Text: line}})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return &section{Title: "Failovers", Layout: "one", Items: []item{{Title: "Per cell, over its cycles", Table: t,
		Note: "Lost: commits the workload saw acknowledged that the promoted replica lacks, from the ledger kept outside the engine. Writes down: from the last commit acknowledged before the primary died to the first after."}}}
}
