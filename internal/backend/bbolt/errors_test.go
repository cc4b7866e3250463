package bbolt

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	berrors "go.etcd.io/bbolt/errors"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	backendtest.Classify(t, classify, 0, []backendtest.ClassCase{
		{Err: berrors.ErrTimeout, Class: dberr.Retryable},
		{Err: berrors.ErrDatabaseNotOpen, Class: dberr.Unavailable},
		{Err: berrors.ErrChecksum, Class: dberr.Fatal},
		{Err: berrors.ErrKeyTooLarge, Class: dberr.Rollback},
		{Err: fmt.Errorf("commit: %w", syscall.ENOSPC), Class: dberr.Unavailable},
		{Err: &fs.PathError{Op: "write", Path: "x", Err: syscall.EIO}, Class: dberr.Unavailable},
		{Err: backend.TableError("t"), Class: dberr.Fatal},
	})
}
