package bbolt

import (
	berrors "go.etcd.io/bbolt/errors"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

var errTxOpen, errNoTx = backend.TxStateErrors("bbolt")

// sentinels maps bbolt's errors (go.etcd.io/bbolt/errors).
var sentinels = []dberr.Sentinel{
	{Err: berrors.ErrTimeout, Class: dberr.Retryable, Kind: dberr.Busy, Code: "ErrTimeout"},
	{Err: berrors.ErrDatabaseNotOpen, Class: dberr.Unavailable, Kind: dberr.Connection, Code: "ErrDatabaseNotOpen"},
	{Err: berrors.ErrMaxSizeReached, Class: dberr.Unavailable, Kind: dberr.IO, Code: "ErrMaxSizeReached"},
	{Err: berrors.ErrInvalid, Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "ErrInvalid"},
	{Err: berrors.ErrChecksum, Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "ErrChecksum"},
	{Err: berrors.ErrVersionMismatch, Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "ErrVersionMismatch"},
	{Err: berrors.ErrKeyTooLarge, Class: dberr.Rollback, Kind: dberr.Constraint, Code: "ErrKeyTooLarge"},
	{Err: berrors.ErrValueTooLarge, Class: dberr.Rollback, Kind: dberr.Constraint, Code: "ErrValueTooLarge"},
	{Err: berrors.ErrKeyRequired, Class: dberr.Rollback, Kind: dberr.Constraint, Code: "ErrKeyRequired"},
	{Err: berrors.ErrTxClosed, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrTxClosed"},
	{Err: berrors.ErrTxNotWritable, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrTxNotWritable"},
	{Err: berrors.ErrDatabaseReadOnly, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrDatabaseReadOnly"},
	{Err: backend.ErrNoSuchTable, Class: dberr.Fatal, Kind: dberr.Other, Code: "ErrBucketNotFound"},
}

// classify wraps a bbolt or file-system error in a classified *dberr.Error.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	if c := dberr.Match(err, sentinels); c != nil {
		return c
	}
	return dberr.SystemIO(err)
}
