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
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		err   error
		class dberr.Class
		kind  dberr.Kind
	}{
		{nil, dberr.OK, ""},
		{pebbledb.ErrClosed, dberr.Unavailable, dberr.Connection},
		{errors.WithStack(pebbledb.ErrClosed), dberr.Unavailable, dberr.Connection},
		{pebbledb.ErrBatchTooLarge, dberr.Rollback, dberr.Constraint},
		{pebbledb.ErrReadOnly, dberr.Fatal, dberr.Other},
		{pebbledb.ErrNotIndexed, dberr.Fatal, dberr.Other},
		{pebbledb.ErrDBNotPristine, dberr.Fatal, dberr.Other},
		{errors.Mark(errors.New("bad block checksum"), pebbledb.ErrCorruption), dberr.Fatal, dberr.Corrupt},
		{fmt.Errorf("read: %w", errors.Mark(errors.New("bad block"), pebbledb.ErrCorruption)), dberr.Fatal, dberr.Corrupt},
		{newFatal("pebble: fatal commit error: %v", syscall.EIO), dberr.Fatal, dberr.IO},
		{fmt.Errorf("commit: %w", syscall.ENOSPC), dberr.Unavailable, dberr.IO},
		{&fs.PathError{Op: "write", Path: "x", Err: syscall.EIO}, dberr.Unavailable, dberr.IO},
		{errors.Wrap(syscall.EAGAIN, "pebble: could not lock"), dberr.Unavailable, dberr.IO},
		{backend.TableError("t"), dberr.Fatal, dberr.Other},
		{fmt.Errorf("%w: %q", errBadName, ""), dberr.Fatal, dberr.Other},
		{context.Canceled, dberr.Canceled, dberr.Interrupted},
	}
	for _, c := range cases {
		got := classify(c.err)
		cl, kind, _ := dberr.Describe(got)
		if cl != c.class || (c.err != nil && kind != c.kind) {
			t.Errorf("classify(%v) = %v/%v, want %v/%v", c.err, cl, kind, c.class, c.kind)
		}
	}
}
