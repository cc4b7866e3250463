package dberr

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
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

// TestClassified: nil and an error holding an *Error need no classifying;
// a driver's bare error does.
func TestClassified(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, true},
		{"classified", New(Retryable, Busy, "", errors.New("busy")), true},
		{"wrapped", fmt.Errorf("commit: %w", New(Fatal, Other, "", errors.New("x"))), true},
		{"bare", errors.New("driver"), false},
	}
	for _, c := range cases {
		if got := Classified(c.err); got != c.want {
			t.Errorf("%s: Classified = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestMatch: the first sentinel an error is wins; none gives nil.
func TestMatch(t *testing.T) {
	errA, errB := errors.New("a"), errors.New("b")
	table := []Sentinel{{errA, Retryable, Busy, "A"}, {errB, Rollback, Constraint, "B"}}
	both := fmt.Errorf("%w, %w", errB, errA)
	if got := Match(both, table); ClassOf(got) != Retryable {
		t.Errorf("Match(a and b) = %v, want the first of the table (retryable)", got)
	}
	if c, k, code := Describe(Match(fmt.Errorf("x: %w", errB), table)); c != Rollback || k != Constraint || code != "B" {
		t.Errorf("Match(b) = %v/%v/%q, want rollback/constraint/B", c, k, code)
	}
	if got := Match(errors.New("c"), table); got != nil {
		t.Errorf("Match(c) = %v, want nil", got)
	}
}

// TestSystemIO: system errors are unavailable I/O; others pass through.
func TestSystemIO(t *testing.T) {
	for _, err := range []error{fmt.Errorf("commit: %w", syscall.ENOSPC), &fs.PathError{Op: "write", Path: "x", Err: syscall.EIO}} {
		if c, k, _ := Describe(SystemIO(err)); c != Unavailable || k != IO {
			t.Errorf("SystemIO(%v) = %v/%v, want unavailable/io", err, c, k)
		}
	}
	other := errors.New("other")
	if got := SystemIO(other); got != other { //nolint:errorlint // the same value must come back
		t.Errorf("SystemIO(other) = %v, want it unchanged", got)
	}
}
