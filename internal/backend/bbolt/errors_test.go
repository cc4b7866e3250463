package bbolt

import (
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	berrors "go.etcd.io/bbolt/errors"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		err   error
		class dberr.Class
	}{
		{berrors.ErrTimeout, dberr.Retryable},
		{berrors.ErrDatabaseNotOpen, dberr.Unavailable},
		{berrors.ErrChecksum, dberr.Fatal},
		{berrors.ErrKeyTooLarge, dberr.Rollback},
		{fmt.Errorf("commit: %w", syscall.ENOSPC), dberr.Unavailable},
		{&fs.PathError{Op: "write", Path: "x", Err: syscall.EIO}, dberr.Unavailable},
		{backend.TableError("t"), dberr.Fatal},
	}
	for _, c := range cases {
		if got := dberr.ClassOf(classify(c.err)); got != c.class {
			t.Errorf("classify(%v) = %v, want %v", c.err, got, c.class)
		}
	}
}
