package testdisk

import (
	"runtime/debug"
	"sync"
)

// The disk is served by the process that mounts it. A stop-the-world of the
// garbage collector while one of its requests was in flight has been seen to
// deadlock under -race (a request handler that never reached a safe point
// while SQLite, in the same process, waited for its answer), and with it the
// whole test binary. Until the disk is served from a process of its own, no
// collection runs while a disk is mounted: tests run for seconds.
var gc struct {
	sync.Mutex
	mounted int
	percent int
}

// gcOff turns the collector off at the first mount.
func gcOff() {
	gc.Lock()
	defer gc.Unlock()
	if gc.mounted == 0 {
		gc.percent = debug.SetGCPercent(-1)
	}
	gc.mounted++
}

// gcOn turns it back on when the last disk is gone.
func gcOn() {
	gc.Lock()
	defer gc.Unlock()
	if gc.mounted == 0 {
		return
	}
	gc.mounted--
	if gc.mounted == 0 {
		debug.SetGCPercent(gc.percent)
	}
}
