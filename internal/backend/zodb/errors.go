package zodb

import (
	"errors"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/pyworker"
)

var errTxOpen, errNoTx = backend.TxStateErrors("zodb")

// classes maps the exceptions the worker reports, by class name (ZODB's
// and ZEO's codes, never their text), to dbgauge's classes.
var classes = map[string]struct {
	class dberr.Class
	kind  dberr.Kind
}{
	// ZODB.POSException: another transaction committed the object since
	// this one read it (or, for a blind write, since the worker looked).
	"ConflictError":      {dberr.Retryable, dberr.Serialization},
	"ReadConflictError":  {dberr.Retryable, dberr.Serialization},
	"WriteConflictError": {dberr.Retryable, dberr.Serialization},
	// ZEO: the server went away, or did not answer in time.
	"ClientDisconnected":     {dberr.Unavailable, dberr.Connection},
	"ClientStorageError":     {dberr.Unavailable, dberr.Connection},
	"ConnectionRefusedError": {dberr.Unavailable, dberr.Connection},
	"TimeoutError":           {dberr.Unavailable, dberr.Timeout},
	// The file system under a FileStorage.
	"OSError":                 {dberr.Unavailable, dberr.IO},
	"FileStorageError":        {dberr.Fatal, dberr.Corrupt},
	"CorruptedError":          {dberr.Fatal, dberr.Corrupt},
	"CorruptedDataError":      {dberr.Fatal, dberr.Corrupt},
	"LockError":               {dberr.Fatal, dberr.Other}, // zc.lockfile: another process holds the FileStorage
	"ReadOnlyError":           {dberr.Fatal, dberr.Other},
	"StorageTransactionError": {dberr.Fatal, dberr.Other},
	// RelStorage: its commit lock (or the rows it locks to store or to
	// check reads) not had within commit-lock-timeout (relstorage.adapters.
	// interfaces), another client holding it; tried again, as ZODB does.
	"UnableToAcquireCommitLockError":     {dberr.Retryable, dberr.Busy},
	"UnableToLockRowsToModifyError":      {dberr.Retryable, dberr.Busy},
	"UnableToLockRowsToReadCurrentError": {dberr.Retryable, dberr.Busy},
	// psycopg2 under RelStorage: the PostgreSQL server gone or refusing
	// (OperationalError, AdminShutdown), a connection closed under it
	// (InterfaceError); psycopg2.errors' SQLSTATE classes by name.
	"OperationalError":     {dberr.Unavailable, dberr.Connection},
	"InterfaceError":       {dberr.Unavailable, dberr.Connection},
	"AdminShutdown":        {dberr.Unavailable, dberr.Connection},
	"SerializationFailure": {dberr.Retryable, dberr.Serialization},
	"DeadlockDetected":     {dberr.Retryable, dberr.Deadlock},
	"DiskFull":             {dberr.Unavailable, dberr.IO},
	// Two keys of dbgauge's on one oid (worker.py's oid_of): 1 in 2^63.
	"KeyCollision": {dberr.Rollback, dberr.Constraint},
}

// classify wraps a worker's error in a classified *dberr.Error: its
// exception by class name, a worker that died as a connection lost (the
// client's process is gone; another may be started).
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	var pe *pyworker.Error
	if errors.As(err, &pe) {
		if c, ok := classes[pe.Type]; ok {
			return dberr.New(c.class, c.kind, pe.Type, err)
		}
		return dberr.New(dberr.Fatal, dberr.Other, pe.Type, err)
	}
	var died *pyworker.DiedError
	if errors.As(err, &died) {
		return dberr.New(dberr.Unavailable, dberr.Connection, "worker died", err)
	}
	if errors.Is(err, backend.ErrNoSuchTable) {
		return dberr.New(dberr.Fatal, dberr.Other, "no such table", err)
	}
	return err
}
