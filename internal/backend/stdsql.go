package backend

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

// StdConfig configures a Conn built on database/sql, shared by the engines
// whose Go driver is a database/sql driver.
type StdConfig struct {
	Prepare  Prepare
	BeginSQL string                  // "BEGIN IMMEDIATE" for SQLite, "BEGIN" elsewhere
	Rebind   func(sql string) string // rewrites ? placeholders; nil keeps them
	Classify func(err error) error   // wraps driver errors in *dberr.Error
	// Uncancelable hands the driver contexts without cancellation. For
	// drivers that run every cancelable statement on a goroutine of its own
	// (go-sqlite3), which costs more than a short statement; such statements
	// then run to their end when the run is abandoned.
	Uncancelable bool
	// Direct runs the statements prepared once (--prepare once) through the
	// driver's own interfaces (database/sql/driver), inside sql.Conn.Raw:
	// prepared on the driver's connection, arguments checked by the
	// driver's NamedValueChecker, the row read into a reused slice and
	// assigned as database/sql's Scan would. It spares database/sql's
	// per-statement bookkeeping (its Stmt's connection list, Rows and Row,
	// their locks and allocations), a third of a point select's client CPU
	// on MariaDB (docs/backends/mariadb.md). Query (several rows, with the
	// caller's code between them) keeps database/sql's path.
	Direct bool
}

// StdConn is a Conn over one pinned database/sql connection. Transactions are
// plain BEGIN/COMMIT statements on that connection, so statements prepared
// once stay valid inside them (sql.Tx would prepare them again).
type StdConn struct {
	c     *sql.Conn
	cfg   StdConfig
	stmts map[*Stmt]*sql.Stmt

	direct  map[*Stmt]*directStmt
	call    call            // the statement in flight on the direct path
	runCall func(any) error // s.run, made once: Raw's callback
	nv      []driver.NamedValue
	vals    []driver.Value
	unwatch func() bool // Watch's
	// from and detached are the last context ctx was given and the one it
	// made of it (Uncancelable).
	from, detached context.Context
	canceled       atomic.Bool // Watch's context ended: every statement fails
}

// NewStdConn wraps a pinned connection.
func NewStdConn(c *sql.Conn, cfg StdConfig) *StdConn {
	if cfg.Rebind == nil {
		cfg.Rebind = func(s string) string { return s }
	}
	if cfg.BeginSQL == "" {
		cfg.BeginSQL = "BEGIN"
	}
	s := &StdConn{c: c, cfg: cfg, stmts: map[*Stmt]*sql.Stmt{}}
	if cfg.Direct && cfg.Prepare == Once {
		s.direct = map[*Stmt]*directStmt{}
		s.runCall = s.run
	}
	return s
}

// Watch makes the end of ctx (the run's, given when the connection was
// opened) interrupt the connection, once, instead of every statement
// watching its own context: the driver then gets contexts without
// cancellation. go-sql-driver/mysql hands every cancelable statement's
// context to a goroutine of the connection's and back (two channel
// operations and a goroutine woken), and database/sql starts a goroutine
// for every Rows; that was an eighth of a point select's client CPU.
// interrupt stops the statement in flight (MariaDB: KILL from another
// connection); every statement after it fails as canceled. Call it once,
// before the connection is used; Close undoes it.
func (s *StdConn) Watch(ctx context.Context, interrupt func()) {
	s.cfg.Uncancelable = true
	s.unwatch = context.AfterFunc(ctx, func() {
		s.canceled.Store(true)
		interrupt()
	})
}

// ctx returns the context to hand the driver: with Uncancelable, ctx
// without its cancellation, made once per context the caller passes (a
// client passes the same one at every statement: a new one each time was
// an allocation per statement).
func (s *StdConn) ctx(ctx context.Context) context.Context {
	if !s.cfg.Uncancelable {
		return ctx
	}
	if ctx != s.from || s.detached == nil {
		s.from, s.detached = ctx, context.WithoutCancel(ctx)
	}
	return s.detached
}

// check refuses a statement once the connection's or the call's context
// has ended (Watch).
func (s *StdConn) check(ctx context.Context) error {
	if s.unwatch == nil {
		return nil // the driver watches each statement's context itself
	}
	if s.canceled.Load() {
		return s.cfg.Classify(context.Canceled)
	}
	if err := ctx.Err(); err != nil {
		return s.cfg.Classify(err)
	}
	return nil
}

