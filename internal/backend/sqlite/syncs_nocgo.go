//go:build !cgo

package sqlite

import "errors"

// syncCounter needs cgo, as SQLite does: without it Open refuses first.
type syncCounter struct{ name string }

func newSyncCounter() (*syncCounter, error) { return nil, errors.New("sqlite needs cgo") }

func (*syncCounter) syncs() (wal, db, other int64) { return 0, 0, 0 }

func (*syncCounter) bytes() (walWritten, dbWritten, otherWritten, dbRead int64) { return 0, 0, 0, 0 }

func (*syncCounter) unregister() {}
