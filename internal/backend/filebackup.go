package backend

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// FileBackup is an embedded engine's backup held in one file (SQLite,
// bbolt). A restore copies it and opens the copy, so the backup itself
// stays as it was taken.
type FileBackup struct {
	BackupInfo
	// Open opens the engine on a database file.
	Open func(ctx context.Context, path string) (DB, error)
	n    int
}

// Info says how the backup was taken.
func (f *FileBackup) Info() BackupInfo { return f.BackupInfo }

// Restore copies the backup beside it and opens the copy. Only the backup's
// own point can be restored: an embedded engine keeps no log to roll it
// forward with.
func (f *FileBackup) Restore(ctx context.Context, to RestoreTarget) (DB, error) {
	if to.Kind != RestoreBackup {
		return nil, fmt.Errorf("%s keeps no log to roll a backup forward", f.Method)
	}
	f.n++
	dst := filepath.Join(filepath.Dir(f.Path), fmt.Sprintf("restored-%d-%s", f.n, filepath.Base(f.Path)))
	if err := CopyFile(f.Path, dst); err != nil {
		return nil, fmt.Errorf("copy the backup: %w", err)
	}
	return f.Open(ctx, dst)
}

// Cleanup removes the restored copies.
func (f *FileBackup) Cleanup() error {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(f.Path), "restored-*"))
	for _, p := range m {
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

// CopyFile copies src to a new file dst and flushes it.
func CopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// FileSize is a file's size; 0 for a folder, or when unreadable.
func FileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return 0
	}
	return st.Size()
}

// SyncFile flushes a file that is already written. It opens the file for
// reading only: fsync needs no more, so a file a managed server's account
// wrote can be flushed too.
func SyncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// DirSize is the bytes of the files under dir (dir's own when it is a
// file).
func DirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if i, err := e.Info(); err == nil {
				n += i.Size()
			}
		}
		return nil
	})
	return n
}

// ServerBackup is a managed server's backup, taken into its Path and
// described by its BackupInfo (measured once taken): an engine's backup
// embeds it and says how it restores. Each restore is a DB that goes with
// its Close, so Cleanup has nothing left to do.
type ServerBackup struct {
	BackupInfo
	// Logs is where the servers restored from it write their logs.
	Logs string
}

// TakeServerBackup makes the folder the restored servers' logs go to
// (logs; "" for none), has take write the backup into path and describes
// it: info with its Path and Bytes (a file's, or a folder's files') filled
// in. An engine's Backup embeds what it returns.
func TakeServerBackup(ctx context.Context, logs, path string, take func(ctx context.Context, path string) error, info BackupInfo) (ServerBackup, error) {
	if logs != "" {
		if err := os.MkdirAll(logs, 0o755); err != nil {
			return ServerBackup{}, err
		}
	}
	if err := take(ctx, path); err != nil {
		return ServerBackup{}, err
	}
	info.Path, info.Bytes = path, DirSize(path)
	return ServerBackup{BackupInfo: info, Logs: logs}, nil
}

// Info says how the backup was taken.
func (b *ServerBackup) Info() BackupInfo { return b.BackupInfo }

// Cleanup has nothing to do: each restore goes with its Close.
func (b *ServerBackup) Cleanup() error { return nil }

// OnlyItsPoint refuses a restore to another point than the backup's own,
// for an engine that keeps no log to roll it forward with; what names the
// backup ("an nbackup level-0 backup").
func (b *ServerBackup) OnlyItsPoint(to RestoreTarget, what string) error {
	if to.Kind != RestoreBackup {
		return fmt.Errorf("%s restores to its own consistency point only", what)
	}
	return nil
}