// classify classifies a driver error; after Watch's interrupt, any error
// is the cancellation's (a killed connection reports itself as lost).
func (s *StdConn) classify(err error) error {
	if err != nil && s.canceled.Load() {
		// The driver's error is told, not wrapped: the class is the
		// cancellation's, not the lost connection's it reports.
		return s.cfg.Classify(fmt.Errorf("%w: the connection was interrupted (%v)", context.Canceled, err)) //nolint:errorlint // see above
	}
	return s.cfg.Classify(err)
}

// Raw returns the underlying connection, for engine-specific reads.
func (s *StdConn) Raw() *sql.Conn { return s.c }

func (s *StdConn) exec(ctx context.Context, q string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	_, err := s.c.ExecContext(s.ctx(ctx), q)
	return s.classify(err)
}

// Begin starts a write transaction.
func (s *StdConn) Begin(ctx context.Context) error { return s.exec(ctx, s.cfg.BeginSQL) }

// Commit commits the transaction.
func (s *StdConn) Commit(ctx context.Context) error { return s.exec(ctx, "COMMIT") }

// Rollback rolls the transaction back.
func (s *StdConn) Rollback(ctx context.Context) error { return s.exec(ctx, "ROLLBACK") }

// ExecScript runs sql without preparing it.
func (s *StdConn) ExecScript(ctx context.Context, q string) error { return s.exec(ctx, q) }

// stmt returns st prepared, and whether the caller must close it after use.
func (s *StdConn) stmt(ctx context.Context, st *Stmt) (*sql.Stmt, bool, error) {
	if s.cfg.Prepare == Once {
		if p, ok := s.stmts[st]; ok {
			return p, false, nil
		}
	}
	p, err := s.c.PrepareContext(s.ctx(ctx), s.cfg.Rebind(st.SQL))
	if err != nil {
		return nil, false, s.cfg.Classify(err)
	}
	if s.cfg.Prepare == Once {
		s.stmts[st] = p
		return p, false, nil
	}
	return p, true, nil
}

// Exec runs st and returns the rows it changed.
func (s *StdConn) Exec(ctx context.Context, st *Stmt, args ...any) (int64, error) {
	if err := s.check(ctx); err != nil {
		return 0, err
	}
	if s.direct != nil {
		s.call = call{kind: callExec, ctx: s.ctx(ctx), st: st, args: args}
		err := s.c.Raw(s.runCall)
		n := s.call.n
		s.call = call{}
		if err == nil {
			return n, nil
		}
		return n, s.classify(err)
	}
	p, closeIt, err := s.stmt(ctx, st)
	if err != nil {
		return 0, err
	}
	if closeIt {
		defer p.Close()
	}
	res, err := p.ExecContext(s.ctx(ctx), args...)
	if err != nil {
		return 0, s.classify(err)
	}
	n, err := res.RowsAffected()
	return n, s.classify(err)
}

// QueryRow runs st and scans its single row into dest.
func (s *StdConn) QueryRow(ctx context.Context, st *Stmt, args []any, dest ...any) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if s.direct != nil && assignable(dest) {
		s.call = call{kind: callRow, ctx: s.ctx(ctx), st: st, args: args, dest: dest}
		err := s.c.Raw(s.runCall)
		s.call = call{}
		if err == nil {
			return nil
		}
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoRows
		}
		return s.classify(err)
	}
	p, closeIt, err := s.stmt(ctx, st)
	if err != nil {
		return err
	}
	if closeIt {
		defer p.Close()
	}
	err = p.QueryRowContext(s.ctx(ctx), args...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNoRows
	}
	return s.classify(err)
}

