// Package testdisk is dbgauge's own test disk: a FUSE pass-through file system
// over a folder, whose flushes can be made slow (an honest slow disk: every
// flush waits its turn, as on one spindle) or free (a lying disk that
// acknowledges flushes it never makes). It counts the flushes it receives.
//
// Older kernels send no fsync to a FUSE file system for writes on files
// opened with O_SYNC or O_DSYNC, so such writes are intercepted: each is a
// flush. Newer ones follow each such write with an fsync, which then finds
// nothing left to flush and costs nothing, so no write is flushed twice.
// Mounting needs /dev/fuse and root (or Debian's fuse3 for fusermount3).
package testdisk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Disk is a mounted test disk.
type Disk struct {
	// Dir is the mount point: put the files under test here.
	Dir     string
	server  *fuse.Server
	delay   atomic.Int64 // nanoseconds each flush takes
	lie     atomic.Bool  // acknowledge flushes without making them
	spindle sync.Mutex   // flushes are made one at a time
	flushes atomic.Int64
	backing string
	j       journal     // the power-loss mode's memory of unflushed writes
	watch   *time.Timer // aborts the mount before -test.timeout (abort.go)
}

// Available says why FUSE cannot be mounted here, or nil when it can.
func Available() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("testdisk: /dev/fuse: %w (FUSE needs the fuse kernel module and, without root, Debian's fuse3)", err)
	}
	f.Close()
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			return errors.New("testdisk: not root and no fusermount3: apt-get install fuse3")
		}
	}
	return nil
}

// Mount mounts a pass-through of backing at mnt (both folders must exist).
func Mount(backing, mnt string) (*Disk, error) {
	d := &Disk{Dir: mnt, backing: backing}
	lb, err := fs.NewLoopbackRoot(backing)
	if err != nil {
		return nil, err
	}
	ln, ok := lb.(*fs.LoopbackNode)
	if !ok {
		return nil, fmt.Errorf("testdisk: go-fuse's loopback root is a %T", lb)
	}
	root := &node{LoopbackNode: ln, d: d}
	ln.RootData.RootNode = root
	server, err := fs.Mount(mnt, root, &fs.Options{MountOptions: fuse.MountOptions{
		DirectMount: os.Geteuid() == 0, FsName: backing, Name: "dbgauge-testdisk",
		// As root, let other users in too: a managed server runs as its own.
		AllowOther: os.Geteuid() == 0,
	}})
	if err != nil {
		return nil, fmt.Errorf("testdisk: mount %s: %w", mnt, err)
	}
	d.server = server
	d.watchTimeout()
	return d, nil
}

// Honest makes every flush real and take at least delay, one at a time: a
// disk that makes about 1/delay flushes a second (8 ms: a 7,200 rpm platter).
func (d *Disk) Honest(delay time.Duration) {
	d.delay.Store(int64(delay))
	d.lie.Store(false)
}

// Lying makes every flush free and unmade: the disk acknowledges writes it
// has not stored.
func (d *Disk) Lying() {
	d.delay.Store(0)
	d.lie.Store(true)
}

// Flushes returns how many flushes the disk received (fsync, fdatasync, and
// writes to files opened with O_SYNC or O_DSYNC).
func (d *Disk) Flushes() int64 { return d.flushes.Load() }

// Unmount unmounts the disk. When files of it are still open (the code
// under test leaked them), the unmount fails with EBUSY: the connection is
// then aborted and the mount detached, since a mount served by this process
// would hang its exit, and the error says what was left open.
func (d *Disk) Unmount() error {
	err := d.server.Unmount()
	if err != nil {
		if aerr := d.Abort(); aerr != nil {
			err = errors.Join(err, aerr)
		}
		err = fmt.Errorf("testdisk: unmount %s (files of it still open: aborted and detached): %w", d.Dir, err)
	}
	if d.watch != nil {
		d.watch.Stop()
	}
	return err
}

// flush makes one flush under the disk's current behaviour: real runs the
// actual flush (nil when there is none to run).
func (d *Disk) flush(real func() syscall.Errno) syscall.Errno {
	d.flushes.Add(1)
	if d.lie.Load() {
		return 0
	}
	d.spindle.Lock()
	defer d.spindle.Unlock()
	start := time.Now()
	var errno syscall.Errno
	if real != nil {
		errno = real()
	}
	wait(start.Add(time.Duration(d.delay.Load())))
	return errno
}

