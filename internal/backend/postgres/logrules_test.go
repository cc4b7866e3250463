package postgres

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestLogRules: the kinds of trouble the engine's log shows, the harmless
// lines left out.
func TestLogRules(t *testing.T) {
	text := "2026-11-22 LOG:  database system is ready\n" +
		"2026-11-22 ERROR:  deadlock detected\n2026-11-22 ERROR:  deadlock detected\n" +
		"2026-11-22 FATAL:  the database system is starting up\n" +
		"2026-11-22 LOG:  server process (PID 42) was terminated by signal 9: Killed\n" +
		"2026-11-22 PANIC:  could not write to file\n"
	backendtest.LogKinds(t, LogRules, text, map[string]int{"error": 2, "crash": 1, "panic": 1})
}