// Query runs st and calls row for each row.
func (s *StdConn) Query(ctx context.Context, st *Stmt, args []any, row func(scan func(dest ...any) error) error) error {
	return s.query(ctx, st, args, func(rows *sql.Rows) error {
		for rows.Next() {
			if err := row(rows.Scan); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// QueryAny runs st and calls row for each row with its values made plain
// (EachAny), on database/sql's path as Query.
func (s *StdConn) QueryAny(ctx context.Context, st *Stmt, args []any, row func(cols []string, vals []any) error) error {
	return s.query(ctx, st, args, func(rows *sql.Rows) error { return EachAny(rows, nil, row) })
}

// query runs st on database/sql's path (Query, QueryAny) and hands its rows
// to each, whose error it classifies.
func (s *StdConn) query(ctx context.Context, st *Stmt, args []any, each func(rows *sql.Rows) error) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	p, closeIt, err := s.stmt(ctx, st)
	if err != nil {
		return err
	}
	if closeIt {
		defer p.Close()
	}
	rows, err := p.QueryContext(s.ctx(ctx), args...)
	if err != nil {
		return s.classify(err)
	}
	defer rows.Close()
	return s.classify(each(rows))
}

// Close closes the prepared statements and the connection.
func (s *StdConn) Close() error {
	if s.unwatch != nil {
		s.unwatch()
	}
	for _, p := range s.stmts {
		_ = p.Close()
	}
	clear(s.stmts)
	if len(s.direct) > 0 {
		_ = s.c.Raw(func(any) error {
			for _, d := range s.direct {
				_ = d.st.Close()
			}
			return nil
		})
		clear(s.direct)
	}
	return s.c.Close()
}

// directStmt is a statement prepared on the driver's connection (Direct).
type directStmt struct {
	st driver.Stmt
	q  driver.StmtQueryContext
	e  driver.StmtExecContext
}

type callKind uint8

const (
	callExec callKind = iota
	callRow
)

// call is the statement in flight on the direct path, where Raw's callback
// (made once) finds it.
type call struct {
	kind callKind
	ctx  context.Context
	st   *Stmt
	args []any
	dest []any
	n    int64 // rows changed (callExec)
}

// run runs s.call on the driver's connection dc; Raw calls it.
func (s *StdConn) run(dc any) error {
	k := &s.call
	d, err := s.prepared(k.ctx, dc, k.st)
	if err != nil {
		return err
	}
	if err := s.bind(dc, k.args); err != nil {
		return err
	}
	defer clear(s.nv) // the caller's arguments are not kept
	if k.kind == callExec {
		res, err := d.e.ExecContext(k.ctx, s.nv)
		if err != nil {
			return err
		}
		k.n, err = res.RowsAffected()
		return err
	}
	rows, err := d.q.QueryContext(k.ctx, s.nv)
	if err != nil {
		return err
	}
	n := len(rows.Columns())
	if n != len(k.dest) {
		rows.Close()
		return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", n, len(k.dest))
	}
	if cap(s.vals) < n {
		s.vals = make([]driver.Value, n)
	}
	vals := s.vals[:n]
	if err := rows.Next(vals); err != nil {
		rows.Close()
		if errors.Is(err, io.EOF) {
			return sql.ErrNoRows
		}
		return err
	}
	for i, v := range vals {
		if err := assign(k.dest[i], v); err != nil {
			rows.Close()
			clear(vals)
			return fmt.Errorf("sql: Scan error on column index %d: %w", i, err)
		}
	}
	clear(vals) // they may point into the driver's buffer
	return rows.Close()
}

// prepared returns st prepared on dc, preparing it at its first use.
func (s *StdConn) prepared(ctx context.Context, dc any, st *Stmt) (*directStmt, error) {
	if d, ok := s.direct[st]; ok {
		return d, nil
	}
	var ds driver.Stmt
	var err error
	q := s.cfg.Rebind(st.SQL)
	if p, ok := dc.(driver.ConnPrepareContext); ok {
		ds, err = p.PrepareContext(ctx, q)
	} else if p, ok := dc.(driver.Conn); ok {
		ds, err = p.Prepare(q)
	} else {
		return nil, fmt.Errorf("stdsql: %T is not a driver connection", dc)
	}
	if err != nil {
		return nil, err
	}
	d := &directStmt{st: ds}
	var ok1, ok2 bool
	d.q, ok1 = ds.(driver.StmtQueryContext)
	d.e, ok2 = ds.(driver.StmtExecContext)
	if !ok1 || !ok2 {
		ds.Close()
		return nil, fmt.Errorf("stdsql: the driver's statement %T runs no statement with a context", ds)
	}
	s.direct[st] = d
	return d, nil
}

// bind converts args into s.nv as database/sql does: the connection's
// NamedValueChecker, else the default converter.
func (s *StdConn) bind(dc any, args []any) error {
	s.nv = s.nv[:0]
	chk, _ := dc.(driver.NamedValueChecker)
	for i, a := range args {
		s.nv = append(s.nv, driver.NamedValue{Ordinal: i + 1, Value: a})
		nv := &s.nv[i] // checked in place: a local's address would escape
		err := driver.ErrSkip
		if chk != nil {
			err = chk.CheckNamedValue(nv)
		}
		if errors.Is(err, driver.ErrSkip) {
			nv.Value, err = driver.DefaultParameterConverter.ConvertValue(a)
		}
		if err != nil {
			return fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
	}
	return nil
}

// assignable reports whether assign takes every destination; QueryRow
// leaves the others to database/sql.
func assignable(dest []any) bool {
	for _, d := range dest {
		switch d.(type) {
		case sql.Scanner, *[]byte, *string, *int64, *int, *int32, *float64, *bool, *time.Time, *any:
		default:
			return false
		}
	}
	return true
}

// assign stores a driver value in dest as database/sql's Scan does: bytes
// copied (the driver's buffer is reused), NULL refused except into
// *[]byte, *any and a Scanner. The usual pairs are stored here; the other
// conversions go through database/sql's own (sql.Null[T]'s Scan).
func assign(dest any, v driver.Value) error {
	switch d := dest.(type) {
	case sql.Scanner:
		return d.Scan(v)
	case *[]byte:
		switch x := v.(type) {
		case []byte:
			*d = bytes.Clone(x)
			return nil
		case nil:
			*d = nil
			return nil
		}
		var n sql.Null[[]byte]
		if err := n.Scan(v); err != nil {
			return err
		}
		*d = n.V
		return nil
	case *any:
		if b, ok := v.([]byte); ok {
			v = bytes.Clone(b)
		}
		*d = v
		return nil
	case *int64:
		if x, ok := v.(int64); ok {
			*d = x
			return nil
		}
		return scanNotNull(d, v, "int64")
	case *int:
		if x, ok := v.(int64); ok {
			*d = int(x)
			return nil
		}
		return scanNotNull(d, v, "int")
	case *string:
		switch x := v.(type) {
		case []byte:
			*d = string(x)
			return nil
		case string:
			*d = x
			return nil
		}
		return scanNotNull(d, v, "string")
	case *int32:
		return scanNotNull(d, v, "int32")
	case *float64:
		return scanNotNull(d, v, "float64")
	case *bool:
		return scanNotNull(d, v, "bool")
	case *time.Time:
		return scanNotNull(d, v, "time.Time")
	}
	return fmt.Errorf("unsupported Scan, storing driver.Value type %T into type %T", v, dest)
}

// scanNotNull stores v in d through database/sql's own conversion (its
// Null[T]'s Scan), refusing NULL as database/sql's Scan into a plain type
// does.
func scanNotNull[T any](d *T, v driver.Value, into string) error {
	var n sql.Null[T]
	if err := n.Scan(v); err != nil || !n.Valid {
		return nullOr(err, into)
	}
	*d = n.V
	return nil
}

// nullOr is database/sql's error for NULL into a plain type, or err.
func nullOr(err error, into string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("converting NULL to %s is unsupported", into)
}

// Ping opens a database/sql pool on dsn through driver, pings it within
// timeout and closes it: a managed server's Ready, tried until it serves.
func Ping(ctx context.Context, driver, dsn string, timeout time.Duration) error {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return db.PingContext(cctx)
}

// CanceledOrLost classifies an error no driver code names by what ended
// it: the caller's context (canceled) or the connection to the engine
// (ConnLost: unavailable, to reconnect); nil when it is neither. A network
// engine's classify calls it before it calls what is left fatal.
func CanceledOrLost(err error) error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return dberr.New(dberr.Canceled, dberr.Interrupted, "", err)
	case ConnLost(err):
		return dberr.New(dberr.Unavailable, dberr.Connection, "", err)
	}
	return nil
}

// ConnLost reports whether err says the connection to the engine is gone
// (the server died or restarted, the network failed), whatever the driver:
// a broken or closed database/sql connection, an end of stream, a network
// error. Each engine's classify calls it an unavailable engine, so that the
// client reconnects instead of stopping the run.
func ConnLost(err error) bool {
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne)
}