// wait returns at deadline, not a millisecond after: a timer wakes a sleeper
// up to a millisecond late, which would make an 8 ms disk a 9 ms one; the
// last stretch is spent yielding.
func wait(deadline time.Time) {
	if rest := time.Until(deadline) - time.Millisecond; rest > 0 {
		time.Sleep(rest)
	}
	for time.Now().Before(deadline) {
		runtime.Gosched()
	}
}

const syncFlags = syscall.O_SYNC | syscall.O_DSYNC

type node struct {
	*fs.LoopbackNode
	d *Disk
}

var (
	_ fs.NodeOpener      = (*node)(nil)
	_ fs.NodeCreater     = (*node)(nil)
	_ fs.NodeWrapChilder = (*node)(nil)
)

// WrapChild makes every node below the root one of ours.
func (n *node) WrapChild(_ context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	if ln, ok := ops.(*fs.LoopbackNode); ok {
		return &node{LoopbackNode: ln, d: n.d}
	}
	return ops
}

// openFlags strips the sync flags from the backing file when the disk lies,
// so that the backing store does not flush on its behalf.
func (n *node) openFlags(flags uint32) uint32 {
	if n.d.lie.Load() {
		return flags &^ syncFlags
	}
	return flags
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, fl, errno := n.LoopbackNode.Open(ctx, n.openFlags(flags))
	if errno != 0 {
		return nil, 0, errno
	}
	return n.wrap(fh, flags), fl, 0
}

func (n *node) Create(ctx context.Context, name string, flags, mode uint32, out *fuse.EntryOut) (*fs.Inode, fs.FileHandle, uint32, syscall.Errno) {
	in, fh, fl, errno := n.LoopbackNode.Create(ctx, name, n.openFlags(flags), mode, out)
	if errno != 0 {
		return nil, nil, 0, errno
	}
	n.d.j.createdFile(in, filepath.Join(n.Path(nil), name))
	child, _ := in.Operations().(*node)
	return in, child.wrap(fh, flags), fl, 0
}

// Rename keeps the power-loss journal's paths current.
func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	errno := n.LoopbackNode.Rename(ctx, name, newParent, newName, flags)
	if errno == 0 {
		np := newParent.EmbeddedInode()
		if in := np.GetChild(newName); in != nil {
			n.d.j.renamed(in, filepath.Join(np.Path(nil), newName))
		}
	}
	return errno
}

func (n *node) wrap(fh fs.FileHandle, flags uint32) fs.FileHandle {
	lf, ok := fh.(*fs.LoopbackFile)
	if !ok || n == nil {
		return fh
	}
	return &file{LoopbackFile: lf, d: n.d, n: n, sync: flags&syncFlags != 0}
}

// file intercepts the flushes of one open file.
type file struct {
	*fs.LoopbackFile
	d     *Disk
	n     *node
	sync  bool        // opened with O_SYNC or O_DSYNC: every write is a flush
	dirty atomic.Bool // written since the last flush
}

var (
	_ fs.FileWriter  = (*file)(nil)
	_ fs.FileFsyncer = (*file)(nil)
)

// PassthroughFd refuses kernel passthrough: every write must come here.
func (f *file) PassthroughFd() (int, bool) { return 0, false }

func (f *file) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	if !f.sync {
		f.d.j.before(ctx, f, off, len(data))
	}
	n, errno := f.LoopbackFile.Write(ctx, data, off)
	if f.sync && errno == 0 {
		f.d.j.flushed(ctx, f) // taken as flushing the file: close enough for O_DSYNC logs
	}
	return n, f.written(errno)
}

// written follows a write: on a file opened with a sync flag it is a flush.
// The backing file has the sync flags too (unless the disk lies), so the
// write itself was the real flush; only the delay remains.
func (f *file) written(errno syscall.Errno) syscall.Errno {
	if errno != 0 {
		return errno
	}
	if !f.sync {
		f.dirty.Store(true)
		return 0
	}
	return f.d.flush(nil)
}

func (f *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	defer f.d.j.flushed(ctx, f)
	if f.sync && !f.dirty.Load() {
		return f.LoopbackFile.Fsync(ctx, flags) // its writes were flushed as they came
	}
	f.dirty.Store(false)
	return f.d.flush(func() syscall.Errno { return f.LoopbackFile.Fsync(ctx, flags) })
}

func (f *file) Writev(ctx context.Context, data [][]byte, off int64) (uint32, syscall.Errno) {
	if !f.sync {
		total := 0
		for _, b := range data {
			total += len(b)
		}
		f.d.j.before(ctx, f, off, total)
	}
	n, errno := f.LoopbackFile.Writev(ctx, data, off)
	if f.sync && errno == 0 {
		f.d.j.flushed(ctx, f)
	}
	return n, f.written(errno)
}
