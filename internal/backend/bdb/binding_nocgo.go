//go:build !cgo

package bdb

import "errors"

// Without cgo there is no libdb: the package still builds, and Open says
// what to do before touching anything (see open).
const cgoEnabled = false

// The codes of db.h, and its version, named as binding.go names them.
const (
	codeNotFound   = -30988
	codeDeadlock   = -30993
	codeNotGranted = -30992
	codeRecovery   = -30973
	flagNoSync     = 0x1
	flagWriteNoSyn = 0x20
	version        = "Berkeley DB (unavailable: built without cgo)"
)

var errNoCgo = errors.New("bdb: this dbgauge was built without cgo")

type env struct{}

type table struct{ hash bool }

type txn struct{}

type envStats struct{ commits, aborts, syncs, writes, deadlocks int64 }

func openEnv(string, uint32, uint32) (*env, error)                      { return nil, errNoCgo }
func (*env) close() error                                               { return errNoCgo }
func (*env) flags() (uint32, error)                                     { return 0, errNoCgo }
func (*env) cacheBytes() (int64, error)                                 { return 0, errNoCgo }
func (*env) logFlush() error                                            { return errNoCgo }
func (*env) stats() (envStats, error)                                   { return envStats{}, errNoCgo }
func (*env) openTable(string, bool, uint32, bool) (*table, error)       { return nil, errNoCgo }
func (*env) removeTable(string) error                                   { return errNoCgo }
func (*env) begin() (*txn, error)                                       { return nil, errNoCgo }
func (*table) close() error                                             { return errNoCgo }
func (*table) get(*txn, []byte) ([]byte, bool, error)                   { return nil, false, errNoCgo }
func (*table) put(*txn, []byte, []byte) error                           { return errNoCgo }
func (*table) del(*txn, []byte) error                                   { return errNoCgo }
func (*table) each(*txn, []byte, func(k, v []byte) (bool, error)) error { return errNoCgo }
func (*txn) commit() error                                              { return errNoCgo }
func (*txn) abort() error                                               { return errNoCgo }
