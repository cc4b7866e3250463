package server

import (
	"context"
	"fmt"
	"os"
)

// NBackup takes a level-0 physical backup of the running database into
// file (a new file in the instance's data folder) with nbackup through the
// services API (action_nbak): the server itself copies the pages while
// writers go on into a delta file, which it merges back afterwards. The
// backup is flushed before NBackup returns.
func (f *Firebird) NBackup(ctx context.Context, file string) error {
	if out, err := f.Service(ctx, "action_nbak", "nbk_file", file, "nbk_level", "0"); err != nil {
		return fmt.Errorf("nbackup (fbsvcmgr action_nbak): %w: %s", err, lastLines(out, 3))
	}
	return syncFile(file)
}

// NRestore restores a level-0 backup into database, a new file in the
// instance's data folder (DatabaseAccess allows no other), through the
// services API (action_nrest); the running server then serves it.
func (f *Firebird) NRestore(ctx context.Context, backup, database string) error {
	if out, err := f.ServiceOn(ctx, database, "action_nrest", "nbk_file", backup); err != nil {
		_ = os.Remove(database)
		return fmt.Errorf("nbackup restore (fbsvcmgr action_nrest): %w: %s", err, lastLines(out, 3))
	}
	return nil
}

// syncFile flushes a file that is already written.
func syncFile(path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	err = fh.Sync()
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}
