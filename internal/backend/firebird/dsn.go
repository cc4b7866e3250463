package firebird

import (
	"net"
	"net/url"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/redact"
)

// preflight reads --db firebird://user:password@host:3050/path/to/db.fdb
// (port 3050 when none; the driver's parameters after ?, e.g.
// wire_crypt=true) and checks that a server answers at its host and port.
func preflight(db string) error {
	u, err := url.Parse(db)
	if err != nil || u.Host == "" || len(u.Path) < 2 {
		return knob.Bad("write it as firebird://user:password@host:3050/path/to/db.fdb", "--db %q is not a Firebird connection string", redact.DSN(db))
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "3050")
	}
	return backend.Reachable("tcp", addr, redact.DSN(db))
}
