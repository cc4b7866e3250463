package gdbm

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

// gdbm's error codes (gdbm.h, enum gdbm_error), copied so that the table
// below and its test build without cgo; binding.go checks at compile time
// that each one equals the header's.
const (
	codeMallocError          = 1
	codeBlockSizeError       = 2
	codeFileOpenError        = 3
	codeFileWriteError       = 4
	codeFileSeekError        = 5
	codeFileReadError        = 6
	codeBadMagicNumber       = 7
	codeEmptyDatabase        = 8
	codeCantBeReader         = 9
	codeCantBeWriter         = 10
	codeReaderCantDelete     = 11
	codeReaderCantStore      = 12
	codeReaderCantReorganize = 13
	codeUnknownError         = 14
	codeItemNotFound         = 15
	codeReorganizeFailed     = 16
	codeCannotReplace        = 17
	codeMalformedData        = 18
	codeOptAlreadySet        = 19
	codeOptBadval            = 20
	codeByteSwapped          = 21
	codeBadFileOffset        = 22
	codeBadOpenFlags         = 23
	codeFileStatError        = 24
	codeFileEOF              = 25
	codeNoDBName             = 26
	codeErrFileOwner         = 27
	codeErrFileMode          = 28
	codeNeedRecovery         = 29
	codeBackupFailed         = 30
	codeDirOverflow          = 31
	codeBadBucket            = 32
	codeBadHeader            = 33
	codeBadAvail             = 34
	codeBadHashTable         = 35
	codeBadDirEntry          = 36
	codeFileCloseError       = 37
	codeFileSyncError        = 38
	codeFileTruncateError    = 39
	codeBucketCacheCorrupted = 40
	codeBadHashEntry         = 41
	codeErrSnapshotClone     = 42
	codeErrRealpath          = 43
	codeErrUsage             = 44
)

// gdbmError is an error libgdbm reported: its gdbm_errno, the system errno
// behind it when gdbm_check_syserr says there is one, and gdbm_strerror.
type gdbmError struct {
	Op   string // the gdbm call: gdbm_store, gdbm_open…
	Path string // the file
	Code int
	Sys  syscall.Errno // 0 when gdbm's error has no system error behind it
	Msg  string        // gdbm_strerror(Code)
}

func (e *gdbmError) Error() string {
	s := fmt.Sprintf("%s %s: %s", e.Op, e.Path, e.Msg)
	if e.Sys != 0 {
		s += ": " + e.Sys.Error()
	}
	return s
}

// Unwrap returns the system error, so that errors.Is(err, syscall.ENOSPC) works.
func (e *gdbmError) Unwrap() error {
	if e.Sys == 0 {
		return nil
	}
	return e.Sys
}

var (
	errTxOpen, errNoTx = backend.TxStateErrors("gdbm")
	errReadOnly        = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("gdbm: a write in a read-only transaction"))
	errClosed          = dberr.New(dberr.Unavailable, dberr.Connection, "", errors.New("gdbm: the database is closed"))
)

type class struct {
	class dberr.Class
	kind  dberr.Kind
	code  string
}

