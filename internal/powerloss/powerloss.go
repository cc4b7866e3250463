package powerloss

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// The power-loss mode: every write goes through to the backing folder at once
// (reads need nothing special), but the disk remembers what each write
// replaced until the file is flushed. Cut then puts back what unflushed
// writes replaced, cuts files back to their flushed size and removes files
// created since their last flush, as a power cut drops a page cache: what
// was never fsynced (or fdatasynced, or written through O_SYNC or O_DSYNC)
// is gone. A file's fsync also makes its own creation durable, as on ext4
// (directory fsyncs are passed through and not needed); renames, unlinks and
// truncations are taken as durable when they return (journaled metadata),
// which is kinder than POSIX promises. The journal lives in the server; the
// Disk's methods ask it.
type journal struct {
	mu      sync.Mutex
	on      bool
	files   map[uint64]*fileState // by inode number
	created map[uint64]string     // files created and never flushed: their path when created
}

type fileState struct {
	n          *node
	undo       []undo // in the order the writes came
	syncedSize int64
}

type undo struct {
	off int64
	old []byte // what the write replaced, inside the file's size then
}

// PowerLoss makes the disk remember unflushed writes from now on, so that
// Cut can drop them. What is on the disk now counts as flushed.
func (d *Disk) PowerLoss() { d.do(request{Op: opPowerLoss}) }

// Checkpoint makes everything written so far durable, as if it had all been
// flushed: what came before (setting up) is not under test.
func (d *Disk) Checkpoint() { d.do(request{Op: opCheckpoint}) }

// Unflushed says how many writes and created files a cut would drop now.
func (d *Disk) Unflushed() (writes, files int) {
	r := d.do(request{Op: opUnflushed})
	return r.Writes, r.Files
}

// Cut is the power cut: every write not flushed is undone in the backing
// folder, newest first; files are cut back to their flushed size; files
// created and never flushed disappear. Call it when nothing writes any more
// (the engine was killed), then unmount.
func (d *Disk) Cut() error {
	_, err := d.call(request{Op: opCut})
	return err
}

// The server's side of the methods above.

func (d *fsys) powerLoss() {
	d.j.mu.Lock()
	defer d.j.mu.Unlock()
	d.j.on = true
	d.j.files = map[uint64]*fileState{}
	d.j.created = map[uint64]string{}
}

func (d *fsys) checkpoint() {
	d.j.mu.Lock()
	defer d.j.mu.Unlock()
	if d.j.on {
		d.j.files = map[uint64]*fileState{}
		d.j.created = map[uint64]string{}
	}
}

func (d *fsys) unflushed() (writes, files int) {
	d.j.mu.Lock()
	defer d.j.mu.Unlock()
	for _, st := range d.j.files {
		writes += len(st.undo)
	}
	return writes, len(d.j.created)
}

func (d *fsys) cut() error {
	d.j.mu.Lock()
	defer d.j.mu.Unlock()
	var errs []error
	for ino, st := range d.j.files {
		if _, gone := d.j.created[ino]; gone {
			continue
		}
		rel := st.n.Path(nil)
		if rel == "" {
			continue // unlinked (replaced by a rename, say): taken as durable
		}
		path := filepath.Join(d.backing, rel)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if errors.Is(err, os.ErrNotExist) {
			continue // unlinked since: taken as durable
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for i := len(st.undo) - 1; i >= 0; i-- {
			u := st.undo[i]
			if _, err := f.WriteAt(u.old, u.off); err != nil {
				errs = append(errs, fmt.Errorf("undo %s at %d: %w", path, u.off, err))
			}
		}
		if err := f.Truncate(st.syncedSize); err != nil {
			errs = append(errs, err)
		}
		errs = append(errs, f.Close())
	}
	for _, rel := range d.j.created {
		if rel == "" || rel == "." {
			continue
		}
		if err := os.Remove(filepath.Join(d.backing, rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	d.j.files = map[uint64]*fileState{}
	d.j.created = map[uint64]string{}
	return errors.Join(errs...)
}

// state returns the journal of f's inode; nil when the mode is off.
// Call with j.mu held.
func (j *journal) state(ctx context.Context, f *file) *fileState {
	if !j.on {
		return nil
	}
	ino := f.n.StableAttr().Ino
	st := j.files[ino]
	if st == nil {
		st = &fileState{n: f.n, syncedSize: f.size(ctx)}
		j.files[ino] = st
	}
	return st
}

// size is the file's size now (0 when it cannot be read).
func (f *file) size(ctx context.Context) int64 {
	var out fuse.AttrOut
	if errno := f.Getattr(ctx, &out); errno != 0 {
		return 0
	}
	return int64(out.Size)
}

// before records what a write of n bytes at off is about to replace.
func (j *journal) before(ctx context.Context, f *file, off int64, n int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := j.state(ctx, f)
	if st == nil {
		return
	}
	end := min(off+int64(n), f.size(ctx))
	if end <= off {
		st.undo = append(st.undo, undo{off: off}) // beyond the end: the truncate undoes it
		return
	}
	old := make([]byte, end-off)
	res, errno := f.Read(ctx, old, off)
	if errno == 0 {
		old, _ = res.Bytes(old)
		old = slices.Clone(old)
	}
	st.undo = append(st.undo, undo{off: off, old: old})
}

// flushed makes f's writes so far durable (fsync, fdatasync, a sync write).
func (j *journal) flushed(ctx context.Context, f *file) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.on {
		return
	}
	ino := f.n.StableAttr().Ino
	delete(j.created, ino)
	j.files[ino] = &fileState{n: f.n, syncedSize: f.size(ctx)}
}

// createdFile records a file created as rel (its inode is not in the tree
// yet while Create runs, so its path comes from its parent's).
func (j *journal) createdFile(in *fs.Inode, rel string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.on {
		j.created[in.StableAttr().Ino] = rel
	}
}

// renamed keeps the path of a created, unflushed file current.
func (j *journal) renamed(in *fs.Inode, rel string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.created[in.StableAttr().Ino]; ok {
		j.created[in.StableAttr().Ino] = rel
	}
}
