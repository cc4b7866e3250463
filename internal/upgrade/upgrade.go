// Package upgrade rehearses an engine's upgrade (dbgauge upgrade): for each
// method, a fresh managed server of the old version loads and runs the
// workload (its ledger on, where it records one), is upgraded in place
// (backend.Upgrader), and the upgraded database is held to what the old
// version acknowledged before the workload runs again, as long, on the new
// version; the two runs are compared as `dbgauge compare` would.
package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Controller runs the methods of one upgrade folder.
type Controller struct {
	Workload workload.Spec
	// Values returns the run's knobs as the user gave them, a fresh copy
	// each call; the controller sets --db, --results and the crash-recovery
	// test (off: a kill would put the old version's commits on trial, not
	// the upgrade) on it.
	Values   func() *knob.Values
	Args     []string // the command line, for each run's record
	From, To string   // the managed forms
	Dir      string   // the upgrade folder
	Ledgered bool     // the workload records a ledger
	Seed     uint64   // the comparisons' bootstrap
	Log      func(string)
	// Observer is the observer of each run's session.
	Observer func(p *session.Plan) session.Observer
	// Bad is the bad input the engine found as the first run opened it (a
	// setting it does not know), which ends the rehearsal: Run returns it.
	Bad error
}

// ErrInterrupted: a stop came; what was found is in the record.
var ErrInterrupted = errors.New("interrupted")

// Plan validates one run of the rehearsal: on the old version, with the
// ledger bk (nil: none), kept open for the upgrade; or, to, on the new
// one, with the upgraded engine (nil to validate only). Its errors are bad
// input.
func (c *Controller) Plan(id string, to bool, bk *ledger.Book, engine backend.DB, upgraded *result.Upgraded) (*session.Plan, error) {
	v := c.Values()
	db := c.From
	if to {
		db = c.To
	}
	v.Set("db", db)
	v.Set("results", c.Dir)
	v.Set("crash-recovery", "false")
	req := session.Request{Workload: c.Workload, Values: v, Args: c.Args, ResultID: id, Keep: !to, Engine: engine, Upgraded: upgraded}
	if bk != nil {
		req.Ledger = bk
	}
	return session.NewPlan(req)
}

// Run rehearses each method in turn, saving rec as it goes. A stop ends it
// after the run under way (ErrInterrupted).
func (c *Controller) Run(ctx context.Context, rec *result.Upgrade, methods []string, stop <-chan struct{}) error {
	for _, m := range methods {
		select {
		case <-stop:
			rec.Status = result.Interrupted
			return errors.Join(ErrInterrupted, c.save(rec))
		default:
		}
		rec.Methods = append(rec.Methods, result.UpgradeMethod{Method: m, Steps: []result.UpgradeStep{}, Checks: []result.Check{}, Compare: []result.UpgradeDiff{}})
		um := &rec.Methods[len(rec.Methods)-1]
		save := func() { _ = c.save(rec) }
		interrupted := c.method(ctx, um, stop, save)
		if c.Bad != nil {
			return c.Bad
		}
		um.Summary = Summarize(um)
		c.Log(m + ": " + um.Summary)
		if err := c.save(rec); err != nil {
			return err
		}
		if interrupted {
			rec.Status = result.Interrupted
			return errors.Join(ErrInterrupted, c.save(rec))
		}
	}
	rec.Status = result.Completed
	return c.save(rec)
}

func (c *Controller) save(rec *result.Upgrade) error {
	rec.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(c.Dir, "."+result.UpgradeFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(c.Dir, result.UpgradeFile))
}

// method rehearses one method: the old version's run, the upgrade, the
// verification, the new version's run and the comparison. It says whether
// a stop came.
func (c *Controller) method(ctx context.Context, um *result.UpgradeMethod, stop <-chan struct{}, save func()) bool {
	var bk *ledger.Book
	if c.Ledgered {
		bk = ledger.New()
	}
	before, db, stopped := c.before(ctx, um, bk, stop)
	if db == nil || stopped {
		if db != nil {
			_ = db.Close()
		}
		return stopped
	}
	save()
	w := before.Workload()
	if !c.upgrade(ctx, um, db, bk, stop) {
		_ = db.Close()
		return chClosed(stop)
	}
	c.verify(ctx, um, db, bk, w)
	save()
	c.Log(fmt.Sprintf("%s: the upgraded database verified; the workload again on %s", um.Method, c.To))
	return c.after(ctx, um, db, stop)
}