// codes classifies gdbm_errno values. Unlisted codes are fatal.
var codes = map[int]class{
	codeMallocError:          {dberr.Unavailable, dberr.Other, "GDBM_MALLOC_ERROR"},
	codeBlockSizeError:       {dberr.Fatal, dberr.Other, "GDBM_BLOCK_SIZE_ERROR"},
	codeFileOpenError:        {dberr.Unavailable, dberr.IO, "GDBM_FILE_OPEN_ERROR"},
	codeFileWriteError:       {dberr.Unavailable, dberr.IO, "GDBM_FILE_WRITE_ERROR"},
	codeFileSeekError:        {dberr.Unavailable, dberr.IO, "GDBM_FILE_SEEK_ERROR"},
	codeFileReadError:        {dberr.Unavailable, dberr.IO, "GDBM_FILE_READ_ERROR"},
	codeFileStatError:        {dberr.Unavailable, dberr.IO, "GDBM_FILE_STAT_ERROR"},
	codeFileCloseError:       {dberr.Unavailable, dberr.IO, "GDBM_FILE_CLOSE_ERROR"},
	codeFileSyncError:        {dberr.Unavailable, dberr.IO, "GDBM_FILE_SYNC_ERROR"},
	codeFileTruncateError:    {dberr.Unavailable, dberr.IO, "GDBM_FILE_TRUNCATE_ERROR"},
	codeReorganizeFailed:     {dberr.Unavailable, dberr.IO, "GDBM_REORGANIZE_FAILED"},
	codeBackupFailed:         {dberr.Unavailable, dberr.IO, "GDBM_BACKUP_FAILED"},
	codeErrSnapshotClone:     {dberr.Unavailable, dberr.IO, "GDBM_ERR_SNAPSHOT_CLONE"},
	codeErrRealpath:          {dberr.Unavailable, dberr.IO, "GDBM_ERR_REALPATH"},
	codeErrFileOwner:         {dberr.Unavailable, dberr.IO, "GDBM_ERR_FILE_OWNER"},
	codeErrFileMode:          {dberr.Unavailable, dberr.IO, "GDBM_ERR_FILE_MODE"},
	codeDirOverflow:          {dberr.Unavailable, dberr.IO, "GDBM_DIR_OVERFLOW"}, // the hash directory cannot grow: the file is full
	codeCantBeReader:         {dberr.Retryable, dberr.Busy, "GDBM_CANT_BE_READER"},
	codeCantBeWriter:         {dberr.Retryable, dberr.Busy, "GDBM_CANT_BE_WRITER"}, // another process holds the file's lock
	codeCannotReplace:        {dberr.Rollback, dberr.Constraint, "GDBM_CANNOT_REPLACE"},
	codeMalformedData:        {dberr.Rollback, dberr.Constraint, "GDBM_MALFORMED_DATA"},
	codeBadMagicNumber:       {dberr.Fatal, dberr.Corrupt, "GDBM_BAD_MAGIC_NUMBER"},
	codeEmptyDatabase:        {dberr.Fatal, dberr.Corrupt, "GDBM_EMPTY_DATABASE"},
	codeByteSwapped:          {dberr.Fatal, dberr.Corrupt, "GDBM_BYTE_SWAPPED"},
	codeBadFileOffset:        {dberr.Fatal, dberr.Corrupt, "GDBM_BAD_FILE_OFFSET"},
	codeFileEOF:              {dberr.Fatal, dberr.Corrupt, "GDBM_FILE_EOF"},
	codeNeedRecovery:         {dberr.Fatal, dberr.Corrupt, "GDBM_NEED_RECOVERY"},
	codeBadBucket:            {dberr.Fatal, dberr.Corrupt, "GDBM_BAD_BUCKET"},
	codeBadHeader:            {dberr.Fatal, dberr.Corrupt, "GDBM_BAD_HEADER"},
	codeBadAvail:             {dberr.Fatal, dberr.Corrupt, "GDBM_BAD_AVAIL"},
	codeBadHashTable:         {dberr.Fatal, dberr.Corrupt, "GDBM_BAD_HASH_TABLE"},
	codeBadDirEntry:          {dberr.Fatal, dberr.Corrupt, "GDBM_BAD_DIR_ENTRY"},
	codeBucketCacheCorrupted: {dberr.Fatal, dberr.Corrupt, "GDBM_BUCKET_CACHE_CORRUPTED"},
	codeBadHashEntry:         {dberr.Fatal, dberr.Corrupt, "GDBM_BAD_HASH_ENTRY"},
	codeReaderCantDelete:     {dberr.Fatal, dberr.Other, "GDBM_READER_CANT_DELETE"},
	codeReaderCantStore:      {dberr.Fatal, dberr.Other, "GDBM_READER_CANT_STORE"},
	codeReaderCantReorganize: {dberr.Fatal, dberr.Other, "GDBM_READER_CANT_REORGANIZE"},
	codeUnknownError:         {dberr.Fatal, dberr.Other, "GDBM_UNKNOWN_ERROR"},
	codeItemNotFound:         {dberr.Fatal, dberr.Other, "GDBM_ITEM_NOT_FOUND"}, // handled where it is expected; elsewhere a bug
	codeOptAlreadySet:        {dberr.Fatal, dberr.Other, "GDBM_OPT_ALREADY_SET"},
	codeOptBadval:            {dberr.Fatal, dberr.Other, "GDBM_OPT_BADVAL"},
	codeBadOpenFlags:         {dberr.Fatal, dberr.Other, "GDBM_BAD_OPEN_FLAGS"},
	codeNoDBName:             {dberr.Fatal, dberr.Other, "GDBM_NO_DBNAME"},
	codeErrUsage:             {dberr.Fatal, dberr.Other, "GDBM_ERR_USAGE"},
}

// classify wraps a gdbm or file-system error in a classified *dberr.Error.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	var ge *gdbmError
	if errors.As(err, &ge) {
		c, ok := codes[ge.Code]
		if !ok {
			c = class{dberr.Fatal, dberr.Other, fmt.Sprintf("GDBM_ERROR_%d", ge.Code)}
		}
		return dberr.New(c.class, c.kind, c.code, err)
	}
	if errors.Is(err, backend.ErrNoSuchTable) {
		return dberr.New(dberr.Fatal, dberr.Other, "", err)
	}
	return dberr.SystemIO(err)
}

// partial reports a commit that failed after some of its writes reached the
// files: gdbm cannot undo them, so the data no longer matches what the
// workload was told. Fatal: the run stops rather than count on it.
func partial(err error, applied, total int) error {
	return dberr.New(dberr.Fatal, dberr.Other, "partial_commit",
		fmt.Errorf("gdbm: the commit failed after %d of its %d writes were applied (gdbm has no transactions to undo them): %w", applied, total, err))
}
