package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
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
	engine string
	path   string
	off    int64 // bytes read, up to the end of the last whole line
	lines  int   // lines read
	seen   map[string]bool
}

// newLogTail follows the log from its current end, or returns nil when
// dbgauge has no rules for the engine's log.
func newLogTail(info result.Server) *logTail {
	if server.LogEngine(info.Engine) == "" || info.Log == "" {
		return nil
	}
	t := &logTail{engine: info.Engine, path: info.Log, seen: map[string]bool{}}
	if b, err := os.ReadFile(info.Log); err == nil {
		end := bytes.LastIndexByte(b, '\n') + 1
		t.off, t.lines = int64(end), bytes.Count(b[:end], []byte("\n"))
	}
	return t
}

// read returns the anomalies of the lines written since the last read that
// make events: every severe one, and the first of each other kind.
func (t *logTail) read() []server.Anomaly {
	f, err := os.Open(t.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(t.off, io.SeekStart); err != nil {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return nil
	}
	end := bytes.LastIndexByte(b, '\n') + 1
	if end == 0 {
		return nil
	}
	chunk := b[:end]
	var out []server.Anomaly
	for _, a := range server.ScanLog(t.engine, string(chunk)) {
		a.FirstLine += t.lines
		if severe[a.Kind] || !t.seen[a.Kind] {
			out = append(out, a)
		}
		t.seen[a.Kind] = true
	}
	t.off += int64(end)
	t.lines += bytes.Count(chunk, []byte("\n"))
	return out
}

// followLog turns what the server logged since the last call into events.
func (s *session) followLog() {
	if s.tail == nil {
		return
	}
	now := time.Now()
	for _, a := range s.tail.read() {
		what := a.Kind
		if a.Count > 1 {
			what = fmt.Sprintf("%s ×%d", a.Kind, a.Count)
		}
		s.event(now, result.EventServerLog, fmt.Sprintf("%s (line %d): %s", what, a.FirstLine, a.Sample))
	}
}
