package backend

import (
	"context"
	"database/sql"
	"errors"
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
}

// StdConn is a Conn over one pinned database/sql connection. Transactions are
// plain BEGIN/COMMIT statements on that connection, so statements prepared
// once stay valid inside them (sql.Tx would prepare them again).
type StdConn struct {
	c     *sql.Conn
	cfg   StdConfig
	stmts map[*Stmt]*sql.Stmt
}

// NewStdConn wraps a pinned connection.
func NewStdConn(c *sql.Conn, cfg StdConfig) *StdConn {
	if cfg.Rebind == nil {
		cfg.Rebind = func(s string) string { return s }
	}
	if cfg.BeginSQL == "" {
		cfg.BeginSQL = "BEGIN"
	}
	return &StdConn{c: c, cfg: cfg, stmts: map[*Stmt]*sql.Stmt{}}
}

// ctx returns the context to hand the driver.
func (s *StdConn) ctx(ctx context.Context) context.Context {
	if s.cfg.Uncancelable {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

// Raw returns the underlying connection, for engine-specific reads.
func (s *StdConn) Raw() *sql.Conn { return s.c }

func (s *StdConn) exec(ctx context.Context, q string) error {
	_, err := s.c.ExecContext(s.ctx(ctx), q)
	return s.cfg.Classify(err)
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
	p, closeIt, err := s.stmt(ctx, st)
	if err != nil {
		return 0, err
	}
	if closeIt {
		defer p.Close()
	}
	res, err := p.ExecContext(s.ctx(ctx), args...)
	if err != nil {
		return 0, s.cfg.Classify(err)
	}
	n, err := res.RowsAffected()
	return n, s.cfg.Classify(err)
}

// QueryRow runs st and scans its single row into dest.
func (s *StdConn) QueryRow(ctx context.Context, st *Stmt, args []any, dest ...any) error {
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
	return s.cfg.Classify(err)
}

// Query runs st and calls row for each row.
func (s *StdConn) Query(ctx context.Context, st *Stmt, args []any, row func(scan func(dest ...any) error) error) error {
	p, closeIt, err := s.stmt(ctx, st)
	if err != nil {
		return err
	}
	if closeIt {
		defer p.Close()
	}
	rows, err := p.QueryContext(s.ctx(ctx), args...)
	if err != nil {
		return s.cfg.Classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return s.cfg.Classify(err)
		}
	}
	return s.cfg.Classify(rows.Err())
}

// Close closes the prepared statements and the connection.
func (s *StdConn) Close() error {
	for _, p := range s.stmts {
		_ = p.Close()
	}
	clear(s.stmts)
	return s.c.Close()
}
