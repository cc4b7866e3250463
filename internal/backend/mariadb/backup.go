package mariadb

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/redact"
)

var _ backend.Backuper = managedDB{}

// Backup takes an online physical backup of the managed server with
// mariabackup, prepared at once (the prepare is part of its time: without it
// the copy is no datadir), into the server's folder. The restored servers'
// logs go to dir.
func (m managedDB) Backup(ctx context.Context, dir string) (backend.Backup, error) {
	b, err := backend.TakeServerBackup(ctx, dir, filepath.Join(m.srv.Base(), "backup"), m.srv.Backup, backend.BackupInfo{
		Method: "mariabackup --backup, then --prepare (both timed)",
		Note:   "removed with the datadir after the run",
	})
	if err != nil {
		return nil, err
	}
	return &mariaBackup{d: m.db, ServerBackup: b}, nil
}

type mariaBackup struct {
	backend.ServerBackup
	d *db
}

// Restore copies the prepared backup into a fresh datadir and starts a new
// server on it; closing the DB stops that server and removes its folder.
func (b *mariaBackup) Restore(ctx context.Context, to backend.RestoreTarget) (backend.DB, error) {
	if err := b.OnlyItsPoint(to, "a mariabackup backup"); err != nil {
		return nil, err
	}
	srv, err := b.d.srv.Restore(ctx, RestoreConfig{Backup: b.Path, Name: to.Kind,
		Log: filepath.Join(b.Logs, "mariadb-restore-"+to.Kind+".log")})
	if err != nil {
		return nil, err
	}
	d := &db{srv: srv, prepare: b.d.prepare, userKeys: b.d.userKeys}
	if err := d.connect(ctx, srv.DSN(false), 2); err != nil {
		d.stop()
		return nil, errors.New(redact.DSN(err.Error()))
	}
	return d.managed(), nil
}
