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

// TestTroubleIn: a joiner's log says its errors by kind, the rest left out.
func TestTroubleIn(t *testing.T) {
	log := "2026-11-30  2:10:21 0 [Note] WSREP: Running: 'wsrep_sst_rsync --role 'joiner''\n" +
		"WSREP_SST: [ERROR] rsync daemon port '4444' has been taken (20261130 02:10:21.5)\n" +
		"2026-11-30  2:10:22 0 [ERROR] WSREP: Failed to read 'ready <addr>' from: wsrep_sst_rsync\n" +
		"2026-11-30  2:10:22 2 [Note] WSREP: /usr/sbin/mariadbd: Terminated.\n"
	want := "error ×2, first: WSREP_SST: [ERROR] rsync daemon port '4444' has been taken (20261130 02:10:21.5)"
	if got := troubleIn(log); got != want {
		t.Errorf("troubleIn = %q, want %q", got, want)
	}
	if got := troubleIn("2026-11-30 [Note] all well\n"); got != "" {
		t.Errorf("no trouble, yet %q", got)
	}
}
