package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/sqlkv"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// BackupDir is the folder of the result that receives an embedded engine's
// backup.
const BackupDir = "backup"

// backupPlan is --backup: when to take it, and how to check it.
type backupPlan struct {
	at      time.Duration // into the measure phase
	to      time.Duration // a point-in-time restore target into the measure phase; 0: none
	restore bool          // restore it and check it after the run
}

// backupConfig reads --backup at=D[,to=D] and --restore-check.
func (p *Plan) backupConfig(v *knob.Values) error {
	restore, err := v.Bool("restore-check") // refused when wrong, with --backup or without
	if err != nil {
		return err
	}
	spec := v.Get("backup")
	if spec == "" {
		return nil
	}
	const hint = "write it as --backup at=60s, or at=60s,to=4m"
	t, err := moments("backup", spec, hint, "to")
	if err != nil {
		return err
	}
	b := &backupPlan{at: t["at"], to: t["to"]}
	if !p.bspec.Has(backend.OnlineBackup) {
		return knob.Bad("drop --backup, or use "+engines(func(b backend.Spec) bool { return b.Has(backend.OnlineBackup) }), "dbgauge cannot take an online backup of %s", p.bspec.Name)
	}
	if d := p.run.Duration; d > 0 && b.at >= d {
		return knob.Bad(fmt.Sprintf("give at= less than --duration %s", d), "--backup at=%s comes after the measure phase ends", b.at)
	}
	if b.to > 0 && b.to <= b.at {
		return knob.Bad("give to= after at=: the restore rolls the backup forward", "--backup to=%s is not after at=%s", b.to, b.at)
	}
	b.restore = restore
	p.backup = b
	p.bopts.Archive = b.restore
	return nil
}

// backupRun is --backup during one run: the backup taken at its moment of
// the measure phase, and the measure phase's seconds before, during and
// after it.
type backupRun struct {
	plan    *backupPlan
	rec     *result.Backup
	taken   backend.Backup
	wg      sync.WaitGroup
	ended   chan struct{} // closed when the run is over: a backup not yet begun is not taken
	windows [3]*window    // before, during, after; guarded by session.mu
}

// window gathers the seconds of one stretch of the measure phase.
type window struct {
	name       string
	ok, failed int64
	seconds    float64
	hist       *hdrhistogram.Histogram
}

// beforeRun puts --backup's record into the result.
func (b *backupRun) beforeRun(_ context.Context, s *session, _ *run.Config) error {
	if b.plan != nil {
		s.res.Backup = b.rec
	}
	return nil
}

// phaseBegins starts the wait for the backup's moment as the measure phase
// begins.
func (b *backupRun) phaseBegins(s *session, p *metrics.Phase) {
	if b.plan != nil && p.Name == run.Measure {
		s.startBackup(s.runCtx, b, p.Start)
	}
}

// completed restores the backup after a completed run; restores take a
// while, so not after an interrupt.
func (b *backupRun) completed(ctx context.Context, s *session, completed bool, measure, end time.Time) {
	switch {
	case b.plan == nil:
	case completed && !measure.IsZero():
		s.restores(ctx, b, measure, end)
	case !completed && b.plan.restore:
		b.rec.Note = strings.TrimPrefix(b.rec.Note+"; not restored: the run was interrupted", "; ")
	}
}

// startBackup arranges for the backup to be taken p.at into the measure
// phase, which begins now. Called from PhaseBegins.
func (s *session) startBackup(ctx context.Context, b *backupRun, measure time.Time) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		select {
		case <-time.After(time.Until(measure.Add(b.plan.at))):
		case <-b.ended:
			s.mu.Lock()
			b.rec.Note = "the measure phase ended first"
			s.mu.Unlock()
			return
		}
		s.takeBackup(ctx, b)
	}()
}

