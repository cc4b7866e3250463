package zrs

import (
	"context"
	"fmt"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/server"
)

// reopen is Spec.Reopen: the primary started again, alone, on the
// FileStorage a killed one left in dataDir (its log to logPath), and
// opened; what `dbgauge crash` reads after each kill. Closing the DB stops
// the server.
func reopen(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
	python, err := Env.Find(ownOf(o).env, "--zrs-env")
	if err != nil {
		return nil, err
	}
	rz, err := zodb.ReopenRunzeo(dataDir, "zrs", python)
	if err != nil {
		return nil, err
	}
	s := &Server{Runzeo: rz, Name: server.Primary}
	s.recipe(logPath)
	from := backend.FileSize(logPath)
	if err := s.Launch(ctx); err != nil {
		return nil, err
	}
	d := &db{srv: s, primary: s, topology: "none"}
	d.DB, err = zodb.Open(ctx, zodb.Config{Engine: "zrs", Python: python,
		Storage: zodb.ManagedZEO(s.Port, o.CacheBytes)})
	if err != nil {
		_, _ = s.StopClean()
		return nil, fmt.Errorf("connect to the restarted ZRS primary: %w", err)
	}
	d.Managed = &backend.Managed{Server: s.Instance, Name: "zrs", Rules: zodb.ServerLogRules}
	d.RecoveryNote = zodb.RecoveryNote(server.ReadFrom(logPath, from))
	return d, nil
}
