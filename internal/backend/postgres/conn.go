package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// conn is one client's connection.
//
// Statements run with a context that cannot be canceled: pgx would otherwise
// register and unregister a cancellation callback around every statement,
// some 7 % of the client's CPU at pgbench's pace. The context given to Conn
// is watched once instead: when it is canceled, the socket's deadline is set
// in the past, which interrupts the statement in flight (and loses the
// connection, as pgx itself does).
type conn struct {
	c       *pgx.Conn
	d       *db
	sqls    map[*backend.Stmt]string // statements with $n placeholders
	unwatch func() bool
	// The prepared path (fast.go): statements prepared on this connection,
	// and the parameters' buffers, reused from one statement to the next.
	fast     bool
	prepared map[*backend.Stmt]*prepared
	seq      int
	buf      []byte
	params   [][]byte
	formats  []int16
	ends     []int
}

// bg is the context statements run with: never canceled (see conn).
var bg = context.Background()

// sql returns st's text with PostgreSQL's $n placeholders.
func (c *conn) sql(st *backend.Stmt) string {
	if s, ok := c.sqls[st]; ok {
		return s
	}
	s := rebind(st.SQL)
	c.sqls[st] = s
	return s
}

// rebind turns ? placeholders into $1, $2, … outside quotes.
//
//	UPDATE t SET a = ? WHERE b = '?' AND c = ?  →  UPDATE t SET a = $1 WHERE b = '?' AND c = $2
func rebind(q string) string {
	var b strings.Builder
	n, quote := 0, byte(0)
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '?':
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

func (c *conn) simple(_ context.Context, q string) error {
	return c.classify(c.c.PgConn().Exec(bg, q).Close())
}

// Begin starts a transaction.
func (c *conn) Begin(ctx context.Context) error { return c.simple(ctx, "BEGIN") }

// Commit commits it.
func (c *conn) Commit(ctx context.Context) error { return c.simple(ctx, "COMMIT") }

// Rollback rolls it back.
func (c *conn) Rollback(ctx context.Context) error { return c.simple(ctx, "ROLLBACK") }

// ExecScript runs one or more statements with the simple protocol.
func (c *conn) ExecScript(ctx context.Context, q string) error { return c.simple(ctx, q) }

// Exec runs st and returns the rows it changed.
func (c *conn) Exec(_ context.Context, st *backend.Stmt, args ...any) (int64, error) {
	if c.fast {
		_, rr, err := c.run(st, args)
		if err != nil {
			return 0, c.fail(st, err)
		}
		tag, err := rr.Close()
		if err != nil {
			return 0, c.fail(st, err)
		}
		return tag.RowsAffected(), nil
	}
	tag, err := c.c.Exec(bg, c.sql(st), args...)
	if err != nil {
		return 0, c.classify(err)
	}
	return tag.RowsAffected(), nil
}

// QueryRow runs st and scans its single row.
func (c *conn) QueryRow(_ context.Context, st *backend.Stmt, args []any, dest ...any) error {
	if c.fast {
		p, rr, err := c.run(st, args)
		if err != nil {
			return c.fail(st, err)
		}
		found := rr.NextRow()
		if found {
			err = c.scan(p, rr.Values(), dest)
		}
		if _, cerr := rr.Close(); cerr != nil {
			return c.fail(st, cerr)
		}
		if !found {
			return backend.ErrNoRows
		}
		return c.classify(err)
	}
	err := c.c.QueryRow(bg, c.sql(st), args...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return backend.ErrNoRows
	}
	return c.classify(err)
}

// Query runs st and calls row for each row.
func (c *conn) Query(_ context.Context, st *backend.Stmt, args []any, row func(scan func(dest ...any) error) error) error {
	if c.fast {
		p, rr, err := c.run(st, args)
		if err != nil {
			return c.fail(st, err)
		}
		for err == nil && rr.NextRow() {
			values := rr.Values()
			err = row(func(dest ...any) error { return c.scan(p, values, dest) })
		}
		if _, cerr := rr.Close(); cerr != nil {
			return c.fail(st, cerr)
		}
		return c.classify(err)
	}
	rows, err := c.c.Query(bg, c.sql(st), args...)
	if err != nil {
		return c.classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return c.classify(err)
		}
	}
	return c.classify(rows.Err())
}

// CopyFrom loads rows with COPY.
func (c *conn) CopyFrom(_ context.Context, table string, columns []string, next func() ([]any, bool)) (int64, error) {
	n, err := c.c.CopyFrom(bg, pgx.Identifier{table}, columns, pgx.CopyFromFunc(func() ([]any, error) {
		row, ok := next()
		if !ok {
			return nil, nil
		}
		return row, nil
	}))
	return n, c.classify(err)
}

// fail classifies the error of st on the prepared path, forgetting st's
// preparation when the error may have invalidated it.
func (c *conn) fail(st *backend.Stmt, err error) error {
	c.forget(st, err)
	return c.classify(err)
}

// classify classifies err, and calls a dead connection unavailable.
func (c *conn) classify(err error) error {
	if err == nil {
		return nil
	}
	if c.c.IsClosed() && sqlState(err) == "" {
		return unavailable(err)
	}
	return classify(err)
}

// Close closes the connection.
func (c *conn) Close() error {
	c.unwatch()
	c.d.open.Add(-1)
	return c.c.Close(bg)
}
