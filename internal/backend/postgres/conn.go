package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

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
	// px is pgx's connection (--prepare each); the prepared path keeps a bare
	// pgconn, pc, without pgx's statement cache and type map (~7 KiB a
	// connection: 7 MiB at 1,000 clients).
	px      *pgx.Conn
	pc      *pgconn.PgConn
	tm      *pgtype.Map // the prepared path's, made at its first use
	d       *db
	sqls    map[*backend.Stmt]string // statements with $n placeholders
	unwatch func() bool
	// The prepared path (preparedpath.go), nil with --prepare each: the statements
	// prepared on this connection, and the parameters' buffers reused from
	// one statement to the next.
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
	return c.classify(c.pc.Exec(bg, q).Close())
}

// Transaction control on the prepared path is prepared too, as pgbench -M
// prepared does: a Bind/Execute of a cached plan costs the server less than
// parsing the statement's text each time.
var (
	begin    = &backend.Stmt{SQL: "BEGIN"}
	commit   = &backend.Stmt{SQL: "COMMIT"}
	rollback = &backend.Stmt{SQL: "ROLLBACK"}
)

// control runs BEGIN, COMMIT or ROLLBACK.
func (c *conn) control(ctx context.Context, st *backend.Stmt) error {
	if c.prepared == nil {
		return c.simple(ctx, st.SQL)
	}
	_, err := c.Exec(ctx, st)
	return err
}

// typeMap returns the type map that encodes and scans the types the
// prepared path does not.
func (c *conn) typeMap() *pgtype.Map {
	if c.px != nil {
		return c.px.TypeMap()
	}
	if c.tm == nil {
		c.tm = pgtype.NewMap()
	}
	return c.tm
}

// Begin starts a transaction.
func (c *conn) Begin(ctx context.Context) error { return c.control(ctx, begin) }

// SetTxMode makes the connection's transactions snapshots (REPEATABLE READ:
// a row changed by a transaction that committed after this one began fails
// it with 40001). NoWait sets nothing: PostgreSQL refuses a row lock at once
// only where a statement says so (SELECT … FOR UPDATE NOWAIT, SKIP LOCKED),
// and lock_timeout, the one session setting, also cancels the waits of
// plain INSERTs for a table's extension (55P03 at 4 clients of
// oltp-emul with lock_timeout 1 ms).
//
//	SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ
func (c *conn) SetTxMode(ctx context.Context, m backend.TxMode) (backend.TxModeSet, error) {
	level := "READ COMMITTED"
	if m.Snapshot {
		level = "REPEATABLE READ"
	}
	if err := c.simple(ctx, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL "+level); err != nil {
		return backend.TxModeSet{}, err
	}
	var words string // read back, as every setting a result records
	if err := c.QueryRow(ctx, readTxIsolation, nil, &words); err != nil {
		return backend.TxModeSet{}, err
	}
	if words == "repeatable read" {
		words += " (snapshot)"
	}
	if m.NoWait {
		words += "; row locks taken with NOWAIT or SKIP LOCKED by the statements themselves"
	}
	return backend.TxModeSet{Words: words, NoWait: m.NoWait}, nil
}

// readTxIsolation reads back the level a session's transactions begin in.
var readTxIsolation = &backend.Stmt{SQL: "SELECT current_setting('default_transaction_isolation')"}

// Commit commits it.
func (c *conn) Commit(ctx context.Context) error { return c.control(ctx, commit) }

// Rollback rolls it back.
func (c *conn) Rollback(ctx context.Context) error { return c.control(ctx, rollback) }

// ExecScript runs one or more statements with the simple protocol, through
// pgconn (a script may set parameters, whose news pgconn keeps).
func (c *conn) ExecScript(ctx context.Context, q string) error { return c.simple(ctx, q) }

