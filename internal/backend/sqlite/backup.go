package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mattn/go-sqlite3"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// Backup copies the database into dir/backup.db with SQLite's online backup
// API in one step: in WAL mode the copy reads one snapshot while writers go
// on. The copy is flushed before Backup returns.
func (d *db) Backup(ctx context.Context, dir string) (backend.Backup, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	dest := filepath.Join(dir, "backup.db")
	c, err := d.sql.Conn(ctx)
	if err != nil {
		return nil, classify(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		src, ok := dc.(*sqlite3.SQLiteConn)
		if !ok {
			return fmt.Errorf("sqlite backup: the driver gave a %T", dc)
		}
		dc2, err := (&sqlite3.SQLiteDriver{}).Open("file:" + dest)
		if err != nil {
			return err
		}
		dst := dc2.(*sqlite3.SQLiteConn)
		defer dst.Close()
		b, err := dst.Backup("main", src, "main")
		if err != nil {
			return err
		}
		if _, err := b.Step(-1); err != nil {
			_ = b.Finish()
			return err
		}
		return b.Finish()
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite backup: %w", err)
	}
	if err := backend.SyncFile(dest); err != nil {
		return nil, err
	}
	return &backend.FileBackup{
		BackupInfo: backend.BackupInfo{Method: "SQLite online backup API (one step: one snapshot)", Path: dest, Bytes: backend.FileSize(dest)},
		Open: func(ctx context.Context, path string) (backend.DB, error) {
			return open(ctx, backend.Options{DB: "sqlite:" + path, Dir: dir, Durability: backend.Sync, Prepare: backend.Once, Conns: 2})
		},
	}, nil
}
