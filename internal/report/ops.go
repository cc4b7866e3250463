package report

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Lifecycle says how long a managed server took to start, to recover from
// a kill -9 and to stop: "started in 0.12 s, recovered from kill -9 in
// 0.31 s, stopped in 0.20 s".
func Lifecycle(sv *result.Server) string {
	parts := []string{fmt.Sprintf("started in %.2f s", sv.StartupSeconds)}
	switch {
	case sv.RecoverySeconds > 0:
		parts = append(parts, fmt.Sprintf("recovered from kill -9 in %.2f s", sv.RecoverySeconds))
	case sv.RecoveryNote != "":
		parts = append(parts, "crash recovery not measured ("+sv.RecoveryNote+")")
	}
	return strings.Join(append(parts, fmt.Sprintf("stopped in %.2f s", sv.ShutdownSeconds)), ", ")
}

// maxEvents is how many events the summary lists; result.json has them all.
const maxEvents = 12

// events lists the run's events, at most maxEvents of them.
func events(b *strings.Builder, ev []result.Event) {
	if len(ev) == 0 {
		return
	}
	fmt.Fprintln(b, "\n  events")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for i, e := range ev {
		if i == maxEvents {
			fmt.Fprintf(tw, "  …\tand %d more in result.json\n", len(ev)-maxEvents)
			break
		}
		fmt.Fprintf(tw, "  %7.1f s\t%s\t%s\n", e.T, e.Kind, truncate(e.Detail, 160))
	}
	_ = tw.Flush()
}

// backup shows the online backup: how it was taken, the workload's pace
// before, during and after, and each restore's verdict.
func backup(b *strings.Builder, bk *result.Backup) {
	if bk == nil {
		return
	}
	fmt.Fprintf(b, "\n  backup  %s\n", BackupLine(bk))
	if len(bk.Windows) > 0 {
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "  \twindow\tseconds\tok\trate/s\tp50\tp99\tmax\t")
		for _, w := range bk.Windows {
			fmt.Fprintf(tw, "  \t%s\t%.1f\t%d\t%s\t%s\t%s\t%s\t\n", w.Name, w.Seconds, w.OK, Rate(w.Rate), Us(w.P50Us), Us(w.P99Us), Us(w.MaxUs))
		}
		_ = tw.Flush()
		if r, ok := WindowRatio(bk, "during", "before"); ok {
			fmt.Fprintf(b, "  during ÷ before: ×%.2f", r)
			if r2, ok := WindowRatio(bk, "after", "before"); ok {
				fmt.Fprintf(b, " · after ÷ before: ×%.2f", r2)
			}
			if r3, ok := WindowRatio(bk, "during", "after"); ok {
				fmt.Fprintf(b, " · during ÷ after: ×%.2f", r3)
			}
			fmt.Fprintln(b)
		}
	}
	for _, r := range bk.Restores {
		fmt.Fprintf(b, "  %s restore %s\n", mark(r.OK), RestoreLine(r))
	}
}

// BackupLine describes a backup in one line.
func BackupLine(bk *result.Backup) string {
	if !bk.Taken {
		if bk.Error != "" {
			return fmt.Sprintf("%s asked at %s into the measure phase: FAILED: %s", bk.Method, seconds(bk.AtSeconds), bk.Error)
		}
		return fmt.Sprintf("%s asked at %s into the measure phase: not taken (%s)", bk.Method, seconds(bk.AtSeconds), bk.Note)
	}
	s := fmt.Sprintf("%s, %s into the measure phase: %.1f–%.1f s of the run (%.2f s), %s, in %s",
		bk.Method, seconds(bk.AtSeconds), bk.StartT, bk.EndT, bk.Seconds, Bytes(float64(bk.Bytes)), bk.Path)
	if bk.Note != "" {
		s += "; " + bk.Note
	}
	return s
}

// WindowRatio is the rate of window a over window b.
func WindowRatio(bk *result.Backup, a, b string) (float64, bool) {
	var ra, rb float64
	var oka, okb bool
	for _, w := range bk.Windows {
		switch w.Name {
		case a:
			ra, oka = w.Rate, w.Seconds > 0
		case b:
			rb, okb = w.Rate, w.Seconds > 0
		}
	}
	if !oka || !okb || rb == 0 {
		return 0, false
	}
	return ra / rb, true
}

