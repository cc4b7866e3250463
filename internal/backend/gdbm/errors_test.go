package gdbm

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func gerr(code int, sys syscall.Errno) error {
	return &gdbmError{Op: "gdbm_store", Path: "x.gdbm", Code: code, Sys: sys, Msg: "msg"}
}

func TestClassify(t *testing.T) {
	backendtest.Classify(t, classify, backendtest.HoldKind|backendtest.HoldCode, []backendtest.ClassCase{
		{Err: gerr(codeCantBeWriter, 0), Class: dberr.Retryable, Kind: dberr.Busy, Code: "GDBM_CANT_BE_WRITER"},
		{Err: gerr(codeFileWriteError, syscall.ENOSPC), Class: dberr.Unavailable, Kind: dberr.IO, Code: "GDBM_FILE_WRITE_ERROR"},
		{Err: gerr(codeFileSyncError, syscall.EIO), Class: dberr.Unavailable, Kind: dberr.IO, Code: "GDBM_FILE_SYNC_ERROR"},
		{Err: gerr(codeFileOpenError, syscall.EACCES), Class: dberr.Unavailable, Kind: dberr.IO, Code: "GDBM_FILE_OPEN_ERROR"},
		{Err: gerr(codeDirOverflow, 0), Class: dberr.Unavailable, Kind: dberr.IO, Code: "GDBM_DIR_OVERFLOW"},
		{Err: gerr(codeMallocError, 0), Class: dberr.Unavailable, Kind: dberr.Other, Code: "GDBM_MALLOC_ERROR"},
		{Err: gerr(codeMalformedData, 0), Class: dberr.Rollback, Kind: dberr.Constraint, Code: "GDBM_MALFORMED_DATA"},
		{Err: gerr(codeCannotReplace, 0), Class: dberr.Rollback, Kind: dberr.Constraint, Code: "GDBM_CANNOT_REPLACE"},
		{Err: gerr(codeBadMagicNumber, 0), Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "GDBM_BAD_MAGIC_NUMBER"},
		{Err: gerr(codeNeedRecovery, 0), Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "GDBM_NEED_RECOVERY"},
		{Err: gerr(codeBadBucket, 0), Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "GDBM_BAD_BUCKET"},
		{Err: gerr(codeFileEOF, 0), Class: dberr.Fatal, Kind: dberr.Corrupt, Code: "GDBM_FILE_EOF"},
		{Err: gerr(codeOptBadval, 0), Class: dberr.Fatal, Kind: dberr.Other, Code: "GDBM_OPT_BADVAL"},
		{Err: gerr(codeReaderCantStore, 0), Class: dberr.Fatal, Kind: dberr.Other, Code: "GDBM_READER_CANT_STORE"},
		{Err: gerr(99, 0), Class: dberr.Fatal, Kind: dberr.Other, Code: "GDBM_ERROR_99"},
		{Err: fmt.Errorf("commit: %w", gerr(codeFileWriteError, syscall.EIO)), Class: dberr.Unavailable, Kind: dberr.IO, Code: "GDBM_FILE_WRITE_ERROR"},
		{Err: fmt.Errorf("stat: %w", syscall.ENOSPC), Class: dberr.Unavailable, Kind: dberr.IO},
		{Err: &fs.PathError{Op: "remove", Path: "x", Err: syscall.EIO}, Class: dberr.Unavailable, Kind: dberr.IO},
		{Err: backend.TableError("t"), Class: dberr.Fatal, Kind: dberr.Other},
		{Err: errTxOpen, Class: dberr.Fatal, Kind: dberr.Other},
		{Err: errClosed, Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: partial(gerr(codeFileWriteError, syscall.ENOSPC), 2, 5), Class: dberr.Fatal, Kind: dberr.Other, Code: "partial_commit"},
	})
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
