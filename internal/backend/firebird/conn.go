package firebird

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/nakagami/firebirdsql"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// conn is one client's connection. Every statement runs in a transaction
// dbgauge begins and ends itself, through the driver's connection: the
// driver's own "autocommit" keeps one transaction open per connection and
// commits it with COMMIT RETAINING after each statement, which holds back
// Firebird's oldest-active marker and with it garbage collection. Outside a
// unit (Begin … Commit), a statement is its own transaction: start, execute,
// commit, three round trips, as a Firebird client without retaining does.
type conn struct {
	c       *sql.Conn
	prepare backend.Prepare
	stmts   map[*backend.Stmt]*sql.Stmt
	texts   map[*backend.Stmt]string
	// blocks are CopyFrom's prepared EXECUTE BLOCKs by their shape, kept
	// from one CopyFrom to the next (a load copies table after table,
	// district after district, in blocks of the same shapes): at most
	// maxBlocks.
	blocks map[blockKey]*sql.Stmt
	tx     driver.Tx // the transaction open now, or nil
	txOpts driver.TxOptions
	open   *atomic.Int64 // the database's count of open client connections
	// attachment is CURRENT_CONNECTION (MON$ATTACHMENT_ID), read by the
	// first LockView; 0 before.
	attachment int64
}

// bg is the context handed to the driver: it starts a goroutine per
// statement to watch a cancelable one. A statement runs to its end when the
// run is abandoned; a dead server ends it at once (the socket closes).
var bg = context.Background()

func newConn(c *sql.Conn, p backend.Prepare) *conn {
	return &conn{c: c, prepare: p, stmts: map[*backend.Stmt]*sql.Stmt{}, texts: map[*backend.Stmt]string{}, blocks: map[blockKey]*sql.Stmt{}}
}

// raw runs f on the driver's connection.
func (c *conn) raw(f func(dc driver.Conn) error) error {
	return c.c.Raw(func(dc any) error { return f(dc.(driver.Conn)) })
}

// Begin starts a read-committed (record version), waiting transaction:
// Firebird's default, and what OLTP-EMUL uses.
func (c *conn) Begin(context.Context) error {
	if c.tx != nil {
		return classify(errors.New("firebird: a transaction is already open on this connection"))
	}
	return classify(c.raw(func(dc driver.Conn) error {
		tx, err := dc.(driver.ConnBeginTx).BeginTx(bg, c.txOpts)
		if err == nil {
			c.tx = tx
		}
		return err
	}))
}

// SetTxMode makes the connection's transactions snapshots (SNAPSHOT,
// isc_tpb_concurrency) with Snapshot, read committed (record version)
// without. NoWait is honoured only for read committed: the driver
// (nakagami/firebirdsql v0.9.23) pairs isc_tpb_nowait with read committed
// alone, and a SNAPSHOT NO WAIT transaction cannot be asked of it through
// database/sql; a snapshot transaction here waits for a row another holds,
// then fails with update_conflict if that one committed.
func (c *conn) SetTxMode(ctx context.Context, m backend.TxMode) (backend.TxModeSet, error) {
	switch {
	case m.Snapshot:
		c.txOpts = driver.TxOptions{Isolation: driver.IsolationLevel(sql.LevelRepeatableRead)}
	case m.NoWait:
		c.txOpts = driver.TxOptions{Isolation: driver.IsolationLevel(firebirdsql.LevelReadCommittedNoWait)}
	default:
		c.txOpts = driver.TxOptions{}
	}
	words, _, err := c.isolation(ctx) // read back, as every setting a result records
	if err != nil {
		return backend.TxModeSet{}, err
	}
	if m.Snapshot && m.NoWait && strings.HasSuffix(words, " wait") && !strings.HasSuffix(words, "no wait") {
		words += " (the driver cannot begin snapshot no wait)"
	}
	return backend.TxModeSet{Words: words, NoWait: strings.HasSuffix(words, "no wait")}, nil
}

// Commit commits the open transaction.
func (c *conn) Commit(context.Context) error { return c.end(true) }

// Rollback rolls it back.
func (c *conn) Rollback(context.Context) error { return c.end(false) }

func (c *conn) end(commit bool) error {
	if c.tx == nil {
		return nil
	}
	tx := c.tx
	c.tx = nil
	return classify(c.raw(func(driver.Conn) error { // the driver's connection is ours while it ends
		if commit {
			return tx.Commit()
		}
		return tx.Rollback()
	}))
}

