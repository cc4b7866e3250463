package mariadb

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestLogRules: the kinds of trouble the engine's log shows, the harmless
// lines left out.
func TestLogRules(t *testing.T) {
	text := "2026-11-22 0 [Note] InnoDB: ready\n2026-11-22 0 [ERROR] InnoDB: Unable to lock ./ibdata1\n" +
		"mariadbd got signal 11 ;\n"
	backendtest.LogKinds(t, LogRules, text, map[string]int{"error": 1, "crash": 1})
}
