package mariadb

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/backend"
)

var _ backend.Limiter = (*db)(nil)

// Limits checks the server's connection slots (a managed server was given
// enough at its start; MariaDB keeps one more for a user with SUPER, which
// dbgauge does not count on) and this process's open files.
func (d *db) Limits(ctx context.Context, conns int, _ bool) ([]string, error) {
	if err := backend.CheckFiles(conns, 1); err != nil {
		return nil, err
	}
	var limit, used int
	err := d.sql.QueryRowContext(ctx, `SELECT @@max_connections,
		(SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'THREADS_CONNECTED')`).Scan(&limit, &used)
	if err != nil {
		return nil, classify(err)
	}
	// The pool's own connection is among used and stays open: it is one of
	// dbgauge's own.
	return nil, backend.ConnectionsLeft(conns, 1, limit, used, 0, "max_connections")
}
