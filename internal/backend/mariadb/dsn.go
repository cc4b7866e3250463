package mariadb

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/redact"
)

// driverDSN turns --db mysql://… or mariadb://… into go-sql-driver's DSN.
// Two forms are read: the URL every other tool writes,
// mysql://user:password@host:3306/db?param=value (the password
// percent-encoded as in any URL; port 3306 when none), and the driver's
// own, mysql://user:password@tcp(host:3306)/db?param=value. Query
// parameters are the driver's (tls, timeout, charset…) or system variables
// of the session.
func driverDSN(db string) (*mysql.Config, error) {
	bad := func(err error) error {
		return knob.Bad("write it as mysql://user:password@host:3306/db", "--db %q is not a MariaDB connection string: %v", redact.DSN(db), redact.DSN(err.Error()))
	}
	rest, ok := strings.CutPrefix(db, "mysql://")
	if !ok {
		rest, _ = strings.CutPrefix(db, "mariadb://")
	}
	addr := rest[strings.LastIndex(rest, "@")+1:]
	if i := strings.IndexAny(addr, "(/?"); i >= 0 && addr[i] == '(' {
		cfg, err := mysql.ParseDSN(rest) // the driver's own form: user:pw@tcp(host:port)/db
		if err != nil {
			return nil, bad(err)
		}
		return cfg, nil
	}
	u, err := url.Parse("mysql://" + rest)
	if err != nil {
		return nil, bad(err)
	}
	if u.Host == "" {
		return nil, bad(fmt.Errorf("no host"))
	}
	cfg := mysql.NewConfig()
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net, cfg.Addr = "tcp", u.Host
	if u.Port() == "" {
		cfg.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	dsn := cfg.FormatDSN()
	if u.RawQuery != "" { // the driver reads its parameters from its own form
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + u.RawQuery
	}
	if cfg, err = mysql.ParseDSN(dsn); err != nil {
		return nil, bad(err)
	}
	return cfg, nil
}

// preflight reads --db and checks that a server answers where it points.
func preflight(db string) error {
	cfg, err := driverDSN(db)
	if err != nil {
		return err
	}
	network := cfg.Net
	if network != "unix" {
		network = "tcp"
	}
	return backend.Reachable(network, cfg.Addr, redact.DSN(db))
}
