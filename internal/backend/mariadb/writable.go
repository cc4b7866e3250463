package mariadb

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

// writable is a connector to a cluster's servers that connects to the
// first of them, in order, that accepts writes (@@global.read_only off):
// the primary, or after a failover the promoted replica. It is MariaDB's
// equivalent of libpq's target_session_attrs=read-write. Safe for
// concurrent use, as database/sql uses it.
type writable struct {
	servers []driver.Connector
}

var _ driver.Connector = writable{}

// writableOf makes a writable connector from the clients' DSN, each server
// of servers reached with the same parameters on its own address.
func writableOf(dsn string, servers []*Server) (writable, error) {
	var w writable
	for _, s := range servers {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			return w, err
		}
		cfg.Net, cfg.Addr = "tcp", net.JoinHostPort(s.ListenAddr(), strconv.Itoa(s.Port))
		c, err := mysql.NewConnector(cfg)
		if err != nil {
			return w, err
		}
		w.servers = append(w.servers, c)
	}
	return w, nil
}

// errNoWritable is what a connection finds while no server accepts writes
// (a failover under way): the engine is unavailable, and the run waits.
var errNoWritable = errors.New("no server of the cluster accepts writes (read_only on every server that answered)")

// Connect connects to the first server that answers and accepts writes.
func (w writable) Connect(ctx context.Context) (driver.Conn, error) {
	var errs []error
	for _, s := range w.servers {
		c, err := s.Connect(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ro, err := readOnly(ctx, c)
		if err == nil && !ro {
			return c, nil
		}
		_ = c.Close()
		if err != nil {
			errs = append(errs, err)
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, dberr.New(dberr.Unavailable, dberr.Connection, "", errors.Join(append([]error{errNoWritable}, errs...)...))
}

// Driver is go-sql-driver's.
func (writable) Driver() driver.Driver { return &mysql.MySQLDriver{} }

// readOnly reads @@global.read_only on a fresh connection.
func readOnly(ctx context.Context, c driver.Conn) (bool, error) {
	q, ok := c.(driver.QueryerContext)
	if !ok {
		return false, errors.New("the driver's connection cannot query")
	}
	rows, err := q.QueryContext(ctx, "SELECT @@global.read_only", nil)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		if errors.Is(err, io.EOF) {
			return false, errors.New("SELECT @@global.read_only returned no row")
		}
		return false, err
	}
	switch x := v[0].(type) {
	case int64:
		return x != 0, nil
	case []byte:
		return string(x) != "0", nil
	}
	return false, errors.New("SELECT @@global.read_only: an unexpected value")
}
