package session

import (
	"fmt"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/server"
)

// event puts a moment on the run's time line. Safe for concurrent use.
func (s *session) event(at time.Time, kind, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := 0.0
	if !s.t0.IsZero() {
		t = at.Sub(s.t0).Seconds()
	}
	s.res.Events = append(s.res.Events, result.Event{T: t, At: at.UTC(), Kind: kind, Detail: detail})
}

// severe are the kinds of log anomaly that are events every time they
// appear; the others are events the first time only (a deadlock logged as
// ERROR every second would bury the rest), and all are counted in the
// result's server_log after the run.
var severe = map[string]bool{"crash": true, "recovery": true, "assertion": true, "panic": true, "bugcheck": true, "corruption": true, "io error": true, "lock manager": true}

// logTail follows a managed server's log while the run goes on.
type logTail struct {
	f    *server.LogFollower
	seen map[string]bool // kinds already made events
}

// newLogTail follows the log from its current end, or returns nil when
// the engine has no rules for its log.
func newLogTail(rules *server.LogRules, info result.Server) *logTail {
	f := rules.Follow(info.Log)
	if f == nil {
		return nil
	}
	return &logTail{f: f, seen: map[string]bool{}}
}

// followLog turns what the server logged since the last call into events:
// every severe anomaly, and the first of each other kind.
func (s *session) followLog() {
	if s.tail == nil {
		return
	}
	now := time.Now()
	for _, a := range s.tail.f.Next() {
		if !severe[a.Kind] && s.tail.seen[a.Kind] {
			continue
		}
		s.tail.seen[a.Kind] = true
		what := a.Kind
		if a.Count > 1 {
			what = fmt.Sprintf("%s ×%d", a.Kind, a.Count)
		}
		s.event(now, result.EventServerLog, fmt.Sprintf("%s (line %d): %s", what, a.FirstLine, a.Sample))
	}
}
