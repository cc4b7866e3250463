package postgres

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// reopen starts PostgreSQL again on the cluster a killed managed server
// left in dataDir (crash recovery, its log in logPath) and opens it with
// o (its DB is the started server's DSN). Closing the DB stops the server
// and removes the cluster (its log stays). Spec.Reopen.
func reopen(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
	bin := ownOf(o).bin
	from := backend.FileSize(logPath)
	srv, err := Reopen(ctx, dataDir, logPath, bin)
	if err != nil {
		return nil, err
	}
	note := redoNote(server.ReadFrom(logPath, from))
	// The settings were the killed server's; the restarted one runs with
	// its defaults, to be read.
	o.DB, o.Set, o.CacheBytes = srv.DSN(true), nil, 0
	db, err := open(ctx, o)
	if err != nil {
		_, _ = srv.StopClean()
		return nil, err
	}
	return reopened{db.(backend.SQLDB), srv, note}, nil
}

// reopened is a PostgreSQL cluster started again after a kill: closing it
// stops the server and removes the cluster (its logs stay).
type reopened struct {
	backend.SQLDB
	srv  *Server
	note string // what its crash recovery replayed
}

// Recovery says how much WAL the crash recovery replayed.
func (r reopened) Recovery() string { return r.note }

func (r reopened) Close() error {
	err := r.SQLDB.Close()
	if _, serr := r.srv.StopClean(); err == nil {
		err = serr
	}
	return err
}

// Integrity runs the engine's check.
func (r reopened) Integrity(ctx context.Context) (bool, string, error) {
	if c, ok := r.SQLDB.(backend.Checker); ok {
		return c.Integrity(ctx)
	}
	return true, "no integrity check for this engine", nil
}