// takeBackup takes the backup while the workload runs, marking its start
// and end on the time line.
func (s *session) takeBackup(ctx context.Context, b *backupRun) {
	bu, ok := s.db.(backend.Backuper)
	if !ok {
		s.mu.Lock()
		b.rec.Error = "this engine takes no online backup"
		s.mu.Unlock()
		return
	}
	start := time.Now()
	s.mu.Lock()
	b.rec.Start = start.UTC()
	s.mu.Unlock()
	s.event(start, result.EventBackupStarted, "")
	bk, err := bu.Backup(ctx, filepath.Join(s.writer.Dir(), BackupDir))
	end := time.Now()
	s.mu.Lock()
	rec := b.rec
	rec.End, rec.Seconds = end.UTC(), end.Sub(start).Seconds()
	rec.StartT, rec.EndT = start.Sub(s.t0).Seconds(), end.Sub(s.t0).Seconds()
	if err != nil {
		rec.Error = err.Error()
	} else {
		info := bk.Info()
		b.taken, rec.Taken = bk, true
		rec.Method, rec.Path, rec.Bytes, rec.Note = info.Method, info.Path, info.Bytes, info.Note
	}
	s.mu.Unlock()
	if err != nil {
		s.event(end, result.EventBackupFailed, err.Error())
		return
	}
	s.event(end, result.EventBackupEnded, fmt.Sprintf("%.2f s", end.Sub(start).Seconds()))
}

