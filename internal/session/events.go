package session

import (
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
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
