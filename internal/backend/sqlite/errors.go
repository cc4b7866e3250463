package sqlite

import (
	"errors"
	"fmt"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

type class struct {
	class dberr.Class
	kind  dberr.Kind
	name  string
}

// codes maps SQLite's primary result codes (https://www.sqlite.org/rescode.html).
var codes = map[sqlite3.ErrNo]class{
	sqlite3.ErrBusy:       {dberr.Retryable, dberr.Busy, "SQLITE_BUSY"},
	sqlite3.ErrLocked:     {dberr.Retryable, dberr.Lock, "SQLITE_LOCKED"},
	sqlite3.ErrConstraint: {dberr.Rollback, dberr.Constraint, "SQLITE_CONSTRAINT"},
	sqlite3.ErrInterrupt:  {dberr.Canceled, dberr.Interrupted, "SQLITE_INTERRUPT"},
	sqlite3.ErrIoErr:      {dberr.Unavailable, dberr.IO, "SQLITE_IOERR"},
	sqlite3.ErrFull:       {dberr.Unavailable, dberr.IO, "SQLITE_FULL"},
	sqlite3.ErrCantOpen:   {dberr.Unavailable, dberr.IO, "SQLITE_CANTOPEN"},
	sqlite3.ErrProtocol:   {dberr.Retryable, dberr.Lock, "SQLITE_PROTOCOL"},
	sqlite3.ErrNomem:      {dberr.Unavailable, dberr.Other, "SQLITE_NOMEM"},
	sqlite3.ErrCorrupt:    {dberr.Fatal, dberr.Corrupt, "SQLITE_CORRUPT"},
	sqlite3.ErrNotADB:     {dberr.Fatal, dberr.Corrupt, "SQLITE_NOTADB"},
	sqlite3.ErrReadonly:   {dberr.Fatal, dberr.Other, "SQLITE_READONLY"},
	sqlite3.ErrError:      {dberr.Fatal, dberr.Other, "SQLITE_ERROR"},
	sqlite3.ErrMisuse:     {dberr.Fatal, dberr.Other, "SQLITE_MISUSE"},
	sqlite3.ErrSchema:     {dberr.Retryable, dberr.Other, "SQLITE_SCHEMA"},
	sqlite3.ErrTooBig:     {dberr.Rollback, dberr.Constraint, "SQLITE_TOOBIG"},
	sqlite3.ErrMismatch:   {dberr.Rollback, dberr.Constraint, "SQLITE_MISMATCH"},
}

// constraints tells the kinds of SQLITE_CONSTRAINT apart by extended code.
var constraints = map[sqlite3.ErrNoExtended]dberr.Kind{
	sqlite3.ErrConstraintCheck:      dberr.Check,
	sqlite3.ErrConstraintNotNull:    dberr.Check,
	sqlite3.ErrConstraintPrimaryKey: dberr.Unique,
	sqlite3.ErrConstraintUnique:     dberr.Unique,
	sqlite3.ErrConstraintRowID:      dberr.Unique,
}

// classify wraps a go-sqlite3 error in a classified *dberr.Error by its result
// code. Other errors pass through unchanged.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var e sqlite3.Error
	if !errors.As(err, &e) {
		return err
	}
	c, ok := codes[e.Code]
	if k, ext := constraints[e.ExtendedCode]; ok && ext {
		c.kind = k
	}
	if !ok {
		return dberr.New(dberr.Fatal, dberr.Other, fmt.Sprintf("SQLITE_%d", int(e.Code)), err)
	}
	return dberr.New(c.class, c.kind, c.name, err)
}
