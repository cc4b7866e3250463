//go:build linux

package disk

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

func openScratch(path string, m Method, direct bool) (*os.File, error) {
	flags := os.O_RDWR | os.O_CREATE | os.O_TRUNC
	switch m {
	case OSync:
		flags |= unix.O_SYNC
	case ODsync:
		flags |= unix.O_DSYNC
	}
	if direct {
		flags |= unix.O_DIRECT
	}
	return os.OpenFile(path, flags, 0o600)
}

func fdatasync(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }

func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
