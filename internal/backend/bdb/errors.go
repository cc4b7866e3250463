package bdb

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

var errTxOpen, errNoTx = backend.TxStateErrors("bdb")

var errReadOnly = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("bdb: a write in a transaction begun to read"))

// Error is a Berkeley DB call's failure: its code (a DB_* code, or an
// errno) and what was done.
type Error struct {
	Code int
	Op   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("bdb: %s: %s (%d)", e.Op, codeName(e.Code), e.Code)
}

// codeErr is nil for 0, else the classified error of code r.
func codeErr[T ~int | ~int32](r T, op string) error {
	if r == 0 {
		return nil
	}
	return classify(&Error{Code: int(r), Op: op})
}

// names are Berkeley DB's codes dbgauge names (db.h).
var names = map[int]string{
	codeDeadlock: "DB_LOCK_DEADLOCK", codeNotGranted: "DB_LOCK_NOTGRANTED", codeNotFound: "DB_NOTFOUND", codeRecovery: "DB_RUNRECOVERY",
}

// isNotFound says whether err is Berkeley DB's ENOENT: a file that is not there.
func isNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == int(syscall.ENOENT)
}

func codeName(code int) string {
	if n, ok := names[code]; ok {
		return n
	}
	if code > 0 {
		return syscall.Errno(code).Error()
	}
	return "Berkeley DB error"
}

// classify wraps a Berkeley DB error by its code: a deadlock the lock
// detector broke (the transaction was chosen to abort) or a lock not
// granted → retryable; DB_RUNRECOVERY (the environment panicked) → fatal,
// corrupt; an errno (a full disk, a failed write) → unavailable; a missing
// table → fatal.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	var e *Error
	if !errors.As(err, &e) {
		if errors.Is(err, backend.ErrNoSuchTable) {
			return dberr.New(dberr.Fatal, dberr.Other, "no such table", err)
		}
		return dberr.SystemIO(err)
	}
	name := codeName(e.Code)
	switch {
	case e.Code == codeDeadlock:
		return dberr.New(dberr.Retryable, dberr.Deadlock, name, err)
	case e.Code == codeNotGranted:
		return dberr.New(dberr.Retryable, dberr.Lock, name, err)
	case e.Code == codeRecovery:
		return dberr.New(dberr.Fatal, dberr.Corrupt, name, err)
	case e.Code == int(syscall.ENOENT):
		return dberr.New(dberr.Fatal, dberr.Other, name, err)
	case e.Code > 0:
		return dberr.New(dberr.Unavailable, dberr.IO, name, err)
	}
	return dberr.New(dberr.Fatal, dberr.Other, name, err)
}
