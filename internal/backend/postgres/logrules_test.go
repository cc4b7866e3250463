package postgres

import (
	"reflect"
	"testing"
)

// TestLogRules: the kinds of trouble the engine's log shows, the harmless
// lines left out.
func TestLogRules(t *testing.T) {
	text := "2026-11-22 LOG:  database system is ready\n" +
		"2026-11-22 ERROR:  deadlock detected\n2026-11-22 ERROR:  deadlock detected\n" +
		"2026-11-22 FATAL:  the database system is starting up\n" +
		"2026-11-22 LOG:  server process (PID 42) was terminated by signal 9: Killed\n" +
		"2026-11-22 PANIC:  could not write to file\n"
	got := map[string]int{}
	for _, a := range LogRules.Scan(text) {
		got[a.Kind] = a.Count
	}
	if want := map[string]int{"error": 2, "crash": 1, "panic": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}
