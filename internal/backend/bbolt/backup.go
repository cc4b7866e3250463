package bbolt

import (
	"context"
	"os"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// Backup copies the database into dir/backup.bolt inside one read
// transaction (bbolt's Tx.CopyFile): a consistent snapshot while writers go
// on. The copy is flushed before Backup returns.
func (d *db) Backup(_ context.Context, dir string) (backend.Backup, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	dest := filepath.Join(dir, "backup.bolt")
	if err := d.bolt.View(func(tx *bolt.Tx) error { return tx.CopyFile(dest, 0o644) }); err != nil {
		return nil, err
	}
	if err := backend.SyncFile(dest); err != nil {
		return nil, err
	}
	return &backend.FileBackup{
		BackupInfo: backend.BackupInfo{Method: "bbolt Tx.CopyFile (one read transaction)", Path: dest, Bytes: backend.FileSize(dest)},
		Open: func(ctx context.Context, path string) (backend.DB, error) {
			return open(ctx, backend.Options{DB: "bbolt:" + path, Dir: dir, Durability: backend.Sync, Conns: 2})
		},
	}, nil
}
