package session

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Debugger is an Observer that also prints the lines a workload's scripts
// ask for (pgbench's debug(), on stderr as pgbench prints them). Debug is
// called from the clients' goroutines, several at once, inside the units'
// time: it must be safe for that, and quick.
type Debugger interface {
	Debug(line string)
}

// debugLines hands a workload that prints lines of its own
// (workload.Debugged) the Observer's Debug, before the clients start.
type debugLines struct{}

func (debugLines) beforeRun(_ context.Context, s *session, _ *run.Config) error {
	w, ok := s.w.(workload.Debugged)
	if !ok {
		return nil
	}
	if d, ok := s.obs.(Debugger); ok {
		w.SetDebug(d.Debug)
	}
	return nil
}
