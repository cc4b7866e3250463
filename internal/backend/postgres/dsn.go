package postgres

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/redact"
)

// preflight reads --db postgres://… or postgresql://… (libpq's URL or
// key=value forms, with their parameters: sslmode, host=/socket/folder…)
// as pgx does, and checks that a server answers at its host and port (a
// Unix socket: that the socket is there).
func preflight(db string) error {
	cfg, err := pgx.ParseConfig(db)
	if err != nil {
		return knob.Bad("write it as postgres://user:password@host:5432/db", "--db %q is not a PostgreSQL connection string: %v", redact.DSN(db), redact.DSN(err.Error()))
	}
	if filepath.IsAbs(cfg.Host) { // a socket folder
		return backend.Reachable("unix", filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port)), redact.DSN(db))
	}
	return backend.Reachable("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), redact.DSN(db))
}
