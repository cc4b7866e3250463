package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/sqlkv"
	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// coldCaches clears the engine's caches between the load and the clients
// for a workload that measures cold caches, and reports a checkpointed
// workload's throughput at its moments.
type coldCaches struct{}

func (coldCaches) loaded(ctx context.Context, s *session, db backend.DB) (backend.DB, error) {
	if cs, ok := s.w.(workload.ColdStarter); ok && cs.ColdStart() {
		return s.clearCaches(ctx, db)
	}
	return db, nil
}

func (coldCaches) check(_ context.Context, s *session, _ backend.DB) {
	if cp, ok := s.w.(workload.Checkpointed); ok {
		s.checkpoints(cp.Checkpoints())
	}
}

// clearCaches empties the engine's caches between the load and the clients
// (workload.ColdStarter: objects --phase cold): a managed server is
// restarted (backend.Restarter), an embedded engine closed and opened
// again, then the OS page cache is dropped where permitted (root). It
// returns the DB the clients use (the wrapped one, opened again), and
// records what was done in the dataset's facts, as caches_cleared.
func (s *session) clearCaches(ctx context.Context, db backend.DB) (backend.DB, error) {
	var how []string
	r, restarts := s.db.(backend.Restarter)
	switch {
	case restarts:
		s.obs.Note("restarting the server: cold caches")
		if err := r.Restart(ctx); err != nil {
			return db, fmt.Errorf("restart the server for cold caches: %w", err)
		}
		how = append(how, "server restarted (clean shutdown): its own caches empty")
	case s.res.Server != nil:
		how = append(how, "server not restarted: dbgauge cannot restart "+s.bspec.Name+" cleanly, its own caches stay warm")
	case s.res.Engine.Path == "":
		how = append(how, "server not restarted: it is not dbgauge's, its own caches stay warm")
	default:
		if err := s.db.Close(); err != nil {
			return db, fmt.Errorf("close %s for cold caches: %w", s.bspec.Name, err)
		}
		s.db = nil
		ndb, err := s.bspec.Open(ctx, s.bopts)
		if err != nil {
			return db, fmt.Errorf("open %s again for cold caches: %w", s.bspec.Name, err)
		}
		s.db, db = ndb, ndb
		if sq, ok := ndb.(backend.SQLDB); ok && s.api == backend.KV {
			db = sqlkv.Wrap(sq)
		}
		how = append(how, "engine closed and opened again: its own caches empty")
	}
	how = append(how, "OS page cache "+disk.DropPageCache())
	if s.res.Dataset.Facts == nil {
		s.res.Dataset.Facts = map[string]string{}
	}
	s.res.Dataset.Facts["caches_cleared"] = strings.Join(how, "; ")
	s.obs.Note("cold caches: " + s.res.Dataset.Facts["caches_cleared"])
	return db, nil
}

// checkpoints reports the throughput of the measure phase's first D at each
// checkpoint D, from the series (seed 003's application test: conferences
// written by 60, 120, 240 and 480 s), as checks that inform and never fail.
func (s *session) checkpoints(at []time.Duration) {
	m := s.res.Phase(run.Measure)
	if m == nil || len(at) == 0 || len(s.res.Phases) == 0 {
		return
	}
	off := m.Start.Sub(s.res.Phases[0].Start).Seconds()
	for _, d := range at {
		var ok int64
		end := 0.0
		for _, p := range s.res.Series {
			if p.Phase != run.Measure || p.T-off > d.Seconds()+0.5 {
				continue
			}
			ok, end = ok+p.OK, p.T-off
		}
		c := result.Check{Name: fmt.Sprintf("throughput_at_%s", d), OK: true}
		if end+0.5 < d.Seconds() || m.Seconds+0.5 < d.Seconds() {
			c.Detail = fmt.Sprintf("not reached: the measure phase lasted %.0f s", m.Seconds)
		} else {
			c.Detail = fmt.Sprintf("%d %s in the first %s: %.1f %s", ok, s.wspec.Units, d, float64(ok)/d.Seconds(), s.wspec.Metric())
		}
		s.res.Checks = append(s.res.Checks, c)
	}
}
