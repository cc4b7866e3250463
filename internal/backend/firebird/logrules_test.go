package firebird

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestLogRules: the kinds of trouble the engine's log shows, the harmless
// lines left out.
func TestLogRules(t *testing.T) {
	text := "vm\tSun Nov 22 2026\n\tsetsockopt: error setting IPV6_V6ONLY to 0\n" +
		"vm\tSun Nov 22 2026\n\tINET/inet_error: read errno = 104\n" +
		"\tinternal Firebird consistency check (wrong record length (183), file: vio.cpp line: 1380)\n" +
		"\tPage type 4 lock denied\n\tPage type 5 lock denied\n" +
		"\tI/O error during \"read\" operation for file \"/db/fb_table_x\"\n"
	backendtest.LogKinds(t, LogRules, text, map[string]int{"bugcheck": 1, "lock denied": 2, "io error": 1})
}
