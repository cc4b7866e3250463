package workload

import (
	"testing"
	"time"
)

// TestFirebirdValues: the literals of a Firebird block, quotes doubled; a
// value the connection would rewrite, or of a type with no literal here,
// refused so that its row goes as parameters.
func TestFirebirdValues(t *testing.T) {
	at := time.Date(2026, 11, 26, 20, 1, 2, 345678900, time.UTC)
	got, ok := firebirdValues([]any{1, int64(-2), 0.25, "it's", nil, true, at})
	want := "1, -2, 0.25, 'it''s', NULL, TRUE, TIMESTAMP '2026-11-26 20:01:02.3456'"
	if !ok || got != want {
		t.Errorf("got %q, %v; want %q", got, ok, want)
	}
	for _, v := range []any{"5 % 2", "no limit 3", []byte{1}, struct{}{}} {
		if _, ok := firebirdValues([]any{v}); ok {
			t.Errorf("%#v has a literal: it must go as a parameter", v)
		}
	}
}
