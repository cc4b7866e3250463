package postgres

import (
	"context"
	"fmt"
	"runtime"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// ownConns is how many connections dbgauge opens besides its clients while
// they run: the reads of the server's counters and settings.
const ownConns = 2

var _ backend.Limiter = (*db)(nil)

// Limits checks the server's connection slots (a managed server was given
// enough at its start) and this process's open files, and notes that each
// connection is a server process.
func (d *db) Limits(ctx context.Context, conns int, _ bool) ([]string, error) {
	if err := backend.CheckFiles(conns, 1); err != nil {
		return nil, err
	}
	c, err := d.connect(ctx)
	if err != nil {
		return nil, classify(err)
	}
	defer c.Close(ctx)
	d.self.Add(1)
	var limit, reserved, used int
	var super bool
	err = c.QueryRow(ctx, `SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int,
		(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int,
		(SELECT rolsuper FROM pg_roles WHERE rolname = current_user)`).Scan(&limit, &reserved, &used, &super)
	if err != nil {
		return nil, classify(err)
	}
	if super {
		reserved = 0
	}
	// This connection is counted in used, and closes before the clients open.
	if err := backend.ConnectionsLeft(conns, ownConns, limit, used-1, reserved, "max_connections"); err != nil {
		return nil, err
	}
	var notes []string
	if d.srv != nil && conns > 4*runtime.NumCPU() {
		notes = append(notes, fmt.Sprintf("%d connections are %d PostgreSQL server processes, on the %d CPUs dbgauge shares with them",
			conns, conns, runtime.NumCPU()))
	}
	return notes, nil
}
