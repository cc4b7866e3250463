package redis

import (
	"context"
	"errors"
	"slices"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

// Key layout. A table is a key of its own, prefix + name (its marker,
// which CreateTable sets and DropTable deletes), and each of its records a
// string key, prefix + name + NUL + key: a record is a key, so that a
// transaction WATCHes the records it reads, not the whole table. A name
// holds no NUL, so one table's keys never begin another's.
const prefix = "dbgauge:"

func marker(table string) string { return prefix + table }

func recordKey(table string, key []byte) string { return prefix + table + "\x00" + string(key) }

// scanBatch is how many keys one SCAN (and one MGET) asks for.
const scanBatch = 1000

var (
	errReadOnly = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("redis: a write in a transaction begun to read"))
	errBadName  = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("redis: a table's name holds no NUL byte"))
)

// KVConn returns a handle for one client: a connection of its own (a
// WATCH is a connection's).
func (d *db) KVConn(context.Context) (backend.KVConn, error) {
	return &conn{rc: d.client.Conn(), tables: map[string]bool{}}, nil
}

// conn is one client's connection. A transaction keeps its writes here
// until Commit sends them in one MULTI/EXEC; in a write transaction every
// key it reads is WATCHed first, so that EXEC fails (a conflict, retried)
// when another client changed one meanwhile: optimistic, serializable
// read-modify-write. A read transaction's reads each see the latest
// committed state, not one snapshot.
type conn struct {
	rc *goredis.Conn
	// tables are the tables this connection found or made; a table
	// dropped by another connection is not seen until this one's next
	// CreateTable or DropTable.
	tables map[string]bool
	tx     *tx
}

// tx is an open transaction.
type tx struct {
	write   bool
	watched bool             // a WATCH was sent
	writes  backend.WriteSet // the buffered writes, by record key
}

func (c *conn) CreateTable(ctx context.Context, name string) error {
	if strings.Contains(name, "\x00") {
		return errBadName
	}
	if err := c.rc.Set(ctx, marker(name), "table", 0).Err(); err != nil {
		return classify(err)
	}
	c.tables[name] = true
	return nil
}

// DropTable deletes the table's marker and then its records, SCANned in
// batches and UNLINKed (freed in the background).
func (c *conn) DropTable(ctx context.Context, name string) error {
	delete(c.tables, name)
	if err := c.rc.Del(ctx, marker(name)).Err(); err != nil {
		return classify(err)
	}
	return c.scanKeys(ctx, name, func(keys []string) error {
		return classify(c.rc.Unlink(ctx, keys...).Err())
	})
}

// scanKeys calls fn with every record key of table, a batch at a time, in
// no order (SCAN's).
func (c *conn) scanKeys(ctx context.Context, table string, fn func(keys []string) error) error {
	match := globEscape(prefix+table+"\x00") + "*"
	var cursor uint64
	for {
		keys, next, err := c.rc.Scan(ctx, cursor, match, scanBatch).Result()
		if err != nil {
			return classify(err)
		}
		if len(keys) > 0 {
			if err := fn(keys); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// globEscape escapes what SCAN's MATCH pattern reads as a wildcard.
func globEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// Begin starts a transaction; nothing is sent until a read or the commit.
func (c *conn) Begin(_ context.Context, write bool) error {
	if c.tx != nil {
		return errTxOpen
	}
	c.tx = &tx{write: write}
	return nil
}

// Commit sends a write transaction's writes in one MULTI/EXEC. EXEC fails
// (retryable) when a WATCHed key changed; then nothing was written.
func (c *conn) Commit(ctx context.Context) error {
	t := c.end()
	if t == nil {
		return errNoTx
	}
	if t.writes.Len() == 0 {
		return c.unwatch(ctx, t)
	}
	_, err := c.rc.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		for _, k := range t.writes.Keys() {
			if w, _ := t.writes.Get(k); w.Delete {
				p.Del(ctx, k)
			} else {
				p.Set(ctx, k, w.Value, 0)
			}
		}
		return nil
	})
	return classify(err)
}

// Rollback drops the buffered writes and the WATCH.
func (c *conn) Rollback(ctx context.Context) error {
	if t := c.end(); t != nil {
		return c.unwatch(ctx, t)
	}
	return nil
}

// unwatch ends a transaction's WATCH, which would otherwise hold for the
// connection's next one.
func (c *conn) unwatch(ctx context.Context, t *tx) error {
	if !t.watched {
		return nil
	}
	return classify(c.rc.Do(ctx, "UNWATCH").Err())
}

// end takes the open transaction off the connection (nil: there is none).
func (c *conn) end() *tx {
	t := c.tx
	c.tx = nil
	return t
}

// Get reads key: the transaction's own write if it made one, else the
// server's value, WATCHed first in a write transaction. The table's marker
// is read in the same round trip until the connection knows the table.
func (c *conn) Get(ctx context.Context, table string, key []byte) ([]byte, bool, error) {
	t := c.tx
	if t == nil {
		return nil, false, errNoTx
	}
	rk := recordKey(table, key)
	if w, ok := t.writes.Get(rk); ok {
		return w.Value, !w.Delete, nil
	}
	var exists *goredis.IntCmd
	var get *goredis.StringCmd
	_, err := c.rc.Pipelined(ctx, func(p goredis.Pipeliner) error {
		if t.write {
			p.Do(ctx, "WATCH", rk)
		}
		if !c.tables[table] {
			exists = p.Exists(ctx, marker(table))
		}
		get = p.Get(ctx, rk)
		return nil
	})
	t.watched = t.watched || t.write
	if err != nil && !errors.Is(err, goredis.Nil) {
		return nil, false, classify(err)
	}
	if err := c.known(table, exists); err != nil {
		return nil, false, err
	}
	v, err := get.Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, false, nil
	}
	return v, err == nil, classify(err)
}

