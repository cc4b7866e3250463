package powerloss

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbgauge/dbgauge/internal/child"
)

// Disk is a mounted test disk, served by a child process (the server) that
// its methods ask through a control channel.
type Disk struct {
	// Dir is the mount point: put the files under test here.
	Dir     string
	backing string
	dev     uint64 // the mount's device: its FUSE connection's number (abort.go)

	cmd     *exec.Cmd
	exited  chan struct{} // closed when the server has exited; waitErr says how
	waitErr error
	aborted atomic.Bool // Abort was called: the server is gone, the mount detached

	mu   sync.Mutex // one request at a time
	conn net.Conn
	enc  *json.Encoder
	dec  *json.Decoder
	done bool // unmounted: the control channel is closed

	errMu sync.Mutex
	err   error // the first failure of a method that returns no error
}

// How long the server may take: to mount, to answer a request (a cut
// rewrites what the workload wrote), and to exit once unmounted.
const (
	mountTimeout   = 30 * time.Second
	requestTimeout = 2 * time.Minute
	exitTimeout    = 10 * time.Second
)

// Available says why FUSE cannot be mounted here, or nil when it can.
func Available() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("powerloss: /dev/fuse: %w (FUSE needs the fuse kernel module and, without root, Debian's fuse3)", err)
	}
	f.Close()
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			return errors.New("powerloss: not root and no fusermount3: apt-get install fuse3")
		}
	}
	return nil
}

// Mount mounts a pass-through of backing at mnt (both folders must exist).
// The disk is served by a child process, `EXE child powerloss` (child.Start):
// this executable again, so a test binary's TestMain must call child.Enter
// first and serve (Serve) when it returns true. The server dies with this
// process.
func Mount(backing, mnt string) (*Disk, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("powerloss: the server's executable: %w", err)
	}
	// A socket pair: ours and the server's end (passed to it).
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("powerloss: control channel: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "powerloss-control"), os.NewFile(uintptr(fds[1]), "powerloss-control")
	conn, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("powerloss: control channel: %w", err)
	}
	spec := child.Spec{Role: child.RolePowerLoss, Disk: &child.Disk{Backing: backing, Mnt: mnt, Control: child.Pass(theirs)}}
	cmd := exec.Command(exe)
	// A race-detecting server (a test binary built with -race) need not
	// wait a second at exit for races to report: the exit follows the unmount.
	cmd.Env = append(os.Environ(), "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	// Pdeathsig: the server dies with us, and with it the mount's connection.
	// Its own process group: a Ctrl-C at the terminal is ours to handle
	// (stop cleanly, then unmount), not the server's.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	d := &Disk{Dir: mnt, backing: backing, cmd: cmd, exited: make(chan struct{}), conn: conn,
		enc: json.NewEncoder(conn), dec: json.NewDecoder(conn)}
	// Pdeathsig is sent when the thread that started the child ends, not the
	// process, and Go ends a thread when a goroutine locked to it returns.
	// So the server is started and waited for by a goroutine locked to its
	// thread for as long as the server lives. Then the thread is unlocked,
	// not ended: before it was locked it may have started another child
	// with a Pdeathsig of its own (a crash's run, a matrix's cell), which
	// its end would kill.
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := child.Start(cmd, spec); err != nil {
			started <- err
			return
		}
		started <- nil
		d.waitErr = cmd.Wait()
		close(d.exited)
	}()
	if err := <-started; err != nil {
		conn.Close()
		return nil, fmt.Errorf("powerloss: start the test disk's server: %w", err)
	}
	// Its first answer says whether it mounted.
	var r response
	_ = conn.SetDeadline(time.Now().Add(mountTimeout))
	if err := d.dec.Decode(&r); err != nil {
		conn.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			d.kill()
			d.waitExit()
			return nil, fmt.Errorf("powerloss: the test disk's server did not mount %s within %s", mnt, mountTimeout)
		}
		return nil, fmt.Errorf("powerloss: the test disk's server exited before mounting %s: %s", mnt, d.exitText())
	}
	if r.Err != "" {
		conn.Close()
		d.waitExit()
		return nil, errors.New(r.Err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(mnt, &st); err != nil {
		err = fmt.Errorf("powerloss: the new mount %s: %w", mnt, err)
		return nil, errors.Join(err, d.Unmount())
	}
	d.dev = st.Dev
	return d, nil
}

// Honest makes every flush real and take at least delay, one at a time: a
// disk that makes about 1/delay flushes a second (8 ms: a 7,200 rpm platter).
func (d *Disk) Honest(delay time.Duration) { d.do(request{Op: opHonest, Delay: delay}) }

// Lying makes every flush free and unmade: the disk acknowledges writes it
// has not stored.
func (d *Disk) Lying() { d.do(request{Op: opLying}) }

// Flushes returns how many flushes the disk received (fsync, fdatasync, and
// writes to files opened with O_SYNC or O_DSYNC); 0 when its server is gone
// (Err says why).
func (d *Disk) Flushes() int64 { return d.do(request{Op: opFlushes}).Flushes }

// Err returns the first failure of a method that returns no error (Honest,
// Lying, Flushes, PowerLoss, Checkpoint, Unflushed): its server died, most
// likely. Unmount reports it too.
func (d *Disk) Err() error {
	d.errMu.Lock()
	defer d.errMu.Unlock()
	return d.err
}

// Unmount unmounts the disk and stops its server. When files of it are
// still open (the code under test leaked them), the unmount fails with
// EBUSY: the connection is then aborted and the mount detached, and the
// error says what was left open. When the server has died, the dead mount is
// detached and the error says so. Unmounting again does nothing.
func (d *Disk) Unmount() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done {
		return nil
	}
	if d.aborted.Load() {
		d.close() // Abort stopped the server and detached the mount
		return nil
	}
	_, err := d.callLocked(request{Op: opUnmount})
	var gone *goneError
	switch {
	case err == nil:
		d.close()
		return nil
	case errors.As(err, &gone):
		d.close()
		if derr := detach(d.Dir); derr != nil {
			return errors.Join(err, derr)
		}
		return fmt.Errorf("%w (its mount %s was detached)", err, d.Dir)
	default:
		aerr := d.abort()
		d.close()
		return fmt.Errorf("powerloss: unmount %s (files of it still open: aborted and detached): %w", d.Dir, errors.Join(err, aerr))
	}
}

