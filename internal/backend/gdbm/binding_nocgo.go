//go:build !cgo

package gdbm

import "errors"

// Without cgo there is no libgdbm: the package still builds, and Open says
// what to do before touching anything (see open).
const cgoEnabled = false

var errNoCgo = errors.New("gdbm: this dbgauge was built without cgo")

func libVersion() string { return "unavailable (built without cgo)" }
func libBanner() string  { return libVersion() }

type fileOptions struct {
	blockSize int
	noMmap    bool
	cacheSize int
	centfree  int
	coalesce  int
}

type file struct{ path string }

type fileInfo struct {
	BlockSize  int
	CacheSize  int
	CacheAuto  bool
	Mmap       bool
	SyncMode   bool
	Centfree   bool
	Coalesce   bool
	DirDepth   int
	BucketSize int
}

func openFile(string, fileOptions) (*file, error)              { return nil, errNoCgo }
func (f *file) close() error                                   { return errNoCgo }
func (f *file) put(_, _ []byte) error                          { return errNoCgo }
func (f *file) get([]byte) ([]byte, bool, error)               { return nil, false, errNoCgo }
func (f *file) del([]byte) error                               { return errNoCgo }
func (f *file) walk(func(k, v []byte, found bool) error) error { return errNoCgo }
func (f *file) sync() error                                    { return errNoCgo }
func (f *file) count() (int64, error)                          { return 0, errNoCgo }
func (f *file) buckets() (int64, error)                        { return 0, errNoCgo }
func (f *file) verifyAvail() error                             { return errNoCgo }
func (f *file) needsRecovery() bool                            { return false }
func (f *file) info() (fileInfo, error)                        { return fileInfo{}, errNoCgo }
func (f *file) cacheStats() (accesses, hits, cached int64)     { return 0, 0, 0 }
