package session

import (
	"context"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/result"
)

// serverChanges records the server-wide settings the engine changed on a
// server of the user's (backend.Changer: MariaDB's SET GLOBAL) as soon as
// it is open, none of them restored yet, so that a result left by a
// dbgauge that died says what it left changed; and again once the engine
// has closed, each set back or why not (docs/knobs.md).
type serverChanges struct{}

func (serverChanges) opened(_ context.Context, s *session) error {
	if changes := recordChanges(s); len(changes) > 0 {
		s.obs.Note("changed on the server until the run ends: " + strings.Join(changes, ", "))
	}
	return nil
}

func (serverChanges) closed(s *session) {
	recordChanges(s)
	var restored, not []string
	for _, c := range s.res.Changed {
		if c.Restored {
			restored = append(restored, c.Key+"="+c.Was)
		} else {
			not = append(not, c.Key+" ("+c.Err+")")
		}
	}
	if len(restored) > 0 {
		s.obs.Note("set back on the server: " + strings.Join(restored, ", "))
	}
	if len(not) > 0 {
		s.obs.Note("NOT set back on the server: " + strings.Join(not, ", "))
	}
}

// recordChanges copies the engine's changes into the result and returns
// them as "key was → set".
func recordChanges(s *session) []string {
	c, ok := s.db.(backend.Changer)
	if !ok {
		return nil
	}
	var words []string
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Changed = s.res.Changed[:0]
	for _, ch := range c.Changes() {
		s.res.Changed = append(s.res.Changed, result.Change(ch))
		words = append(words, ch.Key+" "+ch.Was+" → "+ch.Set)
	}
	return words
}
