// Package sqlkv offers the key-value contract on top of any SQL backend: each
// table is a SQL table kv_NAME(k, v) with k its primary key. Key-value
// workloads run on SQL engines through it.
package sqlkv

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// Wrap returns db as a key-value store.
func Wrap(db backend.SQLDB) backend.KVDB { return &kvdb{db} }

type kvdb struct{ backend.SQLDB }

// Stats passes the engine's counters through when it has them.
func (k *kvdb) Stats(ctx context.Context) (map[string]int64, error) {
	if s, ok := k.SQLDB.(backend.Statser); ok {
		return s.Stats(ctx)
	}
	return nil, nil
}

// Unwrap returns the SQL database underneath.
func (k *kvdb) Unwrap() backend.SQLDB { return k.SQLDB }

func (k *kvdb) KVConn(ctx context.Context) (backend.KVConn, error) {
	c, err := k.Conn(ctx)
	if err != nil {
		return nil, err
	}
	cn := &conn{c: c, d: k.Dialect(), tables: map[string]*stmts{}}
	cn.dest[0] = &cn.val
	return cn, nil
}

var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// stmts are one table's statements.
type stmts struct {
	get, put, del, scan, scanFrom *backend.Stmt
}

type conn struct {
	c      backend.Conn
	d      backend.Dialect
	tables map[string]*stmts
	bulk   map[string]*backend.Stmt // PutNew's multi-row INSERTs, by table and rows
	inTx   bool
	// Get's argument, destination and value, reused: a read allocates
	// only the key's boxing.
	args [1]any
	dest [1]any // &val
	val  value
}

// value is Get's destination: the value copied into a buffer the
// connection reuses (KVConn.Get's value is valid until the next call).
type value []byte

// Scan copies src into the buffer.
func (v *value) Scan(src any) error {
	switch x := src.(type) {
	case []byte:
		*v = append((*v)[:0], x...)
	case string:
		*v = append((*v)[:0], x...)
	case nil:
		*v = (*v)[:0]
	default:
		return fmt.Errorf("sqlkv: a value of type %T, not bytes", src)
	}
	return nil
}

func sqlName(table string) (string, error) {
	if !tableName.MatchString(table) {
		return "", fmt.Errorf("sqlkv: %q is not a valid table name", table)
	}
	return "kv_" + table, nil
}

func (c *conn) stmts(table string) (*stmts, error) {
	if s, ok := c.tables[table]; ok {
		return s, nil
	}
	t, err := sqlName(table)
	if err != nil {
		return nil, err
	}
	s := &stmts{
		get:  &backend.Stmt{SQL: "SELECT v FROM " + t + " WHERE k = ?"},
		put:  &backend.Stmt{SQL: c.d.Upsert(t)},
		del:  &backend.Stmt{SQL: "DELETE FROM " + t + " WHERE k = ?"},
		scan: &backend.Stmt{SQL: "SELECT k, v FROM " + t + " ORDER BY k"},
		// LIMIT ?: Firebird's connection rewrites it to ROWS ?.
		scanFrom: &backend.Stmt{SQL: "SELECT k, v FROM " + t + " WHERE k >= ? ORDER BY k LIMIT ?"},
	}
	c.tables[table] = s
	return s, nil
}

