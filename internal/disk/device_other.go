//go:build !linux

package disk

import (
	"errors"
	"path/filepath"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Describe returns the absolute path only: device facts are read on Linux.
func Describe(path string) (result.Device, error) {
	p, _ := filepath.Abs(path)
	return result.Device{Path: p}, errors.New("disk: device facts are only read on Linux")
}
