//go:build linux

package disk

import (
	"os"

	"golang.org/x/sys/unix"
)

// DropPageCache writes the dirty pages out (sync) and asks the kernel to
// drop the clean ones from the page cache (echo 1 > /proc/sys/vm/drop_caches),
// so that a run starts without the pages an earlier one read or wrote. It
// returns "dropped", or why not: only root may.
func DropPageCache() string {
	if os.Geteuid() != 0 {
		return "not dropped: dbgauge does not run as root"
	}
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("1\n"), 0); err != nil {
		return "not dropped: " + err.Error()
	}
	return "dropped"
}

// Writable reports whether this process may create files in dir (access(2)
// with W_OK|X_OK: a read-only mount says so too), without writing anything.
func Writable(dir string) error {
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}
