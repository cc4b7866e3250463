package mariadb

import (
	"reflect"
	"testing"
)

// TestLogRules: the kinds of trouble the engine's log shows, the harmless
// lines left out.
func TestLogRules(t *testing.T) {
	text := "2026-11-22 0 [Note] InnoDB: ready\n2026-11-22 0 [ERROR] InnoDB: Unable to lock ./ibdata1\n" +
		"mariadbd got signal 11 ;\n"
	got := map[string]int{}
	for _, a := range LogRules.Scan(text) {
		got[a.Kind] = a.Count
	}
	if want := map[string]int{"error": 1, "crash": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}
