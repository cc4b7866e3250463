package dberr

import (
	"errors"
	"testing"
)

// TestOneLine: a driver's multi-line message (Firebird's status vector)
// reads as one line.
func TestOneLine(t *testing.T) {
	err := New(Retryable, Deadlock, "335544336", errors.New("deadlock\nupdate conflicts with concurrent update\nconcurrent transaction number is 1919\n"))
	if got, want := err.Error(), "335544336: deadlock; update conflicts with concurrent update; concurrent transaction number is 1919"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
