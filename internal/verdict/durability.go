package verdict

import (
	"fmt"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/result"
)

// Margin is how far above the measured ceiling a commit rate may go before it
// is flagged: the ceiling was measured at another moment, on a machine whose
// timings drift.
const Margin = 1.5

// Judge the durability of res: res.Durability holds the data folder's flush
// ceiling; Durability fills in the rates, the verdict and its plain words.
func Durability(res *result.Result) {
	d := res.Durability
	if d == nil {
		return
	}
	d.Clients = res.Config.Clients
	m := res.Phase("measure")
	if len(d.Unlike) > 0 {
		// The settings read back, not the label, say what was run.
		as := "no level of dbgauge's"
		if d.Level != "" {
			as = "--durability " + d.Level
		}
		if res.Config.Durability == string(backend.Sync) {
			d.Verdict = result.Flagged
			d.Detail = fmt.Sprintf("--durability sync, but %s reads back %s: its commits are not flushed as sync's are, whatever their rate; what ran is %s",
				res.Engine.Name, strings.Join(d.Unlike, ", "), as)
			return
		}
		d.Verdict = result.NotDurableByDesign
		d.Detail = fmt.Sprintf("--durability %s, and %s reads back %s: what ran is %s; a crash may lose acknowledged commits",
			res.Config.Durability, res.Engine.Name, strings.Join(d.Unlike, ", "), as)
		return
	}
	if res.Config.Durability != string(backend.Sync) {
		d.Verdict = result.NotDurableByDesign
		d.Detail = fmt.Sprintf("--durability %s: commits are not flushed one by one, so a crash may lose acknowledged commits; nothing to judge", res.Config.Durability)
		return
	}
	if d.Ceiling <= 0 {
		d.Verdict = result.NotMeasurable
		d.Detail = "the data folder's device has no flush ceiling to compare with"
		if len(d.DiskWarning) > 0 {
			d.Detail = d.DiskWarning[0]
		}
		return
	}
	var commits, flushes int64
	var counted, flushCounted bool
	if res.Stats != nil {
		// Writing transactions where the engine tells them apart (read-only
		// ones need no flush), else its commits.
		if commits, counted = res.Stats.Delta["write_xacts"]; !counted {
			commits, counted = res.Stats.Delta["commits"]
		}
		flushes, flushCounted = res.Stats.Delta["flushes"]
	}
	if m == nil || m.Seconds <= 0 || !counted {
		d.Verdict = result.CannotJudge
		d.Detail = fmt.Sprintf("%s does not count its commits", res.Engine.Name)
		return
	}
	d.Commits = float64(commits) / m.Seconds
	if flushCounted {
		d.Flushes = float64(flushes) / m.Seconds
	}
	ratio := d.Commits / d.Ceiling
	perFlush := 0.0
	if flushes > 0 {
		perFlush = float64(commits) / float64(flushes)
	}
	switch {
	case d.Clients == 1 && ratio > Margin:
		// One client waits for each commit's flush before the next: it
		// cannot commit faster than the disk flushes, group commit or not.
		d.Verdict = result.Flagged
		d.Detail = fmt.Sprintf("commits faster than this disk can make durable: %.0f commits/s from one client against %.0f flushes/s (%.1f×): the device or the engine acknowledges writes it has not stored",
			d.Commits, d.Ceiling, ratio)
	case flushCounted && d.Flushes > d.Ceiling*Margin:
		d.Verdict = result.Flagged
		d.Detail = fmt.Sprintf("%s flushed %.0f times/s, %.1f× what this disk can make durable (%.0f flushes/s): the device acknowledges writes it has not stored",
			res.Engine.Name, d.Flushes, d.Flushes/d.Ceiling, d.Ceiling)
	case flushCounted && ratio > Margin && flushes == 0:
		d.Verdict = result.Flagged
		d.Detail = fmt.Sprintf("%.0f commits/s (%.1f× the ceiling of %.0f flushes/s) without a single flush: commits are acknowledged before anything is stored",
			d.Commits, ratio, d.Ceiling)
	case flushCounted && perFlush > float64(d.Clients)*Margin && commits > 100:
		// A synchronous commit waits for the flush that covers it, and each
		// client has one commit in flight: a flush carries at most one
		// commit per client.
		d.Verdict = result.Flagged
		d.Detail = fmt.Sprintf("%.1f commits per flush from %d clients: a flush cannot carry more synchronous commits than there are clients, so commits are acknowledged before they are flushed",
			perFlush, d.Clients)
	case ratio <= Margin && flushes > 0:
		d.Verdict = result.Plausible
		d.Detail = fmt.Sprintf("%.0f commits/s in %.0f flushes/s (%.1f commits per flush), within this disk's ceiling of %.0f flushes/s",
			d.Commits, d.Flushes, perFlush, d.Ceiling)
	case ratio <= Margin:
		d.Verdict = result.Plausible
		d.Detail = fmt.Sprintf("%.0f commits/s, %.2f× this disk's ceiling of %.0f flushes/s", d.Commits, ratio, d.Ceiling)
	case flushCounted:
		d.Verdict = result.Plausible
		d.Detail = fmt.Sprintf("%.0f commits/s from %d clients, %.1f× the ceiling of %.0f flushes/s, made in %.0f flushes/s: group commit, %.1f commits per flush",
			d.Commits, d.Clients, ratio, d.Ceiling, d.Flushes, perFlush)
	default:
		d.Verdict = result.CannotJudge
		d.Detail = fmt.Sprintf("%.0f commits/s from %d clients is %.1f× the single-flush ceiling of %.0f/s, which group commit can explain, and %s does not count its flushes",
			d.Commits, d.Clients, ratio, d.Ceiling, res.Engine.Name)
	}
	if flushCounted && d.FlushSource != "" {
		d.Detail += "; flushes counted: " + d.FlushSource
	}
	if d.Verdict == result.Plausible && len(d.DiskWarning) > 0 {
		d.Detail += "; but the ceiling itself is not proof: " + d.DiskWarning[0]
	}
}
