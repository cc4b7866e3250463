package session

import (
	"context"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
)

// A session is a fixed pipeline of phases (session.go): open the engine
// and read it back, load, run (warm up and measure), check, judge, record.
// Everything else it does is an extension, each in a file of its own that
// owns its knobs' effect, its hooks into the phases and its part of the
// result: the flush ceiling and the durability verdict (ceiling.go), the
// settings changed on a server of the user's and set back (changes.go), the
// server log followed as events (serverlog.go), --dataset (dataset.go),
// cold caches and checkpoints (caches.go), --backup and its restores
// (backup.go), a cluster and --failover (cluster.go), --log-units
// (unitlog.go), series.csv and latency.hlog (outputs.go), --fault and the
// outages a run sees (fault.go), dbgauge's own
// cost (harness.go), the machine's side of every second (telemetry.go), the crash-recovery timing (recovery.go), the lines a
// script prints with debug() (debug.go). An extension implements only the hooks of the phases it
// takes part in; adding the next capability is one new file and one line
// in newExtensions. The session calls the hooks in the order of that list.

// The hooks, in the order the pipeline reaches them.
type (
	// openedHook: the engine is open and read back (s.db, s.res.Engine,
	// s.res.Server), before anything is loaded.
	openedHook interface {
		opened(ctx context.Context, s *session) error
	}
	// beforeLoadHook: just before the workload loads its data.
	beforeLoadHook interface {
		beforeLoad(ctx context.Context, s *session) error
	}
	// loadedHook: the data is loaded and the ids it holds marked; it may
	// hand back the DB the clients are to use (an engine reopened).
	loadedHook interface {
		loaded(ctx context.Context, s *session, db backend.DB) (backend.DB, error)
	}
	// beforeRunHook: just before the clients start; it may change the
	// run engine's configuration.
	beforeRunHook interface {
		beforeRun(ctx context.Context, s *session, cfg *run.Config) error
	}
	// phaseHook: a phase of the run (warm-up, measure) begins.
	phaseHook interface {
		phaseBegins(s *session, p *metrics.Phase)
	}
	// secondHook: a second of the run closed; sec is its point of the
	// series, not yet recorded. Called without s.mu: take it to touch s.res.
	secondHook interface {
		second(s *session, p *metrics.Phase, iv *metrics.Interval, sec *result.Second)
	}
	// pointHook: a point was added to the series (a second, or an
	// --interval), with s.mu held.
	pointHook interface {
		point(s *session, pt result.Second)
	}
	// runEndedHook: the clients have stopped at end and the server is no
	// longer watched; out is nil when the run engine failed.
	runEndedHook interface {
		runEnded(ctx context.Context, s *session, out *run.Outcome, end time.Time)
	}
	// checkHook: after the workload's own checks, unless the run was
	// abandoned.
	checkHook interface {
		check(ctx context.Context, s *session, db backend.DB)
	}
	// completedHook: after the checks; completed says whether the run
	// ended as planned (slow work, restores and restarts, is skipped after
	// an interrupt). measure and end bound the measure phase.
	completedHook interface {
		completed(ctx context.Context, s *session, completed bool, measure, end time.Time)
	}
	// judgeHook: after --require is judged.
	judgeHook interface {
		judge(s *session)
	}
	// closingHook: the engine is about to close, whatever happened before.
	closingHook interface {
		closing(s *session)
	}
	// closedHook: the engine is closed; s.res.Server, when there is one,
	// holds what the server said last.
	closedHook interface {
		closed(s *session)
	}
)

// newExtensions lists the session's extensions for plan p, in the order
// their hooks run.
func newExtensions(p *Plan) []any {
	return []any{
		&flushCeiling{},
		&serverChanges{},
		&datasetSizing{},
		&coldCaches{},
		newBackupRun(p.backup),
		&clusterRun{plan: p.failover},
		&faultRun{plan: p.fault},
		&profileRun{},
		&capacitySearch{},
		&unitLogger{},
		&outputs{},
		&harness{},
		&telemetry{off: !p.telemetry},
		&recovery{},
		&serverLog{}, // after recovery: it leaves out what recovery made the server log
		newSharding(p.shard),
		debugLines{},
	}
}

// hooks returns the extensions that implement hook H, in order.
func hooks[H any](s *session) []H {
	var out []H
	for _, e := range s.exts {
		if h, ok := e.(H); ok {
			out = append(out, h)
		}
	}
	return out
}
