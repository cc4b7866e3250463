package bbolt

import (
	"errors"
	"io/fs"
	"syscall"

	berrors "go.etcd.io/bbolt/errors"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

var (
	errTxOpen = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("bbolt: a transaction is already open on this connection"))
	errNoTx   = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("bbolt: no transaction is open on this connection"))
)

type class struct {
	class dberr.Class
	kind  dberr.Kind
	code  string
}

// sentinels maps bbolt's errors (go.etcd.io/bbolt/errors).
var sentinels = []struct {
	err error
	class
}{
	{berrors.ErrTimeout, class{dberr.Retryable, dberr.Busy, "ErrTimeout"}},
	{berrors.ErrDatabaseNotOpen, class{dberr.Unavailable, dberr.Connection, "ErrDatabaseNotOpen"}},
	{berrors.ErrMaxSizeReached, class{dberr.Unavailable, dberr.IO, "ErrMaxSizeReached"}},
	{berrors.ErrInvalid, class{dberr.Fatal, dberr.Corrupt, "ErrInvalid"}},
	{berrors.ErrChecksum, class{dberr.Fatal, dberr.Corrupt, "ErrChecksum"}},
	{berrors.ErrVersionMismatch, class{dberr.Fatal, dberr.Corrupt, "ErrVersionMismatch"}},
	{berrors.ErrKeyTooLarge, class{dberr.Rollback, dberr.Constraint, "ErrKeyTooLarge"}},
	{berrors.ErrValueTooLarge, class{dberr.Rollback, dberr.Constraint, "ErrValueTooLarge"}},
	{berrors.ErrKeyRequired, class{dberr.Rollback, dberr.Constraint, "ErrKeyRequired"}},
	{berrors.ErrTxClosed, class{dberr.Fatal, dberr.Other, "ErrTxClosed"}},
	{berrors.ErrTxNotWritable, class{dberr.Fatal, dberr.Other, "ErrTxNotWritable"}},
	{berrors.ErrDatabaseReadOnly, class{dberr.Fatal, dberr.Other, "ErrDatabaseReadOnly"}},
	{backend.ErrNoSuchTable, class{dberr.Fatal, dberr.Other, "ErrBucketNotFound"}},
}

// classify wraps a bbolt or file-system error in a classified *dberr.Error.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var de *dberr.Error
	if errors.As(err, &de) {
		return err
	}
	for _, s := range sentinels {
		if errors.Is(err, s.err) {
			return dberr.New(s.class.class, s.kind, s.code, err)
		}
	}
	var errno syscall.Errno
	var pe *fs.PathError
	if errors.As(err, &errno) || errors.As(err, &pe) {
		return dberr.New(dberr.Unavailable, dberr.IO, "", err)
	}
	return err
}