func (c *conn) CreateTable(ctx context.Context, name string) error {
	t, err := sqlName(name)
	if err != nil {
		return err
	}
	return c.c.ExecScript(ctx, fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (k %s PRIMARY KEY, v %s NOT NULL)", t, c.d.Blob, c.d.Blob))
}

func (c *conn) DropTable(ctx context.Context, name string) error {
	t, err := sqlName(name)
	if err != nil {
		return err
	}
	return c.c.ExecScript(ctx, "DROP TABLE IF EXISTS "+t)
}

// Begin starts a write transaction; a read-only one runs each read in its
// own implicit transaction.
func (c *conn) Begin(ctx context.Context, write bool) error {
	if !write {
		return nil
	}
	if err := c.c.Begin(ctx); err != nil {
		return err
	}
	c.inTx = true
	return nil
}

func (c *conn) Commit(ctx context.Context) error {
	if !c.inTx {
		return nil
	}
	c.inTx = false
	return c.c.Commit(ctx)
}

func (c *conn) Rollback(ctx context.Context) error {
	if !c.inTx {
		return nil
	}
	c.inTx = false
	return c.c.Rollback(ctx)
}

func (c *conn) Get(ctx context.Context, table string, key []byte) ([]byte, bool, error) {
	s, err := c.stmts(table)
	if err != nil {
		return nil, false, err
	}
	c.args[0] = key
	err = c.c.QueryRow(ctx, s.get, c.args[:], c.dest[:]...)
	c.args[0] = nil
	if errors.Is(err, backend.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return c.val, true, nil
}

func (c *conn) Put(ctx context.Context, table string, key, value []byte) error {
	s, err := c.stmts(table)
	if err != nil {
		return err
	}
	_, err = c.c.Exec(ctx, s.put, key, value)
	return err
}

func (c *conn) Delete(ctx context.Context, table string, key []byte) error {
	s, err := c.stmts(table)
	if err != nil {
		return err
	}
	_, err = c.c.Exec(ctx, s.del, key)
	return err
}

func (c *conn) Scan(ctx context.Context, table string, fn func(k, v []byte) error) error {
	s, err := c.stmts(table)
	if err != nil {
		return err
	}
	return c.c.Query(ctx, s.scan, nil, func(scan func(...any) error) error {
		var k, v []byte
		if err := scan(&k, &v); err != nil {
			return err
		}
		return fn(k, v)
	})
}

// ScanFrom reads at most limit records from the first key ≥ from:
//
//	SELECT k, v FROM kv_NAME WHERE k >= ? ORDER BY k LIMIT ?
func (c *conn) ScanFrom(ctx context.Context, table string, from []byte, limit int, fn func(k, v []byte) error) error {
	s, err := c.stmts(table)
	if err != nil {
		return err
	}
	return c.c.Query(ctx, s.scanFrom, []any{from, int64(limit)}, func(scan func(...any) error) error {
		var k, v []byte
		if err := scan(&k, &v); err != nil {
			return err
		}
		return fn(k, v)
	})
}

// bulkRows is the most rows one multi-row INSERT carries.
const bulkRows = 256

// PutNew stores new records at once where the connection copies
// (backend.Copier: PostgreSQL's COPY kv_NAME (k, v) FROM STDIN, Firebird's
// prepared blocks), else in multi-row INSERTs of up to bulkRows rows:
//
//	INSERT INTO kv_NAME(k, v) VALUES(?, ?), (?, ?), …
func (c *conn) PutNew(ctx context.Context, table string, keys, values [][]byte) error {
	t, err := sqlName(table)
	if err != nil {
		return err
	}
	if cp, ok := c.c.(backend.Copier); ok {
		i := 0
		_, err := cp.CopyFrom(ctx, t, []string{"k", "v"}, func() ([]any, bool) {
			if i == len(keys) {
				return nil, false
			}
			i++
			return []any{keys[i-1], values[i-1]}, true
		})
		return err
	}
	if c.bulk == nil {
		c.bulk = map[string]*backend.Stmt{}
	}
	args := make([]any, 0, 2*min(len(keys), bulkRows))
	for lo := 0; lo < len(keys); lo += bulkRows {
		hi := min(lo+bulkRows, len(keys))
		name := fmt.Sprintf("%s/%d", t, hi-lo)
		st, ok := c.bulk[name]
		if !ok {
			q := "INSERT INTO " + t + "(k, v) VALUES(?, ?)" + strings.Repeat(", (?, ?)", hi-lo-1)
			st = &backend.Stmt{SQL: q}
			c.bulk[name] = st
		}
		args = args[:0]
		for i := lo; i < hi; i++ {
			args = append(args, keys[i], values[i])
		}
		if _, err := c.c.Exec(ctx, st, args...); err != nil {
			return err
		}
	}
	return nil
}

func (c *conn) Close() error {
	_ = c.Rollback(context.Background())
	return c.c.Close()
}
