package redis

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestLogRules: the kinds of trouble Redis's log shows, on lines as Redis
// 7.0 writes them; the warnings every start and stop makes left out.
func TestLogRules(t *testing.T) {
	text := "12:C 29 Nov 2026 12:00:00.000 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n" +
		"12:M 29 Nov 2026 12:00:00.001 # WARNING Memory overcommit must be enabled! Without it, a background save may fail.\n" +
		"12:M 29 Nov 2026 12:00:00.002 * Ready to accept connections\n" +
		"12:M 29 Nov 2026 12:00:01.000 # !!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!\n" +
		"12:M 29 Nov 2026 12:00:01.001 # AOF loaded anyway because aof-load-truncated is enabled\n" +
		"12:M 29 Nov 2026 12:00:02.000 * Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.\n" +
		"12:M 29 Nov 2026 12:00:03.000 # Bad file format reading the append only file appendonly.aof.1.incr.aof\n" +
		"12:M 29 Nov 2026 12:00:04.000 # User requested shutdown...\n" +
		"12:M 29 Nov 2026 12:00:05.000 # Redis is now ready to exit, bye bye...\n"
	backendtest.LogKinds(t, LogRules, text, map[string]int{"recovery": 2, "io": 1, "corruption": 1})
}
