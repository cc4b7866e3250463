package pebble

import (
	"errors"
	"fmt"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

var (
	errTxOpen, errNoTx = backend.TxStateErrors("pebble")
	errBadName         = errors.New("pebble: a table name must be non-empty and free of NUL bytes")
)

// fatalError is what pebble reports through Logger.Fatalf (a failed WAL
// write in the commit pipeline, a MANIFEST that cannot be written). Pebble's
// own logger exits the process there; ours panics with a fatalError, which
// the calls made on the client's behalf recover into a classified error.
type fatalError struct {
	msg string
	err error // the first error among Fatalf's arguments, if any
}

func (e fatalError) Error() string { return e.msg }
func (e fatalError) Unwrap() error { return e.err }

func newFatal(format string, args ...any) fatalError {
	f := fatalError{msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			f.err = err
			break
		}
	}
	return f
}

// sentinels maps pebble's exported errors. The order matters:
// ErrBatchTooLarge is also marked as a corruption error.
var sentinels = []dberr.Sentinel{
	{Err: pebbledb.ErrBatchTooLarge, Class: dberr.Rollback, Kind: dberr.Constraint, Code: "ErrBatchTooLarge"},
	{Err: pebbledb.ErrClosed, Class: dberr.Unavailable, Kind: dberr.Connection, Code: "ErrClosed"},
	{Err: pebbledb.ErrReadOnly, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrReadOnly"},
	{Err: pebbledb.ErrNotIndexed, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrNotIndexed"},
	{Err: pebbledb.ErrInvalidBatch, Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "ErrInvalidBatch"},
	{Err: pebbledb.ErrDBDoesNotExist, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrDBDoesNotExist"},
	{Err: pebbledb.ErrDBAlreadyExists, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrDBAlreadyExists"},
	{Err: pebbledb.ErrDBNotPristine, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrDBNotPristine"},
	{Err: backend.ErrNoSuchTable, Class: dberr.Fatal, Kind: dberr.Other, Code: "no such table"},
	{Err: errBadName, Class: dberr.Fatal, Kind: dberr.Other, Code: "bad table name"},
}

// classify wraps a pebble or file-system error in a classified *dberr.Error.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	var fe fatalError
	if errors.As(err, &fe) {
		// The commit pipeline is broken: pebble cannot go on.
		return dberr.New(dberr.Fatal, dberr.IO, "Fatalf", err)
	}
	if c := dberr.Match(err, sentinels); c != nil {
		return c
	}
	// Corruption is a mark (cockroachdb/errors), not in the Unwrap chain.
	if pebbledb.IsCorruptionError(err) {
		return dberr.New(dberr.Fatal, dberr.Corrupt, "ErrCorruption", err)
	}
	return dberr.SystemIO(err)
}
