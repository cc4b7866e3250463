// Package powerloss is dbgauge's power-loss test disk: a FUSE pass-through file system
// over a folder, whose flushes can be made slow (an honest slow disk: every
// flush waits its turn, as on one spindle) or free (a lying disk that
// acknowledges flushes it never makes). It counts the flushes it receives.
//
// The disk is served by a child process of its own (this executable again,
// started by Mount; Serve is its entry point), never by the process that
// uses it. Served in-process it deadlocked: SQLite, page-faulting on its -shm
// file mapped from the disk, held the process's mmap lock while waiting for
// the disk's answer, whose handler needed that lock to grow the Go heap while
// a stop-the-world collection waited for the handler. Apart, neither process
// waits on itself: if either dies, the kernel aborts the connection when the
// server's /dev/fuse closes, and every request fails instead of hanging.
//
// Older kernels send no fsync to a FUSE file system for writes on files
// opened with O_SYNC or O_DSYNC, so such writes are intercepted: each is a
// flush. Newer ones follow each such write with an fsync, which then finds
// nothing left to flush and costs nothing, so no write is flushed twice.
// Mounting needs /dev/fuse and root (or Debian's fuse3 for fusermount3).
package powerloss

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// fsys is the file system a server serves. The disk's behaviour, its flush
// count and its power-loss journal live here, in the server's process; the
// Disk of the process that mounted it asks for them (serve.go).
type fsys struct {
	delay   atomic.Int64 // nanoseconds each flush takes
	lie     atomic.Bool  // acknowledge flushes without making them
	spindle sync.Mutex   // flushes are made one at a time
	flushes atomic.Int64
	backing string
	j       journal // the power-loss mode's memory of unflushed writes
}

// mountFS mounts a pass-through of backing at mnt and serves it from this
// process: only a server (serve.go) calls it.
func mountFS(backing, mnt string) (*fsys, *fuse.Server, error) {
	d := &fsys{backing: backing}
	lb, err := fs.NewLoopbackRoot(backing)
	if err != nil {
		return nil, nil, fmt.Errorf("powerloss: %w", err)
	}
	ln, ok := lb.(*fs.LoopbackNode)
	if !ok {
		return nil, nil, fmt.Errorf("powerloss: go-fuse's loopback root is a %T", lb)
	}
	root := &node{LoopbackNode: ln, d: d}
	ln.RootData.RootNode = root
	server, err := fs.Mount(mnt, root, &fs.Options{MountOptions: fuse.MountOptions{
		DirectMount: os.Geteuid() == 0, FsName: backing, Name: "dbgauge-powerloss",
		// As root, let other users in too: a managed server runs as its own.
		AllowOther: os.Geteuid() == 0,
	}})
	if err != nil {
		return nil, nil, fmt.Errorf("powerloss: mount %s: %w", mnt, err)
	}
	return d, server, nil
}

// honest and lying set the disk's behaviour (Disk.Honest, Disk.Lying).
func (d *fsys) honest(delay time.Duration) {
	d.delay.Store(int64(delay))
	d.lie.Store(false)
}

func (d *fsys) lying() {
	d.delay.Store(0)
	d.lie.Store(true)
}

// flush makes one flush under the disk's current behaviour: real runs the
// actual flush (nil when there is none to run).
func (d *fsys) flush(real func() syscall.Errno) syscall.Errno {
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
	d *fsys
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
	d     *fsys
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
