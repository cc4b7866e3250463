package session

import (
	"context"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/result"
)

// recovery times a managed server's crash recovery after a completed run
// (--crash-recovery): a kill -9, then the restart to the first accepted
// connection. What the deliberate crash made the server log is marked in
// s.ownLog, so that the server log's reading leaves it out.
type recovery struct {
	seconds float64
	note    string
}

func (r *recovery) completed(ctx context.Context, s *session, completed bool, _, _ time.Time) {
	if completed {
		r.run(ctx, s)
	}
}

// run kills the server and times its restart.
func (r *recovery) run(ctx context.Context, s *session) {
	rc, ok := s.db.(backend.Recoverer)
	if !ok {
		return
	}
	if !s.recoveryOn {
		r.note = "--crash-recovery=false"
		return
	}
	if s.res.Cluster != nil && s.res.Cluster.Failover != nil {
		r.note = "the primary was failed over"
		return
	}
	s.obs.Note("killing the server (SIGKILL) and timing its crash recovery")
	kill, back, err := s.crashOnPurpose(ctx, rc, nil)
	if err != nil {
		r.note = "the server did not come back: " + err.Error()
		s.res.Checks = append(s.res.Checks, result.Check{Name: "crash_recovery", Detail: r.note})
		s.summarize()
		return
	}
	r.seconds = back.Sub(kill).Seconds()
}

// closed records the recovery in the server's record.
func (r *recovery) closed(s *session) {
	if s.res.Server == nil {
		return
	}
	s.res.Server.RecoverySeconds = r.seconds
	if r.note != "" {
		s.res.Server.RecoveryNote = r.note
	}
}
