//go:build !linux

package disk

import (
	"errors"
	"os"
	"unsafe"
)

func openScratch(string, Method, bool) (*os.File, error) {
	return nil, errors.New("disk: the probe runs on Linux only")
}

func fdatasync(f *os.File) error { return f.Sync() }

func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
