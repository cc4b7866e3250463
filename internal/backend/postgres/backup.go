package postgres

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// Backup takes an online base backup of the managed server (pg_basebackup)
// into its cluster's folder; the server archives its WAL (--backup makes it
// start with archive_mode on), so a restore can roll the backup forward.
// The restored servers' logs go to dir.
func (m managedDB) Backup(ctx context.Context, dir string) (backend.Backup, error) {
	if m.srv.Archive == "" {
		return nil, errors.New("the server was started without a WAL archive")
	}
	b, err := backend.TakeServerBackup(ctx, dir, filepath.Join(m.srv.Base(), "basebackup"), m.srv.BaseBackup, backend.BackupInfo{
		Method:      "pg_basebackup (plain, WAL streamed, fast checkpoint) with the WAL archived",
		RollForward: true,
		Note:        "removed with the cluster after the run",
	})
	if err != nil {
		return nil, err
	}
	return &pgBackup{d: m.db, ServerBackup: b}, nil
}

type pgBackup struct {
	backend.ServerBackup
	d        *db
	archived bool
}

// Restore starts a fresh cluster from the base backup in archive recovery.
// Before rolling forward it makes the server archive the segment in use,
// so that the archive holds every commit made so far.
func (b *pgBackup) Restore(ctx context.Context, to backend.RestoreTarget) (backend.DB, error) {
	if to.Kind != backend.RestoreBackup && !b.archived {
		if err := b.d.archiveAll(ctx); err != nil {
			return nil, err
		}
		b.archived = true
	}
	r := RestoreConfig{Backup: b.Path, Name: to.Kind, Log: filepath.Join(b.Logs, "postgres-restore-"+to.Kind+".log")}
	switch to.Kind {
	case backend.RestoreTime:
		r.Until = to.Time
	case backend.RestoreEnd:
		r.End = true
	}
	srv, err := b.d.srv.Restore(ctx, r)
	if err != nil {
		return nil, err
	}
	d := &db{srv: srv, version: b.d.version}
	if d.cfg, err = b.d.configFor(srv); err != nil {
		d.stop()
		return nil, err
	}
	return d.managed(), nil
}

// archiveAll switches to a new WAL segment and waits until the archive
// holds the one it closed (at most a minute).
func (d *db) archiveAll(ctx context.Context) error {
	c, err := d.connect(ctx)
	if err != nil {
		return classify(err)
	}
	defer c.Close(ctx)
	d.self.Add(1)
	var seg string
	if err := c.QueryRow(ctx, "SELECT pg_walfile_name(pg_switch_wal())").Scan(&seg); err != nil {
		return fmt.Errorf("pg_switch_wal: %w", classify(err))
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var last, failed *string
		if err := c.QueryRow(ctx, "SELECT last_archived_wal, last_failed_wal FROM pg_stat_archiver").Scan(&last, &failed); err != nil {
			return classify(err)
		}
		d.self.Add(1)
		if last != nil && strings.Compare(*last, seg) >= 0 {
			return nil
		}
		if time.Now().After(deadline) {
			why := ""
			if failed != nil {
				why = "; the last segment that failed to archive: " + *failed
			}
			return fmt.Errorf("WAL segment %s was not archived within a minute%s", seg, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