// do makes a request of a method that returns no error: a failure is kept
// for Err.
func (d *Disk) do(req request) response {
	r, err := d.call(req)
	if err != nil {
		d.errMu.Lock()
		if d.err == nil {
			d.err = err
		}
		d.errMu.Unlock()
	}
	return r
}

func (d *Disk) call(req request) (response, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.callLocked(req)
}

// goneError says that the server died, or was killed for not answering.
type goneError struct{ msg string }

func (e *goneError) Error() string { return e.msg }

// callLocked sends one request and reads its answer; d.mu is held.
func (d *Disk) callLocked(req request) (response, error) {
	var r response
	if d.done {
		return r, fmt.Errorf("powerloss: %s: the disk at %s is unmounted", req.Op, d.Dir)
	}
	if d.aborted.Load() {
		return r, fmt.Errorf("powerloss: %s: the disk at %s was aborted", req.Op, d.Dir)
	}
	_ = d.conn.SetDeadline(time.Now().Add(requestTimeout))
	err := d.enc.Encode(req)
	if err == nil {
		err = d.dec.Decode(&r)
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		d.kill()
		d.waitExit()
		return r, &goneError{fmt.Sprintf("powerloss: the test disk's server (pid %d, %s) did not answer %s within %s: killed",
			d.cmd.Process.Pid, d.Dir, req.Op, requestTimeout)}
	case err != nil:
		d.waitExit()
		return r, &goneError{fmt.Sprintf("powerloss: the test disk's server (pid %d, %s) died: %s", d.cmd.Process.Pid, d.Dir, d.exitText())}
	case r.Err != "":
		return r, errors.New(r.Err)
	}
	return r, nil
}

// close ends the control channel, which tells the server to leave (it
// unmounts first if it still can), and waits for it to exit.
func (d *Disk) close() {
	d.done = true
	d.conn.Close()
	d.waitExit()
}

// waitExit waits for the server to exit, killing it if it takes too long.
func (d *Disk) waitExit() {
	select {
	case <-d.exited:
		return
	case <-time.After(exitTimeout):
	}
	d.kill()
	select {
	case <-d.exited:
	case <-time.After(exitTimeout): // unkillable for now (in the kernel): leave it
	}
}

// kill kills the server: the kernel then aborts the mount's connection.
func (d *Disk) kill() { _ = d.cmd.Process.Kill() }

// exitText says how the server exited, once it has.
func (d *Disk) exitText() string {
	select {
	case <-d.exited:
	case <-time.After(exitTimeout):
		return "it has not exited"
	}
	if d.waitErr == nil {
		return "it exited with status 0"
	}
	return d.waitErr.Error()
}
