package htmlreport

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
)

// eventLines marks the run's events on the time axis of the throughput
// chart: a dashed vertical line each, labelled with its kind.
func eventLines(r *result.Result) obj {
	var data arr
	for _, e := range r.Events {
		if e.T < 0 || e.Kind == result.EventBackupStarted || e.Kind == result.EventBackupEnded {
			continue // the backup has its shaded area
		}
		data = append(data, obj{"xAxis": round(e.T, 4), "name": e.Kind})
	}
	if len(data) == 0 {
		return nil
	}
	return obj{
		"silent": true, "symbol": arr{"none", "none"},
		"lineStyle": obj{"color": color(3), "type": "dashed", "width": 1},
		"label":     with(text(11, muted), "formatter", "{b}", "position", "insideEndTop"),
		"data":      data,
	}
}

// backupArea shades the seconds the backup ran, for the throughput chart's
// markArea (beside the warm-up's).
func backupArea(r *result.Result) arr {
	b := r.Backup
	if b == nil || !b.Taken {
		return nil
	}
	return arr{obj{"xAxis": round(b.StartT, 4), "name": "backup"}, obj{"xAxis": round(math.Max(b.EndT, b.StartT+0.05), 4)}}
}

// opsSection shows what happened to the server and the data during the
// run: the time line's events, the online backup and its restores.
func opsSection(r *result.Result) *section {
	s := &section{Title: "Operations", Layout: "one"}
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
		for _, e := range r.Events {
			t.Rows = append(t.Rows, []cell{{Text: fmt.Sprintf("%.1f", e.T)}, {Text: e.Kind}, {Text: e.Detail, Class: "mono"}})
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