// auto runs fn in the open transaction, or in one of its own.
func (c *conn) auto(fn func() error) error {
	if c.tx != nil {
		return fn()
	}
	if err := c.Begin(bg); err != nil {
		return err
	}
	if err := fn(); err != nil {
		_ = c.end(false)
		return err
	}
	return c.end(true)
}

// stmt returns st prepared, and whether the caller must close it after use.
func (c *conn) stmt(st *backend.Stmt) (*sql.Stmt, bool, error) {
	if p, ok := c.stmts[st]; ok {
		return p, false, nil
	}
	text, ok := c.texts[st]
	if !ok {
		text = Rewrite(st.SQL)
		c.texts[st] = text
	}
	p, err := c.c.PrepareContext(bg, text)
	if err != nil {
		return nil, false, classify(err)
	}
	if c.prepare == backend.Once {
		c.stmts[st] = p
		return p, false, nil
	}
	return p, true, nil
}

// with runs fn with st prepared, in the open transaction or one of its own.
func (c *conn) with(st *backend.Stmt, fn func(p *sql.Stmt) error) error {
	return c.auto(func() error {
		p, closeIt, err := c.stmt(st)
		if err != nil {
			return err
		}
		if closeIt {
			defer p.Close()
		}
		return fn(p)
	})
}

// Exec runs st and returns the rows it changed.
func (c *conn) Exec(_ context.Context, st *backend.Stmt, args ...any) (int64, error) {
	var n int64
	err := c.with(st, func(p *sql.Stmt) error {
		res, err := p.ExecContext(bg, args...)
		if err != nil {
			return classify(err)
		}
		n, err = res.RowsAffected()
		return classify(err)
	})
	return n, err
}

// QueryRow runs st and scans its single row.
func (c *conn) QueryRow(_ context.Context, st *backend.Stmt, args []any, dest ...any) error {
	return c.with(st, func(p *sql.Stmt) error {
		err := p.QueryRowContext(bg, args...).Scan(dest...)
		if errors.Is(err, sql.ErrNoRows) {
			return backend.ErrNoRows
		}
		return classify(err)
	})
}

