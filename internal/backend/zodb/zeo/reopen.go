package zeo

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/server"
)

// reopen is Spec.Reopen: runzeo started again on the FileStorage a killed
// managed server left in dataDir (its log to logPath), and opened. Closing
// the DB stops the server.
func reopen(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
	python, err := settle(o)
	if err != nil {
		return nil, err
	}
	rz, err := zodb.ReopenRunzeo(dataDir, "zeo", python)
	if err != nil {
		return nil, err
	}
	s := &Server{rz}
	s.recipe(logPath)
	from := backend.FileSize(logPath)
	if err := s.Launch(ctx); err != nil {
		return nil, err
	}
	d, err := connect(ctx, s, python, o.CacheBytes)
	if err != nil {
		return nil, err
	}
	d.(*managedDB).RecoveryNote = zodb.RecoveryNote(server.ReadFrom(logPath, from))
	return d, nil
}