// RestoreLine describes a restore and what its check found, in one line.
func RestoreLine(r result.Restore) string {
	var at string
	switch r.Target {
	case result.RestoreToBackup:
		at = "to the backup's consistency point"
	case result.RestoreToEnd:
		at = fmt.Sprintf("rolled forward through every archived log (to %.1f s)", r.TargetT)
	default:
		at = fmt.Sprintf("rolled forward to %.1f s", r.TargetT)
	}
	if r.Error != "" {
		return at + ": FAILED: " + r.Error
	}
	parts := []string{fmt.Sprintf("%s in %.2f s", at, r.Seconds)}
	if r.Ledger {
		parts = append(parts, fmt.Sprintf("%d acknowledged before it, %d lost, %d never committed yet present, %d in flight (either way)", r.Required, r.Lost, r.Phantom, r.Unknown))
	} else {
		parts = append(parts, "no ledger for this workload")
	}
	if r.Integrity != "" {
		parts = append(parts, r.Integrity)
	}
	for _, c := range r.Checks {
		if !c.OK {
			parts = append(parts, "check "+c.Name+" FAILED: "+c.Detail)
		}
	}
	if n := len(r.Checks); n > 0 {
		parts = append(parts, fmt.Sprintf("%d workload checks run", n))
	}
	if r.Note != "" {
		parts = append(parts, r.Note)
	}
	return strings.Join(parts, "; ")
}

func seconds(s float64) string { return fmt.Sprintf("%g s", s) }

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Topology names a cluster's shape unambiguously: "2-chain (primary → r1 →
// r2)", "2-direct (primary → r1, primary → r2)".
func Topology(c *result.Cluster) string {
	var links []string
	for _, n := range c.Nodes {
		if n.Upstream != "" {
			links = append(links, n.Upstream+" → "+n.Name)
		}
	}
	if c.Topology == "2-chain" && len(links) == 2 {
		return "2-chain (primary → r1 → r2)"
	}
	if len(links) == 0 {
		return c.Topology
	}
	return c.Topology + " (" + strings.Join(links, ", ") + ")"
}

// LagSummary says, per replica, the largest replication lag the series saw:
// in bytes, in replay time (PostgreSQL, ZRS) and in transactions (MariaDB's
// GTIDs); and whether a semi-sync primary fell back to asynchronous
// replication (MariaDB).
func LagSummary(r *result.Result) string {
	type peak struct {
		bytes, ms, trx, noTx, off float64
		hasMs, hasTrx, semi       bool
	}
	peaks := map[string]*peak{}
	var names []string
	for _, s := range r.Series {
		for k, v := range s.Lag {
			kind, name, ok := strings.Cut(k, ":")
			if !ok {
				continue
			}
			p := peaks[name]
			if p == nil {
				p = &peak{}
				peaks[name] = p
				names = append(names, name)
			}
			switch kind {
			case "lag_bytes":
				p.bytes = max(p.bytes, v)
			case "replay_lag_ms":
				p.ms, p.hasMs = max(p.ms, v), true
			case "lag_trx":
				p.trx, p.hasTrx = max(p.trx, v), true
			case "semi_sync_no_tx":
				p.noTx, p.semi = max(p.noTx, v), true
			case "semi_sync_off":
				p.off, p.semi = max(p.off, v), true
			}
		}
	}
	slices.Sort(names)
	var parts []string
	for _, n := range names {
		p := peaks[n]
		if p.semi {
			if p.off > 0 || p.noTx > 0 {
				parts = append(parts, fmt.Sprintf("%s's semi-sync FELL BACK to async (%.0f commits waited for no replica)", n, p.noTx))
			} else {
				parts = append(parts, n+"'s semi-sync never fell back to async")
			}
		}
		if !p.hasMs && !p.hasTrx {
			continue
		}
		line := fmt.Sprintf("%s at most %s behind", n, Bytes(p.bytes))
		if p.hasMs {
			line += fmt.Sprintf(", %.1f ms replay lag", p.ms)
		}
		if p.hasTrx {
			line += fmt.Sprintf(", %.0f transactions", p.trx)
		}
		parts = append(parts, line)
	}
	return strings.Join(parts, "; ")
}