// known records what an EXISTS of table's marker said (nil: none was
// asked, the connection knows it), or says the table does not exist.
func (c *conn) known(table string, exists *goredis.IntCmd) error {
	if exists == nil {
		return nil
	}
	if exists.Val() == 0 {
		return classify(backend.TableError(table))
	}
	c.tables[table] = true
	return nil
}

// writable checks that a write may be buffered in table: a write
// transaction is open, and the table exists (asked once a connection).
func (c *conn) writable(ctx context.Context, table string) error {
	switch {
	case c.tx == nil:
		return errNoTx
	case !c.tx.write:
		return errReadOnly
	case c.tables[table]:
		return nil
	}
	if err := c.exists(ctx, table); err != nil {
		return err
	}
	c.tables[table] = true
	return nil
}

// exists asks the server whether table's marker is there: a missing table
// is backend.TableError.
func (c *conn) exists(ctx context.Context, table string) error {
	n, err := c.rc.Exists(ctx, marker(table)).Result()
	if err != nil {
		return classify(err)
	}
	if n == 0 {
		return classify(backend.TableError(table))
	}
	return nil
}

// Put buffers key=value until the commit.
func (c *conn) Put(ctx context.Context, table string, key, value []byte) error {
	if err := c.writable(ctx, table); err != nil {
		return err
	}
	c.tx.writes.Put(recordKey(table, key), value)
	return nil
}

// Delete buffers the removal of key until the commit.
func (c *conn) Delete(ctx context.Context, table string, key []byte) error {
	if err := c.writable(ctx, table); err != nil {
		return err
	}
	c.tx.writes.Delete(recordKey(table, key))
	return nil
}

// Scan reads every record of table in key order: its keys SCANned, sorted,
// and read with MGET in batches, with the transaction's own writes over
// them. The records are not WATCHed, and a SCAN is no snapshot: a record
// written meanwhile may be seen or not.
func (c *conn) Scan(ctx context.Context, table string, fn func(k, v []byte) error) error {
	if c.tx == nil {
		return errNoTx
	}
	if err := c.exists(ctx, table); err != nil {
		return err
	}
	var keys []string
	if err := c.scanKeys(ctx, table, func(ks []string) error { keys = append(keys, ks...); return nil }); err != nil {
		return err
	}
	for _, k := range c.tx.writes.Keys() {
		if strings.HasPrefix(k, prefix+table+"\x00") && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return c.each(ctx, table, keys, fn)
}

// each calls fn for each of keys (sorted) that holds a value, read with
// MGET in batches, the transaction's own writes over them.
func (c *conn) each(ctx context.Context, table string, keys []string, fn func(k, v []byte) error) error {
	skip := len(prefix + table + "\x00")
	for len(keys) > 0 {
		batch := keys[:min(scanBatch, len(keys))]
		keys = keys[len(batch):]
		vals, err := c.rc.MGet(ctx, batch...).Result()
		if err != nil {
			return classify(err)
		}
		for i, k := range batch {
			var v []byte
			if w, ok := c.tx.writes.Get(k); ok {
				if w.Delete {
					continue
				}
				v = w.Value
			} else if s, ok := vals[i].(string); ok {
				v = []byte(s)
			} else {
				continue // deleted since the SCAN
			}
			if err := fn([]byte(k[skip:]), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close ends an open transaction and gives the connection back.
func (c *conn) Close() error {
	err := c.Rollback(context.Background())
	if cerr := c.rc.Close(); err == nil {
		err = classify(cerr)
	}
	return err
}
