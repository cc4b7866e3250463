//go:build !linux

package disk

import "os"

// DropPageCache drops nothing outside Linux; it says so.
func DropPageCache() string { return "not dropped: only Linux has /proc/sys/vm/drop_caches" }

// Writable reports whether this process may create files in dir, by
// creating one and removing it.
func Writable(dir string) error {
	f, err := os.CreateTemp(dir, ".dbgauge-")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}
