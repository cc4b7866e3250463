package zodb

import (
	"context"
	"encoding/json"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/pyworker"
)

// conn is one client: a session of a worker. Its writes wait in Go until
// Commit sends them in one request (tpc_begin, a store each, tpc_vote,
// tpc_finish), as a ZODB Connection keeps its changes until commit; its
// reads see the storage as of the transaction's first read (loadBefore),
// as ZODB's MVCC does.
type conn struct {
	db     *DB
	w      *pyworker.Worker
	sess   int64
	own    bool // the worker is this client's: Close ends it
	tables map[string]bool
	tx     bool
	at     string            // the transaction's snapshot (a tid in hex); "" until its first read
	seen   map[string]string // table NUL key → the serial its read saw ("" none)
	writes []write
	index  map[string]int // table NUL key → its write
}

type write struct {
	table      string
	key, value []byte // value nil: deleted
}

func newConn(d *DB, w *pyworker.Worker, sess int64, own bool) *conn {
	return &conn{db: d, w: w, sess: sess, own: own, tables: map[string]bool{}, seen: map[string]string{}, index: map[string]int{}}
}

func (c *conn) call(ctx context.Context, op string, args, reply any) error {
	return classify(c.w.Call(ctx, c.sess, op, args, reply))
}

// CreateTable records the table, in a transaction of its own.
func (c *conn) CreateTable(ctx context.Context, name string) error {
	if err := c.call(ctx, "create", map[string]string{"t": name}, nil); err != nil {
		return err
	}
	c.tables[name] = true
	return nil
}

// DropTable deletes the table's records and the table, in transactions of
// its own.
func (c *conn) DropTable(ctx context.Context, name string) error {
	delete(c.tables, name)
	return c.call(ctx, "drop", map[string]string{"t": name}, nil)
}

// table checks, once per connection, that the table exists.
func (c *conn) table(ctx context.Context, name string) error {
	if c.tables[name] {
		return nil
	}
	var r struct {
		Has bool `json:"has"`
	}
	if err := c.call(ctx, "has", map[string]string{"t": name}, &r); err != nil {
		return err
	}
	if !r.Has {
		return classify(backend.TableError(name))
	}
	c.tables[name] = true
	return nil
}

// Begin starts a transaction; nothing reaches the worker until a read.
func (c *conn) Begin(context.Context, bool) error {
	if c.tx {
		return errTxOpen
	}
	c.tx = true
	return nil
}

func (c *conn) end() {
	c.tx, c.at = false, ""
	clear(c.seen)
	clear(c.index)
	c.writes = c.writes[:0]
}

// Commit sends the transaction's writes (none: nothing to send).
func (c *conn) Commit(ctx context.Context) error {
	if !c.tx {
		return errNoTx
	}
	defer c.end()
	if len(c.writes) == 0 {
		return nil
	}
	rows := make([][4]any, len(c.writes))
	for i, w := range c.writes {
		var serial *string
		if s, ok := c.seen[w.table+"\x00"+string(w.key)]; ok {
			serial = &s
		}
		rows[i] = [4]any{w.table, w.key, w.value, serial}
	}
	err := c.call(ctx, "commit", map[string]any{"w": rows}, nil)
	switch dberr.ClassOf(err) {
	case dberr.OK:
		c.db.commits.Add(1)
	case dberr.Retryable:
		c.db.conflict.Add(1)
	}
	return err
}

// Rollback drops the transaction's writes.
func (c *conn) Rollback(context.Context) error {
	c.end()
	return nil
}

// Get returns the transaction's own write of key, else the record as of
// its snapshot.
func (c *conn) Get(ctx context.Context, table string, key []byte) ([]byte, bool, error) {
	if !c.tx {
		return nil, false, errNoTx
	}
	if err := c.table(ctx, table); err != nil {
		return nil, false, err
	}
	tk := table + "\x00" + string(key)
	if i, ok := c.index[tk]; ok {
		v := c.writes[i].value
		return v, v != nil, nil
	}
	var r struct {
		V      []byte `json:"v"`
		Serial string `json:"serial"`
		At     string `json:"at"`
	}
	if err := c.call(ctx, "get", map[string]any{"t": table, "k": key, "at": c.at}, &r); err != nil {
		return nil, false, err
	}
	c.at = r.At
	c.seen[tk] = r.Serial
	return r.V, r.V != nil, nil
}

// Put keeps key=value until Commit.
func (c *conn) Put(ctx context.Context, table string, key, value []byte) error {
	if value == nil {
		value = []byte{}
	}
	return c.put(ctx, table, key, value)
}

// Delete keeps the key's deletion until Commit.
func (c *conn) Delete(ctx context.Context, table string, key []byte) error {
	return c.put(ctx, table, key, nil)
}

func (c *conn) put(ctx context.Context, table string, key, value []byte) error {
	if !c.tx {
		return errNoTx
	}
	if err := c.table(ctx, table); err != nil {
		return err
	}
	tk := table + "\x00" + string(key)
	if i, ok := c.index[tk]; ok {
		c.writes[i].value = value
		return nil
	}
	c.index[tk] = len(c.writes)
	c.writes = append(c.writes, write{table: table, key: key, value: value})
	return nil
}

// PutNew keeps new records until Commit, to be stored as new objects: with
// no serial read first (z64, as a ZODB Connection stores the objects it
// adds), where a Put of a key the transaction did not read asks the storage
// for its serial at the commit (on ZEO, NEO and RelStorage a round trip to
// the server each). A key that exists after all makes the commit conflict.
// Keys and values are copied: the caller may reuse them.
func (c *conn) PutNew(ctx context.Context, table string, keys, values [][]byte) error {
	for i, k := range keys {
		k := append([]byte(nil), k...)
		if err := c.put(ctx, table, k, append([]byte{}, values[i]...)); err != nil {
			return err
		}
		c.seen[table+"\x00"+string(k)] = ""
	}
	return nil
}

// Scan calls fn for each record the storage holds now, in key order (the
// transaction's own writes are not among them).
func (c *conn) Scan(ctx context.Context, table string, fn func(k, v []byte) error) error {
	if err := c.table(ctx, table); err != nil {
		return err
	}
	err := c.w.Stream(ctx, c.sess, "scan", map[string]string{"t": table}, func(ok json.RawMessage) error {
		var r struct {
			Rows [][2][]byte `json:"rows"`
		}
		if err := json.Unmarshal(ok, &r); err != nil {
			return err
		}
		for _, kv := range r.Rows {
			if err := fn(kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
	return classify(err)
}

// Close ends the client: its session, or its own worker.
func (c *conn) Close() error {
	c.end()
	if c.own {
		err := c.w.Close()
		c.db.closed(c.w)
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), pyworker.CloseWithin)
	defer cancel()
	return c.w.Send(ctx, c.sess, "end")
}
