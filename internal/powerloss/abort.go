package powerloss

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// connections is where the kernel lists FUSE connections (fusectl).
const connections = "/sys/fs/fuse/connections"

// No watch aborts a disk before -test.timeout any more: a test binary that
// times out exits (the server, alive, answers what its exit asks of the
// disk), the server dies with it (Pdeathsig), and the kernel aborts the
// connection when the server's /dev/fuse closes. Only the dead mount remains.

// Abort cuts the disk's FUSE connection: every request in flight or to come
// fails at once, the server is stopped and the mount detached. For a test
// that is about to be killed, and Unmount's way out when files of the disk
// are still open; Unmount is the way out otherwise.
func (d *Disk) Abort() error {
	d.aborted.Store(true)
	return d.abort()
}

// abort aborts the connection through fusectl (at once, even for requests
// in flight), kills the server (which aborts it too, where fusectl cannot be
// reached), and detaches the mount.
func (d *Disk) abort() error {
	ctlErr := fusectlAbort(d.dev)
	d.kill()
	d.waitExit()
	var errs []error
	select {
	case <-d.exited:
	default:
		errs = append(errs, fmt.Errorf("abort %s: the server (pid %d) does not die", d.Dir, d.cmd.Process.Pid), ctlErr)
	}
	if err := detach(d.Dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// fusectlAbort aborts the FUSE connection of the device dev.
func fusectlAbort(dev uint64) error {
	if _, err := os.Stat(connections); err == nil {
		entries, _ := os.ReadDir(connections)
		if len(entries) == 0 && os.Geteuid() == 0 {
			_ = syscall.Mount("fusectl", connections, "fusectl", 0, "")
		}
	}
	path := filepath.Join(connections, strconv.FormatUint(uint64(unix.Minor(dev)), 10), "abort")
	if err := os.WriteFile(path, []byte("1"), 0); err != nil {
		return fmt.Errorf("abort the FUSE connection: %w", err)
	}
	return nil
}

// detach detaches the FUSE mount at dir, if there is one, even a dead one
// or one whose files are still open: MNT_DETACH as root, fusermount3 -u -z
// otherwise.
func detach(dir string) error {
	if !fuseMounted(dir) {
		return nil
	}
	if os.Geteuid() == 0 {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("detach %s: %w", dir, err)
		}
		return nil
	}
	if out, err := exec.Command("fusermount3", "-u", "-z", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("detach %s: fusermount3: %w: %s", dir, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// fuseMounted says whether a FUSE file system is mounted at dir.
func fuseMounted(dir string) bool {
	// The mount point itself cannot be looked at when its server is dead;
	// its parent can.
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if parent, err := filepath.EvalSymlinks(filepath.Dir(dir)); err == nil {
		dir = filepath.Join(parent, filepath.Base(dir))
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return true // cannot tell: try
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional…] - fstype source super
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || unescape(fields[4]) != dir {
			continue
		}
		for i, f := range fields {
			if f == "-" && i+1 < len(fields) && strings.HasPrefix(fields[i+1], "fuse") {
				return true
			}
		}
	}
	return false
}

// unescape undoes mountinfo's octal escapes (\040 for a space), which are
// Go's too.
func unescape(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}
