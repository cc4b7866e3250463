package testdisk

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// started is when the test binary started, near enough: -test.timeout's
// clock starts later.
var started = time.Now()

// connections is where the kernel lists FUSE connections (fusectl).
const connections = "/sys/fs/fuse/connections"

// watchTimeout aborts the disk's FUSE connection 15 s before the test
// binary's -test.timeout would panic. A process that exits with files open on
// a FUSE file system it serves itself waits forever in their flush for its
// own, dead, answer, and `go test` waits with it: a timed-out test would hang
// CI instead of failing. Unmount stops the watch.
func (d *Disk) watchTimeout() {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return
	}
	timeout, err := time.ParseDuration(f.Value.String())
	if err != nil || timeout <= 0 {
		return
	}
	d.watch = time.AfterFunc(time.Until(started.Add(timeout-15*time.Second)), func() {
		if err := d.Abort(); err != nil {
			fmt.Fprintln(os.Stderr, "testdisk:", err) // a test binary about to time out: nobody else can say it
		}
	})
}

// Abort cuts the disk's FUSE connection: every request in flight or to come
// fails at once, and the mount is detached. For a test that is about to be
// killed; Unmount is the way out otherwise.
func (d *Disk) Abort() error {
	var st syscall.Stat_t
	if err := syscall.Stat(d.Dir, &st); err != nil {
		return fmt.Errorf("abort %s: %w", d.Dir, err)
	}
	if _, err := os.Stat(filepath.Join(connections, "")); err == nil {
		entries, _ := os.ReadDir(connections)
		if len(entries) == 0 && os.Geteuid() == 0 {
			_ = syscall.Mount("fusectl", connections, "fusectl", 0, "")
		}
	}
	path := filepath.Join(connections, fmt.Sprint(unix.Minor(st.Dev)), "abort")
	err := os.WriteFile(path, []byte("1"), 0)
	_ = syscall.Unmount(d.Dir, syscall.MNT_DETACH)
	if err != nil {
		return fmt.Errorf("abort %s: %w", d.Dir, err)
	}
	return nil
}
