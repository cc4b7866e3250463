package gdbm

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func gerr(code int, sys syscall.Errno) error {
	return &gdbmError{Op: "gdbm_store", Path: "x.gdbm", Code: code, Sys: sys, Msg: "msg"}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err   error
		class dberr.Class
		kind  dberr.Kind
		code  string
	}{
		{gerr(codeCantBeWriter, 0), dberr.Retryable, dberr.Busy, "GDBM_CANT_BE_WRITER"},
		{gerr(codeFileWriteError, syscall.ENOSPC), dberr.Unavailable, dberr.IO, "GDBM_FILE_WRITE_ERROR"},
		{gerr(codeFileSyncError, syscall.EIO), dberr.Unavailable, dberr.IO, "GDBM_FILE_SYNC_ERROR"},
		{gerr(codeFileOpenError, syscall.EACCES), dberr.Unavailable, dberr.IO, "GDBM_FILE_OPEN_ERROR"},
		{gerr(codeDirOverflow, 0), dberr.Unavailable, dberr.IO, "GDBM_DIR_OVERFLOW"},
		{gerr(codeMallocError, 0), dberr.Unavailable, dberr.Other, "GDBM_MALLOC_ERROR"},
		{gerr(codeMalformedData, 0), dberr.Rollback, dberr.Constraint, "GDBM_MALFORMED_DATA"},
		{gerr(codeCannotReplace, 0), dberr.Rollback, dberr.Constraint, "GDBM_CANNOT_REPLACE"},
		{gerr(codeBadMagicNumber, 0), dberr.Fatal, dberr.Corrupt, "GDBM_BAD_MAGIC_NUMBER"},
		{gerr(codeNeedRecovery, 0), dberr.Fatal, dberr.Corrupt, "GDBM_NEED_RECOVERY"},
		{gerr(codeBadBucket, 0), dberr.Fatal, dberr.Corrupt, "GDBM_BAD_BUCKET"},
		{gerr(codeFileEOF, 0), dberr.Fatal, dberr.Corrupt, "GDBM_FILE_EOF"},
		{gerr(codeOptBadval, 0), dberr.Fatal, dberr.Other, "GDBM_OPT_BADVAL"},
		{gerr(codeReaderCantStore, 0), dberr.Fatal, dberr.Other, "GDBM_READER_CANT_STORE"},
		{gerr(99, 0), dberr.Fatal, dberr.Other, "GDBM_ERROR_99"},
		{fmt.Errorf("commit: %w", gerr(codeFileWriteError, syscall.EIO)), dberr.Unavailable, dberr.IO, "GDBM_FILE_WRITE_ERROR"},
		{fmt.Errorf("stat: %w", syscall.ENOSPC), dberr.Unavailable, dberr.IO, ""},
		{&fs.PathError{Op: "remove", Path: "x", Err: syscall.EIO}, dberr.Unavailable, dberr.IO, ""},
		{backend.TableError("t"), dberr.Fatal, dberr.Other, ""},
		{errTxOpen, dberr.Fatal, dberr.Other, ""},
		{errClosed, dberr.Unavailable, dberr.Connection, ""},
		{partial(gerr(codeFileWriteError, syscall.ENOSPC), 2, 5), dberr.Fatal, dberr.Other, "partial_commit"},
	}
	for _, c := range cases {
		cl, kind, code := dberr.Describe(classify(c.err))
		if cl != c.class || kind != c.kind || code != c.code {
			t.Errorf("classify(%v) = %v/%v/%q, want %v/%v/%q", c.err, cl, kind, code, c.class, c.kind, c.code)
		}
	}
	if classify(nil) != nil {
		t.Error("classify(nil) is not nil")
	}
	// The system error stays reachable.
	if err := classify(gerr(codeFileWriteError, syscall.ENOSPC)); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("%v does not wrap ENOSPC", err)
	}
}

// Every gdbm error code has a class: an unlisted code would be fatal.
func TestEveryCodeClassified(t *testing.T) {
	for c := codeMallocError; c <= codeErrUsage; c++ {
		if _, ok := codes[c]; !ok {
			t.Errorf("gdbm error code %d has no class", c)
		}
	}
}
