package zeo

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
)

// TestLogRules: the kinds of trouble a ZEO server's log shows, a client
// that went away left out (lines of a managed server's log).
func TestLogRules(t *testing.T) {
	text := "2026-11-29T12:11:55 ERROR ZEO.asyncio.server Disconnected ConnectionResetError:[Errno 104] Connection reset by peer\n" +
		"2026-11-29T12:11:56 WARNING ZODB.FileStorage Ignoring index for /x/Data.fs\n" +
		"2026-11-29T12:11:57 ERROR ZEO.StorageServer (127.0.0.1:4) Error raised in delayed method\n" +
		"2026-11-29T12:11:57 CRITICAL ZODB.FileStorage Failure in _finish. Closing.\n" +
		"ZODB.FileStorage.FileStorage.CorruptedError: /x/Data.fs: bad transaction header\n"
	backendtest.LogKinds(t, LogRules, text, map[string]int{"error": 1, "critical": 1, "corruption": 1})
}

// TestServerSays: what dbgauge reads of the server's log: the storage it
// opened, and what it said of a recovery.
func TestServerSays(t *testing.T) {
	log := "2026-11-29T11:56:46 INFO ZEO.runzeo (24031) opening storage '1' using FileStorage\n" +
		"2026-11-29T12:11:56 WARNING ZODB.FileStorage Ignoring index for /x/Data.fs\n"
	if got := zodb.StorageOf(log); got != "FileStorage" {
		t.Errorf("storageOf = %q", got)
	}
	if got := zodb.RecoveryNote(log); got != "2026-11-29T12:11:56 WARNING ZODB.FileStorage Ignoring index for /x/Data.fs" {
		t.Errorf("recoveryNote = %q", got)
	}
}
