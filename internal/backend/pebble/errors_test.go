package pebble

import (
	"context"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/cockroachdb/errors"
	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	backendtest.Classify(t, classify, backendtest.HoldKind, []backendtest.ClassCase{
		{Err: pebbledb.ErrClosed, Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: errors.WithStack(pebbledb.ErrClosed), Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: pebbledb.ErrBatchTooLarge, Class: dberr.Rollback, Kind: dberr.Constraint},
		{Err: pebbledb.ErrReadOnly, Class: dberr.Fatal, Kind: dberr.Other},
		{Err: pebbledb.ErrNotIndexed, Class: dberr.Fatal, Kind: dberr.Other},
		{Err: pebbledb.ErrDBNotPristine, Class: dberr.Fatal, Kind: dberr.Other},
		{Err: errors.Mark(errors.New("bad block checksum"), pebbledb.ErrCorruption), Class: dberr.Fatal, Kind: dberr.Corrupt},
		{Err: fmt.Errorf("read: %w", errors.Mark(errors.New("bad block"), pebbledb.ErrCorruption)), Class: dberr.Fatal, Kind: dberr.Corrupt},
		{Err: newFatal("pebble: fatal commit error: %v", syscall.EIO), Class: dberr.Fatal, Kind: dberr.IO},
		{Err: fmt.Errorf("commit: %w", syscall.ENOSPC), Class: dberr.Unavailable, Kind: dberr.IO},
		{Err: &fs.PathError{Op: "write", Path: "x", Err: syscall.EIO}, Class: dberr.Unavailable, Kind: dberr.IO},
		{Err: errors.Wrap(syscall.EAGAIN, "pebble: could not lock"), Class: dberr.Unavailable, Kind: dberr.IO},
		{Err: backend.TableError("t"), Class: dberr.Fatal, Kind: dberr.Other},
		{Err: fmt.Errorf("%w: %q", errBadName, ""), Class: dberr.Fatal, Kind: dberr.Other},
		{Err: context.Canceled, Class: dberr.Canceled, Kind: dberr.Interrupted},
	})
}