// before runs the workload on a fresh server of the old version and keeps
// that server; nil when the run could not be made.
func (c *Controller) before(ctx context.Context, um *result.UpgradeMethod, bk *ledger.Book, stop <-chan struct{}) (*session.Plan, backend.DB, bool) {
	id := "before-" + um.Method
	um.Before = id
	p, err := c.Plan(id, false, bk, nil, nil)
	if err != nil {
		um.Error = "the run on " + c.From + ": " + err.Error()
		return nil, nil, false
	}
	c.Log(fmt.Sprintf("%s: the workload on %s", um.Method, c.From))
	res, err := p.Execute(ctx, stop, c.Observer(p))
	db := p.Kept()
	stopped := chClosed(stop)
	switch {
	case errors.As(err, new(*knob.Error)):
		// Bad input the engine found (an unknown --set): nothing measured.
		c.Bad = err
		um.Error = err.Error()
		return p, db, false
	case err != nil || res == nil:
		um.Error = fmt.Sprintf("the run on %s: %v", c.From, err)
		return p, db, stopped || errors.Is(err, session.ErrInterrupted)
	case res.Status != result.Completed:
		um.Error = fmt.Sprintf("the run on %s ended %s: %s", c.From, res.Status, res.Reason)
		return p, db, stopped
	}
	um.FromVersion = res.Engine.Version
	for _, ch := range res.Checks {
		if !ch.OK {
			um.Failed = appendLine(um.Failed, "before the upgrade, "+ch.Name+" FAILED: "+ch.Detail)
		}
	}
	return p, db, stopped
}

// upgrade upgrades the kept server in place by the method, recording its
// steps and window; false when it could not be made.
func (c *Controller) upgrade(ctx context.Context, um *result.UpgradeMethod, db backend.DB, bk *ledger.Book, stop <-chan struct{}) bool {
	up, ok := db.(backend.Upgrader)
	if !ok {
		um.Error = fmt.Sprintf("%s cannot be upgraded in place", c.From)
		return false
	}
	if !c.Ledgered {
		rows, err := up.RowCounts(ctx)
		if err != nil {
			um.Error = "count the rows before the upgrade: " + err.Error()
			return false
		}
		um.RowsBefore = rows
	}
	c.Log(fmt.Sprintf("%s: upgrading to %s", um.Method, c.To))
	// A stop ends the upgrade too: what it left is a throwaway server's.
	uctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-uctx.Done():
		}
	}()
	start := time.Now()
	steps, err := up.Upgrade(uctx, c.To, um.Method)
	for _, s := range steps {
		um.Steps = append(um.Steps, result.UpgradeStep(s))
		um.StepsSeconds += s.Seconds
		if s.Window {
			um.WindowSeconds += s.Seconds
		}
	}
	if err != nil {
		um.Error = err.Error()
		return false
	}
	if bk != nil {
		if last, _ := bk.AckedAround(start); !last.IsZero() {
			// From the last acknowledgement to the end of the window's last step.
			end := start
			for _, s := range steps {
				end = end.Add(time.Duration(s.Seconds * float64(time.Second)))
				if s.Window {
					um.SinceLastCommit = end.Sub(last).Seconds()
				}
			}
		}
	}
	return true
}

// after runs the workload on the upgraded server (which its session
// closes) as long as before, and compares the two runs.
func (c *Controller) after(ctx context.Context, um *result.UpgradeMethod, db backend.DB, stop <-chan struct{}) bool {
	id := "after-" + um.Method
	verified := "every check held"
	if um.Failed != "" {
		verified = "FAILED: " + um.Failed
	}
	if l := um.Ledger; l != nil {
		verified = fmt.Sprintf("%d acknowledged commits, %d lost; %s", l.Required, l.Lost, verified)
	}
	p, err := c.Plan(id, true, nil, db, &result.Upgraded{From: um.FromVersion, Method: um.Method, WindowSeconds: um.WindowSeconds,
		Verified: verified, Record: filepath.Join("..", result.UpgradeFile)})
	if err != nil {
		_ = db.Close()
		um.Error = "the run on " + c.To + ": " + err.Error()
		return false
	}
	um.After = id
	res, err := p.Execute(ctx, stop, c.Observer(p))
	stopped := chClosed(stop)
	switch {
	case err != nil || res == nil:
		um.Error = fmt.Sprintf("the run on %s: %v", c.To, err)
		return stopped || errors.Is(err, session.ErrInterrupted)
	case res.Status != result.Completed:
		um.Error = fmt.Sprintf("the run on %s ended %s: %s", c.To, res.Status, res.Reason)
		return stopped
	}
	for _, ch := range res.Checks {
		if !ch.OK {
			um.Failed = appendLine(um.Failed, "on "+c.To+", "+ch.Name+" FAILED: "+ch.Detail)
		}
	}
	if err := c.compare(um); err != nil {
		um.Error = "compare the runs: " + err.Error()
		return stopped
	}
	um.OK = um.Error == "" && um.Failed == ""
	return stopped
}

func chClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func appendLine(s, more string) string {
	if s == "" {
		return more
	}
	return s + "; " + more
}
