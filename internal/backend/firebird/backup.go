package firebird

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/dbgauge/dbgauge/internal/backend"
)

var (
	_ backend.Backuper = managedDB{}
	_ backend.SQLDB    = restoredDB{}
	_ backend.Checker  = restoredDB{}
)

// Backup takes a level-0 nbackup of the managed database through the
// running server (the services API) into the instance's data folder.
func (m managedDB) Backup(ctx context.Context, dir string) (backend.Backup, error) {
	b, err := backend.TakeServerBackup(ctx, "", filepath.Join(m.srv.DataDir, "backup.nbk"), m.srv.NBackup, backend.BackupInfo{
		Method: "nbackup level 0 through the services API (fbsvcmgr action_nbak), flushed",
		Note:   "removed with the instance after the run",
	})
	if err != nil {
		return nil, errors.New(hide(m.srv.Password, err.Error()))
	}
	return &nbackup{d: m.db, ServerBackup: b}, nil
}

type nbackup struct {
	backend.ServerBackup
	d *db
}

// Restore restores the backup into a new database file beside the live one
// (nbackup -R through the services API) and opens it through the same
// running server; closing the DB removes the file.
func (b *nbackup) Restore(ctx context.Context, to backend.RestoreTarget) (backend.DB, error) {
	if err := b.OnlyItsPoint(to, "an nbackup level-0 backup"); err != nil {
		return nil, err
	}
	srv := b.d.srv
	file := filepath.Join(srv.DataDir, "restore-"+to.Kind+".fdb")
	if err := srv.NRestore(ctx, b.Path, file); err != nil {
		return nil, errors.New(hide(srv.Password, err.Error()))
	}
	r := restoredDB{db: &db{prepare: b.d.prepare, conf: b.d.conf}, inst: srv, file: file}
	if err := r.connect(ctx, srv.DSNFor(file), 2); err != nil {
		_ = r.Close()
		return nil, errors.New(hide(srv.Password, err.Error()))
	}
	return r, nil
}

// restoredDB is a restored database file served by the managed server. Its
// db has no server: closing it leaves the server running.
type restoredDB struct {
	*db
	inst *Server
	file string
}

// Integrity runs online validation on the restored file.
func (r restoredDB) Integrity(ctx context.Context) (bool, string, error) {
	return validate(ctx, r.inst, r.file)
}

// Close closes the connections and removes the restored file.
func (r restoredDB) Close() error {
	r.stop()
	if err := os.Remove(r.file); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}