// Query runs st and calls row for each row.
func (c *conn) Query(_ context.Context, st *backend.Stmt, args []any, row func(scan func(dest ...any) error) error) error {
	return c.with(st, func(p *sql.Stmt) error {
		rows, err := p.QueryContext(bg, args...)
		if err != nil {
			return classify(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := row(rows.Scan); err != nil {
				return classify(err)
			}
		}
		return classify(rows.Err())
	})
}

// QueryAny runs st and calls row for each row with its values made plain
// (backend.EachAny) and the columns' names in lower case: Firebird folds
// unquoted names to upper case, and scripts write them in lower case.
func (c *conn) QueryAny(_ context.Context, st *backend.Stmt, args []any, row func(cols []string, vals []any) error) error {
	return c.with(st, func(p *sql.Stmt) error {
		rows, err := p.QueryContext(bg, args...)
		if err != nil {
			return classify(err)
		}
		defer rows.Close()
		return classify(backend.EachAny(rows, strings.ToLower, row))
	})
}

// ExecScript runs one statement without preparing it for reuse. The
// portable forms workloads write that Firebird 3 lacks are translated: see
// Rewrite and ddl.
func (c *conn) ExecScript(ctx context.Context, q string) error {
	return c.auto(func() error {
		q, skip, err := c.ddl(q)
		if err != nil || skip {
			return err
		}
		if dropping.MatchString(q) {
			// Firebird refuses to drop a table a prepared statement
			// still uses: free this connection's.
			c.freeStmts()
		}
		_, err = c.c.ExecContext(bg, Rewrite(q))
		return classify(err)
	})
}

var (
	createIfNot = regexp.MustCompile(`(?is)^\s*CREATE\s+(TABLE|(?:UNIQUE\s+)?(?:(?:ASC|DESC)(?:ENDING)?\s+)?INDEX)\s+IF\s+NOT\s+EXISTS\s+(\w+)`)
	dropping    = regexp.MustCompile(`(?is)^\s*DROP\s`)
	dropIf      = regexp.MustCompile(`(?is)^\s*DROP\s+(TABLE|INDEX)\s+IF\s+EXISTS\s+(\w+)\s*$`)
)

// ddl translates CREATE TABLE/INDEX IF NOT EXISTS and DROP TABLE/INDEX IF
// EXISTS, which Firebird 3 lacks, by looking the name up in the system
// tables: it returns the statement to run, or skip when there is nothing to do.
func (c *conn) ddl(q string) (string, bool, error) {
	m := createIfNot.FindStringSubmatchIndex(q)
	drop := false
	if m == nil {
		if m = dropIf.FindStringSubmatchIndex(q); m == nil {
			return q, false, nil
		}
		drop = true
	}
	what, name := strings.ToUpper(q[m[2]:m[3]]), strings.ToUpper(q[m[4]:m[5]])
	lookup := "SELECT count(*) FROM RDB$RELATIONS WHERE RDB$RELATION_NAME = ?"
	if strings.HasSuffix(what, "INDEX") {
		lookup = "SELECT count(*) FROM RDB$INDICES WHERE RDB$INDEX_NAME = ?"
	}
	var n int64
	if err := c.c.QueryRowContext(bg, lookup, name).Scan(&n); err != nil {
		return "", false, classify(err)
	}
	if drop {
		return fmt.Sprintf("DROP %s %s", strings.Fields(what)[len(strings.Fields(what))-1], name), n == 0, nil
	}
	// Cut "IF NOT EXISTS" out of the statement.
	head := q[:m[2]] + q[m[2]:m[3]]
	return head + " " + q[m[4]:], n > 0, nil
}

var (
	limit = regexp.MustCompile(`(?i)\bLIMIT\s+(\?|\d+)`)
	mod   = regexp.MustCompile(`(\w+(?:\.\w+)?)\s*%\s*(\?|\w+)`)
)

// Rewrite turns the portable SQL workloads write into Firebird 3's: LIMIT n
// becomes ROWS n (which Firebird takes at the end of a SELECT, and of an
// UPDATE or DELETE with ORDER BY), x % y becomes MOD(x, y), and a SELECT of
// expressions alone reads them FROM RDB$DATABASE (Firebird's one-row table).
// Workloads keep string literals free of all three. A statement without
// the word or the sign is not searched: a 60 KB EXECUTE BLOCK of a load's
// literal rows went through both regular expressions at 80 % of the load's
// CPU (tpcc's warehouse: 50 s, most of it here).
func Rewrite(q string) string {
	if hasFold(q, "LIMIT") {
		q = limit.ReplaceAllString(q, "ROWS $1")
	}
	if strings.IndexByte(q, '%') >= 0 {
		q = mod.ReplaceAllString(q, "MOD($1, $2)")
	}
	if t := strings.TrimSpace(q); len(t) > 7 && strings.EqualFold(t[:7], "SELECT ") && !topLevelFrom(t) {
		q = t + " FROM RDB$DATABASE"
	}
	return q
}

// hasFold reports whether q holds word (upper case) in any case.
func hasFold(q, word string) bool {
	for i := 0; i+len(word) <= len(q); i++ {
		if q[i]|0x20 == word[0]|0x20 && strings.EqualFold(q[i:i+len(word)], word) {
			return true
		}
	}
	return false
}

// topLevelFrom reports whether q has a FROM outside parentheses.
func topLevelFrom(q string) bool {
	depth := 0
	u := strings.ToUpper(q)
	for i := 0; i < len(u); i++ {
		switch u[i] {
		case '(':
			depth++
		case ')':
			depth--
		case 'F':
			if depth == 0 && strings.HasPrefix(u[i:], "FROM") && i > 0 && !isWord(u[i-1]) && (i+4 == len(u) || !isWord(u[i+4])) {
				return true
			}
		}
	}
	return false
}

func isWord(b byte) bool {
	return b == '_' || b == '$' || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9')
}

// Close closes the statements and the connection. The statements are freed
// inside a transaction: freeing one outside makes the driver commit its idle
// transaction, a wasted round trip each.
func (c *conn) Close() error {
	if c.tx != nil {
		_ = c.end(false)
	}
	if len(c.stmts)+len(c.blocks) > 0 && c.Begin(bg) == nil {
		c.freeStmts()
		_ = c.end(false)
	}
	if c.open != nil {
		c.open.Add(-1)
		c.open = nil
	}
	return c.c.Close()
}

// freeStmts frees the prepared statements and CopyFrom's blocks; they are
// prepared again at their next use.
func (c *conn) freeStmts() {
	for _, p := range c.stmts {
		_ = p.Close()
	}
	clear(c.stmts)
	c.freeBlocks()
}

func (c *conn) freeBlocks() {
	for _, p := range c.blocks {
		_ = p.Close()
	}
	clear(c.blocks)
}
