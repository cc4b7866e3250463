package upgrade

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// verify holds the upgraded database to the old version's run: every id
// the ledger says was acknowledged (none lost, none that no commit made),
// the workload's checks against what that run acknowledged and, without a
// ledger, each table's rows.
func (c *Controller) verify(ctx context.Context, um *result.UpgradeMethod, db backend.DB, bk *ledger.Book, w workload.Workload) {
	if eng, err := db.Engine(ctx); err == nil {
		um.ToVersion = eng.Version
	}
	view := session.WorkloadView(c.Workload, db)
	if led, ok := w.(workload.Ledgered); ok && bk != nil {
		present, err := led.Present(ctx, view)
		if err != nil {
			um.Failed = appendLine(um.Failed, "the upgraded database's ids cannot be read: "+err.Error())
		} else {
			// Every client had finished: any moment after the run is the point.
			now := time.Now()
			v := bk.Verify(present, now, now)
			acked, _ := bk.Counts()
			um.Ledger = &result.UpgradeLedger{Acknowledged: acked, Required: v.Required, Present: v.Present, Lost: v.Lost,
				LostSample: v.LostSample, Phantom: v.Phantom, Unknown: v.Unknown}
			um.Checks = append(um.Checks, result.Check{Name: "ledger", OK: v.Lost == 0 && v.Phantom == 0,
				Detail: fmt.Sprintf("%d acknowledged on the old version: %d lost; %d present that no commit made; %d in flight", v.Required, v.Lost, v.Phantom, v.Unknown)})
		}
	}
	if ch, ok := w.(workload.Checker); ok {
		checks, err := ch.Check(ctx, view)
		if err != nil {
			um.Checks = append(um.Checks, result.Check{Name: "checks", OK: false, Detail: "the workload's checks failed to run: " + err.Error()})
		}
		for _, k := range checks {
			um.Checks = append(um.Checks, result.Check(k))
		}
	}
	if um.RowsBefore != nil {
		um.Checks = append(um.Checks, c.rows(ctx, um, db))
	}
	for _, k := range um.Checks {
		if !k.OK {
			um.Failed = appendLine(um.Failed, "after the upgrade, "+k.Name+" FAILED: "+k.Detail)
		}
	}
}

// rows counts each table's rows on the upgraded database and holds them to
// the counts before.
func (c *Controller) rows(ctx context.Context, um *result.UpgradeMethod, db backend.DB) result.Check {
	up := db.(backend.Upgrader) // upgraded through it
	after, err := up.RowCounts(ctx)
	if err != nil {
		return result.Check{Name: "rows_kept", Detail: "count the rows after the upgrade: " + err.Error()}
	}
	um.RowsAfter = after
	var diff []string
	var total int64
	for _, t := range slices.Sorted(maps.Keys(um.RowsBefore)) {
		total += um.RowsBefore[t]
		if a, ok := after[t]; !ok || a != um.RowsBefore[t] {
			diff = append(diff, fmt.Sprintf("%s %d, before %d", t, a, um.RowsBefore[t]))
		}
	}
	for t := range after {
		if _, ok := um.RowsBefore[t]; !ok {
			diff = append(diff, t+" is new")
		}
	}
	if len(diff) > 0 {
		return result.Check{Name: "rows_kept", Detail: strings.Join(diff, "; ")}
	}
	return result.Check{Name: "rows_kept", OK: true, Detail: fmt.Sprintf("%d tables, %d rows, each table's count as before", len(after), total)}
}

// compare sets the new version's run beside the old one's: analysis.Diff
// on each headline metric, worded by analysis.Verdict.
func (c *Controller) compare(um *result.UpgradeMethod) error {
	a, err := result.Load(filepath.Join(c.Dir, um.Before))
	if err != nil {
		return err
	}
	b, err := result.Load(filepath.Join(c.Dir, um.After))
	if err != nil {
		return err
	}
	metrics := analysis.MetricsFor(a.Summary.Metric)
	ga := analysis.NewGroup("", nil, []*result.Result{a}, []string{um.Before}, metrics)
	gb := analysis.NewGroup("", nil, []*result.Result{b}, []string{um.After}, metrics)
	um.Compare = um.Compare[:0]
	for _, m := range metrics {
		d := analysis.Diff(ga, gb, m.Key, c.Seed)
		um.Compare = append(um.Compare, result.UpgradeDiff{Metric: m.Key, Label: m.Label, Before: ga.Stats[m.Key].Mean, After: gb.Stats[m.Key].Mean,
			Ratio: d.Ratio, Lo: d.Lo, Hi: d.Hi, Method: d.Method, Verdict: analysis.Verdict(d, m)})
	}
	return nil
}

// Summarize says in one line what a method's rehearsal found.
func Summarize(um *result.UpgradeMethod) string {
	var parts []string
	if len(um.Steps) > 0 {
		var steps []string
		for _, s := range um.Steps {
			mark := ""
			if s.Window {
				mark = "*"
			}
			steps = append(steps, fmt.Sprintf("%s%s %.2f s", mark, s.Name, s.Seconds))
		}
		parts = append(parts, fmt.Sprintf("window %.2f s (%s; * in the window)", um.WindowSeconds, strings.Join(steps, ", ")))
	}
	if l := um.Ledger; l != nil {
		parts = append(parts, fmt.Sprintf("%d acknowledged, %d lost, %d phantom, %d in flight", l.Required, l.Lost, l.Phantom, l.Unknown))
	}
	if len(um.Checks) > 0 {
		failed := 0
		for _, k := range um.Checks {
			if !k.OK {
				failed++
			}
		}
		if failed == 0 {
			parts = append(parts, fmt.Sprintf("%d checks held", len(um.Checks)))
		} else {
			parts = append(parts, fmt.Sprintf("%d of %d checks FAILED", failed, len(um.Checks)))
		}
	}
	for _, d := range um.Compare {
		switch {
		case d.Metric != "rate" && d.Metric != "p99_us":
		case d.Method == "none" || d.Method == "figures": // no interval to show
			parts = append(parts, fmt.Sprintf("%s ×%.2f %s", d.Label, d.Ratio, d.Verdict))
		default:
			parts = append(parts, fmt.Sprintf("%s ×%.2f [%.2f, %.2f] %s", d.Label, d.Ratio, d.Lo, d.Hi, d.Verdict))
		}
	}
	if um.Failed != "" {
		parts = append(parts, "FAILED: "+um.Failed)
	}
	if um.Error != "" {
		parts = append(parts, "NOT RUN to its end: "+um.Error)
	}
	return strings.Join(parts, "; ")
}
