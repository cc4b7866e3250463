// Package dberr classifies database errors by what the caller should do about
// them, never by their message text.
//
// Each backend maps its driver's codes to a Class and a Kind in its errors.go
// and wraps the driver error in an *Error. The run engine asks ClassOf(err) to
// decide whether a unit of work is retried, counted as failed, or stops the run.
package dberr

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
)

// Class says how the run engine treats an error. The zero value means no error.
type Class uint8

// The classes, from the most benign to the most severe.
const (
	OK Class = iota
	// Expected is an outcome by design, not a failure: a unit that found
	// nothing to do (workload.Nothing: no FIFO row left to take, a lock
	// another client holds). The run engine counts it apart, never as an
	// error and never in the throughput.
	Expected
	// Retryable errors (busy engine, lock conflict, deadlock, serialization
	// failure) leave nothing behind: the same unit may run again.
	Retryable
	// Rollback errors void the transaction (a constraint violated): the unit
	// failed and is not retried.
	Rollback
	// Unavailable errors mean the engine cannot serve now (connection lost,
	// I/O error, disk full): the unit failed; the client backs off.
	Unavailable
	// Canceled means the run is stopping: the unit is neither ok nor failed.
	Canceled
	// Fatal errors are bugs or misconfiguration: the run stops.
	Fatal
)

var classNames = [...]string{"ok", "expected", "retryable", "rollback", "unavailable", "canceled", "fatal"}

// String returns the class name used in results and reports.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Kind is the finer reason inside a class, for reports: "busy", "deadlock",
// "constraint", "connection", "io", …
type Kind string

// Kinds shared by all backends. A backend may use its own when none fits.
const (
	Busy          Kind = "busy"          // engine busy, lock not granted in time
	Lock          Kind = "lock"          // lock conflict (no-wait)
	Deadlock      Kind = "deadlock"      // deadlock detected, victim rolled back
	Serialization Kind = "serialization" // serialization failure
	Constraint    Kind = "constraint"    // a constraint violated: foreign key, length, type (check and unique have kinds of their own)
	Check         Kind = "check"         // a CHECK constraint or a column's validation (NOT NULL) violated
	Unique        Kind = "unique"        // a primary or unique key violated
	Connection    Kind = "connection"    // connection lost or refused
	Timeout       Kind = "timeout"       // statement or lock timeout
	IO            Kind = "io"            // I/O error, disk full
	Corrupt       Kind = "corrupt"       // the engine reports corruption
	Interrupted   Kind = "interrupted"   // the statement was interrupted
	Other         Kind = "other"         // anything else
	Nothing       Kind = "nothing"       // Expected: the unit found no work
)

// Error is a classified database error.
type Error struct {
	Class Class
	Kind  Kind
	Code  string // the engine's own code, e.g. "SQLITE_BUSY" or "40001"
	Err   error  // the driver's error
}

// New wraps err in a classified *Error. It returns nil when err is nil.
func New(class Class, kind Kind, code string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Class: class, Kind: kind, Code: code, Err: err}
}

// Error is one line, whatever the driver's message (Firebird's has a line
// per status entry, PostgreSQL's a DETAIL line): results, samples and the
// terminal show errors on one line.
func (e *Error) Error() string {
	msg := e.Err.Error()
	if strings.Contains(msg, "\n") {
		var parts []string
		for _, l := range strings.Split(msg, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				parts = append(parts, l)
			}
		}
		msg = strings.Join(parts, "; ")
	}
	if e.Code != "" {
		return e.Code + ": " + msg
	}
	return msg
}

// Unwrap returns the driver's error.
func (e *Error) Unwrap() error { return e.Err }

// ClassOf returns the class of err: OK for nil, Canceled for context
// cancellation, the class of the first *Error in the chain, and Fatal for an
// unclassified error (an unknown error must not be silently retried).
func ClassOf(err error) Class {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Class
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Canceled
	}
	return Fatal
}

// Describe returns the class, kind and code of err for counting failures.
func Describe(err error) (Class, Kind, string) {
	var e *Error
	if errors.As(err, &e) {
		return e.Class, e.Kind, e.Code
	}
	c := ClassOf(err)
	if c == Canceled {
		return c, Interrupted, ""
	}
	return c, Other, ""
}

// Classified reports whether err needs no classifying: nil, or an error
// that holds an *Error already. A backend's classify returns it unchanged.
func Classified(err error) bool {
	var e *Error
	return err == nil || errors.As(err, &e)
}

// Sentinel classifies an error value a driver exports.
type Sentinel struct {
	Err   error
	Class Class
	Kind  Kind
	Code  string
}

// Match wraps err in the class of the first sentinel of table it is
// (errors.Is: the order of the table decides between two); nil when it is
// none of them.
func Match(err error, table []Sentinel) error {
	for _, s := range table {
		if errors.Is(err, s.Err) {
			return New(s.Class, s.Kind, s.Code, err)
		}
	}
	return nil
}

// SystemIO wraps an error of the operating system (a syscall.Errno or an
// *fs.PathError in its chain: a full disk, a failed write) as Unavailable
// I/O, as an embedded engine's files fail; other errors are returned
// unchanged.
func SystemIO(err error) error {
	var errno syscall.Errno
	var pe *fs.PathError
	if errors.As(err, &errno) || errors.As(err, &pe) {
		return New(Unavailable, IO, "", err)
	}
	return err
}
