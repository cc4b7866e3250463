package session

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/server"
)

// severe are the kinds of log anomaly that are events every time they
// appear; the others are events the first time only (a deadlock logged as
// ERROR every second would bury the rest), and all are counted in the
// result's server_log after the run.
var severe = map[string]bool{"crash": true, "recovery": true, "assertion": true, "panic": true, "bugcheck": true, "corruption": true, "io error": true, "lock manager": true}

// serverLog reads a managed server's log: followed each second while the
// run goes on, its anomalies made events on the time line, and read whole
// after the engine closed into the result's server_log (docs/operations.md).
type serverLog struct {
	rules *server.LogRules
	f     *server.LogFollower
	seen  map[string]bool // kinds already made events
}

func (l *serverLog) opened(_ context.Context, s *session) error {
	srv, ok := s.db.(backend.Server)
	if !ok || s.res.Server == nil {
		return nil
	}
	l.rules = srv.LogRules()
	l.f, l.seen = l.rules.Follow(s.res.Server.Log), map[string]bool{}
	return nil
}

func (l *serverLog) second(s *session, _ *metrics.Phase, _ *metrics.Interval, _ *result.Second) {
	l.follow(s)
}

func (l *serverLog) runEnded(_ context.Context, s *session, _ *run.Outcome, _ time.Time) { l.follow(s) }

func (l *serverLog) closed(s *session) {
	if s.res.Server != nil {
		s.res.ServerLog = scanServerLog(l.rules, *s.res.Server, s.ownLog)
	}
}

// follow turns what the server logged since the last call into events:
// every severe anomaly, and the first of each other kind.
func (l *serverLog) follow(s *session) {
	if l.f == nil {
		return
	}
	now := time.Now()
	for _, a := range l.f.Next() {
		if !severe[a.Kind] && l.seen[a.Kind] {
			continue
		}
		l.seen[a.Kind] = true
		what := a.Kind
		if a.Count > 1 {
			what = fmt.Sprintf("%s ×%d", a.Kind, a.Count)
		}
		s.event(now, result.EventServerLog, fmt.Sprintf("%s (line %d): %s", what, a.FirstLine, a.Sample))
	}
}

// scanServerLog reads a managed server's log (kept in the result folder) for
// anomalies, or returns nil when the engine has no rules. The
// bytes from skip to until are what dbgauge's own crash-recovery test made
// the server write (a crash, a recovery): not anomalies of the run.
func scanServerLog(rules *server.LogRules, info result.Server, own []logSpan) *result.ServerLog {
	if rules == nil || info.Log == "" {
		return nil
	}
	text, err := os.ReadFile(info.Log)
	if err != nil {
		return nil
	}
	for _, sp := range own {
		if sp.to <= sp.from || sp.to > int64(len(text)) {
			continue
		}
		// Blank the lines, keep the newlines: line numbers stay true.
		for i := sp.from; i < sp.to; i++ {
			if text[i] != '\n' {
				text[i] = ' '
			}
		}
	}
	sl := &result.ServerLog{Path: info.Log, Lines: strings.Count(string(text), "\n"), Anomalies: []result.LogAnomaly{}}
	for _, a := range rules.Scan(string(text)) {
		sl.Anomalies = append(sl.Anomalies, result.LogAnomaly(a))
	}
	return sl
}
