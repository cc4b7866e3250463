package bdb

import (
	"bytes"
	"context"
	"slices"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// conn is one client's handle: its transaction, if one is open.
type conn struct {
	db    *db
	tx    *txn
	write bool
}

// CreateTable creates the table's database file, in a transaction of its
// own (DB_AUTO_COMMIT), if missing.
func (c *conn) CreateTable(_ context.Context, name string) error {
	d := c.db
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.tables[name]; ok {
		return nil
	}
	t, err := d.env.openTable(file(name), d.hash, 0, true)
	if err != nil {
		return err
	}
	d.tables[name] = t
	return nil
}

// DropTable closes the table's handle and removes its file, in a
// transaction of its own; a missing table is not an error.
func (c *conn) DropTable(_ context.Context, name string) error {
	d := c.db
	d.mu.Lock()
	defer d.mu.Unlock()
	if t, ok := d.tables[name]; ok {
		delete(d.tables, name)
		if err := t.close(); err != nil {
			return err
		}
	}
	if err := d.env.removeTable(file(name)); err != nil && !isNotFound(err) {
		return err
	}
	return nil
}

// Begin starts a transaction (DB_ENV->txn_begin).
func (c *conn) Begin(_ context.Context, write bool) error {
	if c.tx != nil {
		return errTxOpen
	}
	tx, err := c.db.env.begin()
	if err != nil {
		return err
	}
	c.tx, c.write = tx, write
	return nil
}

// Commit commits the transaction: at sync, once its log is flushed.
func (c *conn) Commit(context.Context) error {
	tx := c.end()
	if tx == nil {
		return errNoTx
	}
	return tx.commit()
}

// Rollback aborts the transaction (a deadlock's victim must).
func (c *conn) Rollback(context.Context) error {
	if tx := c.end(); tx != nil {
		return tx.abort()
	}
	return nil
}

func (c *conn) end() *txn {
	tx := c.tx
	c.tx = nil
	return tx
}

// open returns table's handle inside the open transaction.
func (c *conn) open(name string) (*table, error) {
	if c.tx == nil {
		return nil, errNoTx
	}
	return c.db.table(name)
}

func (c *conn) Get(_ context.Context, name string, key []byte) ([]byte, bool, error) {
	t, err := c.open(name)
	if err != nil {
		return nil, false, err
	}
	return t.get(c.tx, key)
}

func (c *conn) Put(_ context.Context, name string, key, value []byte) error {
	t, err := c.open(name)
	if err != nil {
		return err
	}
	if !c.write {
		return errReadOnly
	}
	return t.put(c.tx, key, value)
}

func (c *conn) Delete(_ context.Context, name string, key []byte) error {
	t, err := c.open(name)
	if err != nil {
		return err
	}
	if !c.write {
		return errReadOnly
	}
	return t.del(c.tx, key)
}

// Scan reads every record in key order: a B-tree's cursor walks it; a
// hash table's records are read and sorted first.
func (c *conn) Scan(_ context.Context, name string, fn func(k, v []byte) error) error {
	t, err := c.open(name)
	if err != nil {
		return err
	}
	if !t.hash {
		return t.each(c.tx, nil, func(k, v []byte) (bool, error) { return true, fn(k, v) })
	}
	type kv struct{ k, v []byte }
	var all []kv
	if err := t.each(c.tx, nil, func(k, v []byte) (bool, error) { all = append(all, kv{k, v}); return true, nil }); err != nil {
		return err
	}
	slices.SortFunc(all, func(a, b kv) int { return bytes.Compare(a.k, b.k) })
	for _, r := range all {
		if err := fn(r.k, r.v); err != nil {
			return err
		}
	}
	return nil
}

// ScanFrom reads at most limit records from the first key ≥ from, in
// key order: a B-tree's (DB_SET_RANGE), the only one that claims it.
func (c *conn) ScanFrom(_ context.Context, name string, from []byte, limit int, fn func(k, v []byte) error) error {
	t, err := c.open(name)
	if err != nil || limit <= 0 {
		return err
	}
	if t.hash {
		return backend.Unsupported("bdb:hash", "read records in key order from a key", "use --db bdb:btree")
	}
	n := 0
	return t.each(c.tx, append([]byte{}, from...), func(k, v []byte) (bool, error) {
		n++
		return n < limit, fn(k, v)
	})
}

func (c *conn) Close() error { return c.Rollback(context.Background()) }
