package session

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/sqlkv"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Loaded is what dbgauge load did.
type Loaded struct {
	Engine  backend.Engine
	Dataset workload.Dataset
	Seconds float64 // the workload's Load, timed here
	Note    string  // what becomes of the data
}

// LoadOnly opens the engine, runs only the workload's Load (no clients, no
// measure phase) and closes it, leaving the dataset where the next run with
// the same --db and dataset knobs reuses it. progress, when the workload
// reports it (workload.Progresser), hears how far it got. A throwaway
// embedded --db is refused: nothing could reuse it. postgres:managed is
// allowed, to time the load; its server is removed afterwards.
func (p *Plan) LoadOnly(ctx context.Context, progress func(done, total int64), note func(string)) (Loaded, error) {
	var out Loaded
	db := p.bopts.DB
	managed := p.bspec.Managed(db)
	if db == p.bspec.Throwaway && !managed {
		return out, knob.Bad(fmt.Sprintf("give a path the next run reuses, e.g. --db %s:/data/%s.db", p.bspec.Name, p.wspec.Name),
			"--db %s is a throwaway database: the load would be lost", db)
	}
	d, eng, done, err := p.openOnly(ctx)
	if err != nil {
		return out, err
	}
	defer done()
	out.Engine = eng
	if pr, ok := p.w.(workload.Progresser); ok && progress != nil {
		pr.SetProgress(progress)
	}
	note(fmt.Sprintf("loading %s data into %s %s", p.wspec.Name, out.Engine.Name, out.Engine.Version))
	t := time.Now()
	if out.Dataset, err = p.w.Load(ctx, d); err != nil {
		return out, fmt.Errorf("load: %w", err)
	}
	out.Seconds = time.Since(t).Seconds()
	out.Note = "the dataset stays in " + p.config.DB + ": a run with the same --db and dataset knobs reuses it"
	if managed {
		out.Note = "the managed server is throwaway: its data was removed with it (load into a server of yours, --db postgres://…, to reuse it)"
	}
	return out, nil
}

// openOnly opens the engine outside a run (no result folder: a temporary
// one for an embedded throwaway or a managed server) and returns it as
// the workload speaks to it, its settings read back, and what closes it.
func (p *Plan) openOnly(ctx context.Context) (backend.DB, backend.Engine, func(), error) {
	var eng backend.Engine
	dir, err := os.MkdirTemp("", "dbgauge-load-")
	if err != nil {
		return nil, eng, nil, err
	}
	fail := func(err error) (backend.DB, backend.Engine, func(), error) {
		os.RemoveAll(dir)
		return nil, eng, nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil { // a managed server's account makes its folders inside
		return fail(err)
	}
	o := p.bopts
	o.Dir, o.DataDir = dir, ""
	if p.dataDir != "" {
		o.DataDir = dir
	}
	h, err := p.bspec.Open(ctx, o)
	if err != nil {
		return fail(err)
	}
	done := func() { h.Close(); os.RemoveAll(dir) }
	if eng, err = h.Engine(ctx); err != nil {
		done()
		return nil, eng, nil, fmt.Errorf("read back %s settings: %w", p.bspec.Name, err)
	}
	d := h
	if sq, ok := h.(backend.SQLDB); ok && p.api == backend.KV {
		d = sqlkv.Wrap(sq)
	}
	return d, eng, done, nil
}

// CheckOnly opens the engine and runs only the workload's consistency
// checks on the data it holds (dbgauge check: a workload file's checks
// after another tool ran on the database).
func (p *Plan) CheckOnly(ctx context.Context) ([]workload.Check, backend.Engine, error) {
	ck, ok := p.w.(workload.Checker)
	if !ok {
		return nil, backend.Engine{}, knob.Bad("give a workload file whose [[check]]s to run", "%s has no checks of its own to run", p.wspec.Name)
	}
	d, eng, done, err := p.openOnly(ctx)
	if err != nil {
		return nil, eng, err
	}
	defer done()
	checks, err := ck.Check(ctx, d)
	return checks, eng, err
}

// WorkloadView is db as a workload that speaks only key-value sees it: a
// SQL engine through its kv_ tables (sqlkv), as a run gives it; db itself
// otherwise. dbgauge crash reads a reopened database with it.
func WorkloadView(spec workload.Spec, db backend.DB) backend.DB {
	if sq, ok := db.(backend.SQLDB); ok && !slices.Contains(spec.APIs, backend.SQL) {
		return sqlkv.Wrap(sq)
	}
	return db
}