// Exec runs st and returns the rows it changed.
func (c *conn) Exec(_ context.Context, st *backend.Stmt, args ...any) (int64, error) {
	if c.prepared != nil {
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
	tag, err := c.px.Exec(bg, c.sql(st), asText(args)...)
	if err != nil {
		return 0, c.classify(err)
	}
	return tag.RowsAffected(), nil
}

// QueryRow runs st and scans its single row.
func (c *conn) QueryRow(_ context.Context, st *backend.Stmt, args []any, dest ...any) error {
	if c.prepared != nil {
		p, rr, err := c.run(st, args)
		if err != nil {
			return c.fail(st, err)
		}
		found := rr.NextRow()
		var scanErr error
		if found {
			scanErr = c.scan(p, rr.Values(), dest)
		}
		if _, err := rr.Close(); err != nil { // the rows after the first are read and dropped
			return c.fail(st, err)
		}
		if scanErr != nil {
			return scanErr
		}
		if !found {
			return backend.ErrNoRows
		}
		return nil
	}
	err := c.px.QueryRow(bg, c.sql(st), asText(args)...).Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return backend.ErrNoRows
	}
	return c.classify(err)
}

// Query runs st and calls row for each row.
func (c *conn) Query(_ context.Context, st *backend.Stmt, args []any, row func(scan func(dest ...any) error) error) error {
	if c.prepared != nil {
		p, rr, err := c.run(st, args)
		if err != nil {
			return c.fail(st, err)
		}
		var rowErr error
		scan := func(dest ...any) error { return c.scan(p, rr.Values(), dest) }
		for rowErr == nil && rr.NextRow() {
			rowErr = row(scan)
		}
		if _, err := rr.Close(); err != nil {
			return c.fail(st, err)
		}
		return rowErr
	}
	rows, err := c.px.Query(bg, c.sql(st), asText(args)...)
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

// QueryAny runs st and calls row for each row with its values made plain
// from PostgreSQL's own text (plainRow): on pgx's path too, the results
// are asked for in text, bytea's in binary.
func (c *conn) QueryAny(_ context.Context, st *backend.Stmt, args []any, row func(cols []string, vals []any) error) error {
	if c.prepared != nil {
		p, rr, err := c.run(st, args)
		if err != nil {
			return c.fail(st, err)
		}
		cols, vals := names(p.desc.Fields), make([]any, len(p.desc.Fields))
		var rowErr error
		for rowErr == nil && rr.NextRow() {
			plainRow(p.desc.Fields, rr.Values(), vals)
			rowErr = row(cols, vals)
		}
		if _, err := rr.Close(); err != nil {
			return c.fail(st, err)
		}
		return rowErr
	}
	rows, err := c.px.Query(bg, c.sql(st), append([]any{textResults}, asText(args)...)...)
	if err != nil {
		return c.classify(err)
	}
	defer rows.Close()
	fields := rows.FieldDescriptions()
	cols, vals := names(fields), make([]any, len(fields))
	for rows.Next() {
		plainRow(fields, rows.RawValues(), vals)
		if err := row(cols, vals); err != nil {
			return c.classify(err)
		}
	}
	return c.classify(rows.Err())
}

// textResults asks pgx for every result column in text but bytea's
// (QueryAny): the unlisted types get 0, text.
var textResults = pgx.QueryResultFormatsByOID{oidBytea: pgtype.BinaryFormatCode}

// CopyFrom loads rows with COPY.
func (c *conn) CopyFrom(_ context.Context, table string, columns []string, next func() ([]any, bool)) (int64, error) {
	if c.px == nil {
		n, err := c.copyFrom(table, columns, next)
		return n, c.classify(err)
	}
	n, err := c.px.CopyFrom(bg, pgx.Identifier{table}, columns, pgx.CopyFromFunc(func() ([]any, error) {
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
	if c.pc.IsClosed() && sqlState(err) == "" {
		return unavailable(err)
	}
	return classify(err)
}

// Close closes the connection.
func (c *conn) Close() error {
	c.unwatch()
	c.d.open.Add(-1)
	if c.px != nil {
		return c.px.Close(bg)
	}
	return c.pc.Close(bg)
}