// FailoverLine says what a failover cost, in one line.
func FailoverLine(f *result.Failover) string {
	if f.Error != "" && f.KillT == 0 {
		return "FAILED: " + f.Error
	}
	parts := []string{}
	if f.PauseSeconds > 0 {
		parts = append(parts, fmt.Sprintf("primary cut off from its replicas %.1f s before", f.PauseSeconds))
	}
	parts = append(parts, fmt.Sprintf("primary killed at %.1f s (gone in %.2f s)", f.KillT, f.DetectSeconds))
	if f.Promoted != "" {
		parts = append(parts, fmt.Sprintf("%s promoted in %.2f s", f.Promoted, f.PromoteSeconds))
	}
	if f.FirstAckT > 0 {
		parts = append(parts, fmt.Sprintf("writes down %.2f s (last acknowledged at %.2f s, next at %.2f s, %.2f s after the promotion)",
			f.DowntimeSeconds, f.LastAckT, f.FirstAckT, f.ReconnectSeconds))
	} else {
		parts = append(parts, "no write acknowledged after the kill")
	}
	parts = append(parts, fmt.Sprintf("%d of %d acknowledged commits lost", f.Lost, f.Acknowledged))
	if f.Unknown > 0 {
		parts = append(parts, fmt.Sprintf("%d in flight", f.Unknown))
	}
	if f.Phantom > 0 {
		parts = append(parts, fmt.Sprintf("%d never committed yet present", f.Phantom))
	}
	if f.SplitBrain {
		parts = append(parts, "SPLIT BRAIN: more than one server accepts writes")
	}
	if f.Error != "" {
		parts = append(parts, "error: "+f.Error)
	}
	return strings.Join(parts, "; ")
}

// clusterBlock shows a cluster: its shape, its lag, its failover, its end.
func clusterBlock(b *strings.Builder, r *result.Result) {
	c := r.Cluster
	if c == nil {
		return
	}
	fmt.Fprintf(b, "\n  cluster   %s, replication %s", Topology(c), c.Replication)
	for _, n := range c.Nodes {
		if n.Sync {
			fmt.Fprintf(b, " (%s synchronous)", n.Name)
		}
	}
	fmt.Fprintln(b)
	if s := LagSummary(r); s != "" {
		fmt.Fprintf(b, "  lag       %s\n", s)
	}
	if f := c.Failover; f != nil {
		fmt.Fprintf(b, "  failover  %s\n", FailoverLine(f))
	}
	if len(c.Writable) > 0 || len(c.Following) > 0 {
		var follows []string
		for _, n := range c.Nodes {
			if st, ok := c.Following[n.Name]; ok {
				follows = append(follows, n.Name+" "+st)
			}
		}
		fmt.Fprintf(b, "  after     %s\n", strings.Join(append([]string{"accepting writes: " + strings.Join(c.Writable, ", ")}, follows...), "; "))
	}
}

// FailoverSummary says what the failovers of a cell's repeats cost, in one
// line: "0–37 acknowledged commits lost (in 4 of 10 cycles); writes down
// 1.21 s (median, 1.05–1.43 s); promotion 0.12 s (0.11–0.13 s); no split
// brain". "" when no run failed over.
func FailoverSummary(runs []*result.Result) string {
	var lost, down, promote []float64
	lostIn, split, failed := 0, 0, 0
	for _, r := range runs {
		if r.Cluster == nil || r.Cluster.Failover == nil {
			continue
		}
		f := r.Cluster.Failover
		if f.KillT == 0 || f.FirstAckT == 0 {
			failed++
			continue
		}
		lost = append(lost, float64(f.Lost))
		down = append(down, f.DowntimeSeconds)
		promote = append(promote, f.PromoteSeconds)
		if f.Lost > 0 {
			lostIn++
		}
		if f.SplitBrain {
			split++
		}
	}
	n := len(lost)
	if n == 0 && failed == 0 {
		return ""
	}
	var parts []string
	if n > 0 {
		slices.Sort(lost)
		lostLine := fmt.Sprintf("%.0f–%.0f acknowledged commits lost (in %d of %d cycles)", lost[0], lost[n-1], lostIn, n)
		if lostIn == 0 {
			lostLine = fmt.Sprintf("no acknowledged commit lost (%d cycles)", n)
		}
		parts = append(parts, lostLine, "writes down "+spread(down), "promotion "+spread(promote))
		if split > 0 {
			parts = append(parts, fmt.Sprintf("SPLIT BRAIN in %d cycles", split))
		} else {
			parts = append(parts, "no split brain")
		}
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d cycles without a working failover (see their results)", failed))
	}
	return strings.Join(parts, "; ")
}

