package pebble

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

var (
	errTxOpen  = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("pebble: a transaction is already open on this connection"))
	errNoTx    = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("pebble: no transaction is open on this connection"))
	errBadName = errors.New("pebble: a table name must be non-empty and free of NUL bytes")
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

type class struct {
	class dberr.Class
	kind  dberr.Kind
	code  string
}

// sentinels maps pebble's exported errors. The order matters:
// ErrBatchTooLarge is also marked as a corruption error.
var sentinels = []struct {
	err error
	class
}{
	{pebbledb.ErrBatchTooLarge, class{dberr.Rollback, dberr.Constraint, "ErrBatchTooLarge"}},
	{pebbledb.ErrClosed, class{dberr.Unavailable, dberr.Connection, "ErrClosed"}},
	{pebbledb.ErrReadOnly, class{dberr.Fatal, dberr.Other, "ErrReadOnly"}},
	{pebbledb.ErrNotIndexed, class{dberr.Fatal, dberr.Other, "ErrNotIndexed"}},
	{pebbledb.ErrInvalidBatch, class{dberr.Fatal, dberr.Corrupt, "ErrInvalidBatch"}},
	{pebbledb.ErrDBDoesNotExist, class{dberr.Fatal, dberr.Other, "ErrDBDoesNotExist"}},
	{pebbledb.ErrDBAlreadyExists, class{dberr.Fatal, dberr.Other, "ErrDBAlreadyExists"}},
	{pebbledb.ErrDBNotPristine, class{dberr.Fatal, dberr.Other, "ErrDBNotPristine"}},
	{backend.ErrNoSuchTable, class{dberr.Fatal, dberr.Other, "no such table"}},
	{errBadName, class{dberr.Fatal, dberr.Other, "bad table name"}},
}

// classify wraps a pebble or file-system error in a classified *dberr.Error.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var de *dberr.Error
	if errors.As(err, &de) {
		return err
	}
	var fe fatalError
	if errors.As(err, &fe) {
		// The commit pipeline is broken: pebble cannot go on.
		return dberr.New(dberr.Fatal, dberr.IO, "Fatalf", err)
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return dberr.New(s.class.class, s.kind, s.code, err)
		}
	}
	// Corruption is a mark (cockroachdb/errors), not in the Unwrap chain.
	if pebbledb.IsCorruptionError(err) {
		return dberr.New(dberr.Fatal, dberr.Corrupt, "ErrCorruption", err)
	}
	var errno syscall.Errno
	var pe *fs.PathError
	if errors.As(err, &errno) || errors.As(err, &pe) {
		return dberr.New(dberr.Unavailable, dberr.IO, "", err)
	}
	return err
}
