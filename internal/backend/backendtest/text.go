package backendtest

import (
	"reflect"
	"testing"

	"github.com/dbgauge/dbgauge/internal/server"
)

// Rewrites holds a function that rewrites a statement for its engine
// (Firebird's LIMIT as ROWS, PostgreSQL's ? as $1), named name in what a
// failure says, to cases: each statement and what it must become.
func Rewrites(t *testing.T, name string, rewrite func(string) string, cases map[string]string) {
	t.Helper()
	for in, want := range cases {
		if got := rewrite(in); got != want {
			t.Errorf("%s(%q)\n = %q\nwant %q", name, in, got, want)
		}
	}
}

// LogKinds holds an engine's log rules to a log's text: the kinds of
// trouble they find in it, each with its count of lines, are want, the
// harmless lines left out.
func LogKinds(t *testing.T, rules *server.LogRules, text string, want map[string]int) {
	t.Helper()
	got := map[string]int{}
	for _, a := range rules.Scan(text) {
		got[a.Kind] = a.Count
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}