// spread is a median of seconds with its range: "1.21 s (1.05–1.43 s)".
func spread(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if len(s) == 1 {
		return fmt.Sprintf("%.2f s", med)
	}
	return fmt.Sprintf("%.2f s (median; %.2f–%.2f s)", med, s[0], s[len(s)-1])
}

// faultBlock shows what --fault cost, and the outages the run saw.
func faultBlock(b *strings.Builder, r *result.Result) {
	if f := r.Fault; f != nil {
		fmt.Fprintf(b, "  fault     %s\n", FaultLine(f))
	}
	for _, o := range r.Outages {
		fmt.Fprintf(b, "  outage    %s\n", OutageLine(o))
	}
}

// FaultLine says what a server killed under load cost, in one line.
func FaultLine(f *result.Fault) string {
	switch f.Kind {
	case "partition", "loss", "delay":
		return netFaultLine(f)
	}
	if f.Kind == "pause" {
		if f.StopT == 0 {
			return "not made: " + f.Error
		}
		return fmt.Sprintf("server stopped (SIGSTOP) at %.1f s for %.2f s, as asked %.2f s; %s/s before, %s/s after",
			f.StopT, f.ResumeT-f.StopT, f.PauseSeconds, Rate(f.RateBefore), Rate(f.RateAfter))
	}
	if f.KillT == 0 {
		return "not made: " + f.Error
	}
	parts := []string{fmt.Sprintf("server killed at %.1f s, accepting connections again %.2f s later", f.KillT, f.RecoverySeconds)}
	if f.RecoveryNote != "" {
		parts[0] += " (" + f.RecoveryNote + ")"
	}
	if f.Error != "" {
		parts = append(parts, f.Error)
	}
	if f.DowntimeSeconds > 0 {
		parts = append(parts, fmt.Sprintf("no commit acknowledged for %.2f s", f.DowntimeSeconds))
	}
	parts = append(parts, fmt.Sprintf("%s/s before, %s/s after", Rate(f.RateBefore), Rate(f.RateAfter)))
	if f.Ledger {
		parts = append(parts, fmt.Sprintf("%d of %d acknowledged commits lost, %d in flight", f.Lost, f.Acknowledged, f.Unknown))
		if f.Phantom > 0 {
			parts = append(parts, fmt.Sprintf("%d rows never committed", f.Phantom))
		}
	}
	return strings.Join(parts, "; ")
}

// netFaultLine says what a fault of a cluster's network cost.
func netFaultLine(f *result.Fault) string {
	if f.MadeT == 0 {
		return "not made: " + f.Error
	}
	parts := []string{fmt.Sprintf("%s at %.1f s", f.Net, f.MadeT)}
	switch {
	case f.HealedT > 0:
		parts[0] += fmt.Sprintf(", healed at %.1f s", f.HealedT)
	case f.HealAtSeconds == 0:
		parts[0] += ", left to the end of the run"
	}
	if f.Error != "" {
		parts = append(parts, f.Error)
	}
	if f.DowntimeSeconds >= 0.005 { // a gap that rounds to 0.00 s is none
		parts = append(parts, fmt.Sprintf("no commit acknowledged for %.2f s", f.DowntimeSeconds))
	}
	parts = append(parts, fmt.Sprintf("%s/s before, %s/s after", Rate(f.RateBefore), Rate(f.RateAfter)))
	if f.Ledger {
		parts = append(parts, fmt.Sprintf("%d of %d acknowledged commits lost, %d in flight", f.Lost, f.Acknowledged, f.Unknown))
	}
	return strings.Join(parts, "; ")
}

// OutageLine says when the engine answered no unit, and for how long.
func OutageLine(o result.Outage) string {
	if o.EndT == 0 {
		return fmt.Sprintf("from %.1f s to the end of the run: %d units failed as unavailable", o.StartT, o.Failed)
	}
	return fmt.Sprintf("%.2f s without an answer, from %.1f s to %.1f s: %d units failed as unavailable", o.Seconds, o.StartT, o.EndT, o.Failed)
}