// second adds a second of the measure phase to its window.
func (b *backupRun) second(s *session, p *metrics.Phase, iv *metrics.Interval, _ *result.Second) {
	if b.plan == nil || p.Name != run.Measure {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := 0 // before
	if start := b.rec.Start; !start.IsZero() {
		// A second is "during" when the backup covers at least half of it,
		// or half of the backup lies in it (a backup shorter than a second).
		end, running := b.rec.End, b.rec.End.IsZero()
		if running {
			end = iv.End
		}
		overlap := earliest(iv.End, end).Sub(latest(iv.Start, start))
		span := iv.End.Sub(iv.Start)
		if !running {
			span = min(span, end.Sub(start))
		}
		mid := iv.Start.Add(iv.End.Sub(iv.Start) / 2)
		switch {
		case overlap > 0 && 2*overlap >= span:
			i = 1
		case mid.After(start):
			i = 2
		}
	}
	w := b.windows[i]
	w.ok, w.failed = w.ok+iv.OK(), w.failed+iv.Failed()
	w.seconds += iv.End.Sub(iv.Start).Seconds()
	metrics.Merge(w.hist, iv.All())
}

// runEnded waits for a backup still being taken and records the windows.
func (b *backupRun) runEnded(_ context.Context, s *session, _ *run.Outcome, _ time.Time) {
	if b.plan == nil {
		return
	}
	close(b.ended)
	b.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	b.rec.Windows = b.rec.Windows[:0]
	for _, w := range b.windows {
		rw := result.Window{Name: w.name, Seconds: w.seconds, OK: w.ok, Failed: w.failed}
		if w.seconds > 0 {
			rw.Rate = float64(w.ok) / w.seconds
		}
		if w.hist.TotalCount() > 0 {
			rw.P50Us, rw.P99Us, rw.MaxUs = w.hist.ValueAtQuantile(50), w.hist.ValueAtQuantile(99), metrics.Max(w.hist)
		}
		b.rec.Windows = append(b.rec.Windows, rw)
	}
	if !b.rec.Taken && b.rec.Error == "" && b.rec.Note == "" {
		b.rec.Note = "the run ended before it"
	}
}

// newBackupRun prepares --backup's record; without --backup (p nil) its
// hooks do nothing.
func newBackupRun(p *backupPlan) *backupRun {
	if p == nil {
		return &backupRun{}
	}
	b := &backupRun{plan: p, ended: make(chan struct{}),
		rec: &result.Backup{AtSeconds: p.at.Seconds(), Windows: []result.Window{}, Restores: []result.Restore{}}}
	for i, name := range []string{"before", "during", "after"} {
		b.windows[i] = &window{name: name, hist: metrics.NewHistogram()}
	}
	return b
}

// restores restores the backup to each point it can reach and checks what
// each restored database holds against the ledger, its integrity and, at
// the run's end, the workload's own checks. Each verdict is also a check of
// the run, so a bad restore fails it.
func (s *session) restores(ctx context.Context, b *backupRun, measureStart, runEnd time.Time) {
	if b.taken == nil || !b.plan.restore {
		return
	}
	info := b.taken.Info()
	targets := []backend.RestoreTarget{{Kind: backend.RestoreBackup}}
	if info.RollForward {
		if b.plan.to > 0 {
			if t := measureStart.Add(b.plan.to); t.Before(runEnd) {
				targets = append(targets, backend.RestoreTarget{Kind: backend.RestoreTime, Time: t})
			} else {
				s.obs.Note(fmt.Sprintf("--backup to=%s is past the measure phase's end: not restored", b.plan.to))
			}
		}
		targets = append(targets, backend.RestoreTarget{Kind: backend.RestoreEnd, Time: runEnd})
	}
	for _, to := range targets {
		s.obs.Note("restoring the backup (" + to.Kind + ") and checking it")
		r := s.restore(ctx, b, to)
		s.mu.Lock()
		b.rec.Restores = append(b.rec.Restores, r)
		s.res.Checks = append(s.res.Checks, result.Check{Name: "restore_" + r.Target, OK: r.OK, Detail: restoreDetail(r)})
		s.summarize()
		s.mu.Unlock()
	}
	if err := b.taken.Cleanup(); err != nil {
		s.obs.Note("removing the restored copies: " + err.Error())
	}
}

// restore restores the backup to one point and checks it.
func (s *session) restore(ctx context.Context, b *backupRun, to backend.RestoreTarget) result.Restore {
	r := result.Restore{Target: to.Kind}
	from, until := b.rec.Start, b.rec.End
	if to.Kind != backend.RestoreBackup {
		from, until = to.Time, to.Time
		at := to.Time.UTC()
		r.Time = &at
		r.TargetT = to.Time.Sub(s.t0).Seconds()
	}
	t := time.Now()
	db, err := b.taken.Restore(ctx, to)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer db.Close()
	if sq, ok := db.(backend.SQLDB); ok && s.api == backend.KV {
		db = sqlkv.Wrap(sq)
	}
	// The restore is done when the database answers: the first read.
	led, hasLedger := s.w.(workload.Ledgered)
	var present map[int64]bool
	if hasLedger && s.ledger != nil {
		present, err = led.Present(ctx, db)
	} else {
		_, err = db.Engine(ctx)
	}
	r.Seconds = time.Since(t).Seconds()
	if err != nil {
		r.Error = "the restored database opened but cannot be read: " + err.Error()
		return r
	}
	r.OK = true
	if present != nil {
		v := s.ledger.Verify(present, from, until)
		r.Ledger = true
		r.Present, r.Required, r.Lost, r.LostSample, r.Phantom, r.Unknown = v.Present, v.Required, v.Lost, v.LostSample, v.Phantom, v.Unknown
		r.OK = v.Lost == 0 && v.Phantom == 0
	}
	if ch, ok := db.(backend.Checker); ok {
		ok, detail, err := ch.Integrity(ctx)
		if err != nil {
			detail, ok = "the integrity check failed to run: "+err.Error(), false
		}
		r.Integrity, r.OK = detail, r.OK && ok
	}
	if c, ok := s.w.(workload.Checker); ok && to.Kind == backend.RestoreEnd {
		checks, err := c.Check(ctx, db)
		if err != nil {
			r.Error, r.OK = "the workload's checks failed to run: "+err.Error(), false
		}
		for _, ch := range checks {
			r.Checks = append(r.Checks, result.Check(ch))
			r.OK = r.OK && ch.OK
		}
	}
	return r
}

// restoreDetail says in a line what a restore's check found.
func restoreDetail(r result.Restore) string {
	if r.Error != "" {
		return r.Error
	}
	s := fmt.Sprintf("restored in %.2f s", r.Seconds)
	if r.Ledger {
		s += fmt.Sprintf("; %d acknowledged before the point: %d lost; %d never committed yet present; %d in flight", r.Required, r.Lost, r.Phantom, r.Unknown)
	}
	if r.Integrity != "" {
		s += "; " + r.Integrity
	}
	for _, c := range r.Checks {
		if !c.OK {
			s += "; " + c.Name + " FAILED: " + c.Detail
		}
	}
	return s
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
