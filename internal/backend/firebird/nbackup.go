package firebird

import (
	"context"
	"fmt"
	"os"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// NBackup takes a level-0 physical backup of the running database into
// file (a new file in the instance's data folder) with nbackup through the
// services API (action_nbak): the server itself copies the pages while
// writers go on into a delta file, which it merges back afterwards. The
// backup is flushed before NBackup returns.
func (f *Server) NBackup(ctx context.Context, file string) error {
	if out, err := f.Service(ctx, "action_nbak", "nbk_file", file, "nbk_level", "0"); err != nil {
		return fmt.Errorf("nbackup (fbsvcmgr action_nbak): %w: %s", err, server.LastLines(out, 3))
	}
	return backend.SyncFile(file)
}

// NRestore restores a level-0 backup into database, a new file in the
// instance's data folder (DatabaseAccess allows no other), through the
// services API (action_nrest); the running server then serves it.
func (f *Server) NRestore(ctx context.Context, backup, database string) error {
	if out, err := f.ServiceOn(ctx, database, "action_nrest", "nbk_file", backup); err != nil {
		_ = os.Remove(database)
		return fmt.Errorf("nbackup restore (fbsvcmgr action_nrest): %w: %s", err, server.LastLines(out, 3))
	}
	return nil
}
