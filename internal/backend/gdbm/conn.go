package gdbm

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

type txState uint8

const (
	noTx txState = iota
	readTx
	writeTx
)

// pending is a buffered write: a value to store, or a deletion.
type pending struct {
	value []byte
	del   bool
}

// conn is one client's handle. A write transaction holds the database's one
// writer slot from Begin to Commit or Rollback, and buffers its writes here;
// Commit applies them to the files under the database's mutex.
type conn struct {
	db    *db
	state txState
	pend  map[string]map[string]pending // table → key → write
	n     int                           // buffered writes
}

func (c *conn) CreateTable(_ context.Context, name string) error { return c.db.createTable(name) }

func (c *conn) DropTable(_ context.Context, name string) error { return c.db.dropTable(name) }

// Begin starts a transaction. A writer waits for the one writer slot: write
// transactions run one at a time, as in bbolt, so that a read-modify-write
// never loses an update.
func (c *conn) Begin(ctx context.Context, write bool) error {
	if c.state != noTx {
		return errTxOpen
	}
	if !write {
		c.state = readTx
		return nil
	}
	select {
	case c.db.writer <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.state = writeTx
	return nil
}

// end closes the transaction: the buffer is emptied and the writer slot
// given back.
func (c *conn) end() {
	if c.state == writeTx {
		for _, m := range c.pend {
			clear(m)
		}
		c.n = 0
		<-c.db.writer
	}
	c.state = noTx
}

// Commit applies the buffered writes to the files, all under the mutex, so
// that no reader in this process sees a commit half applied; then syncs
// the files it touched (sync mode) or marks them for the flusher (lazy).
func (c *conn) Commit(context.Context) error {
	switch c.state {
	case noTx:
		return errNoTx
	case readTx:
		c.end()
		return nil
	}
	defer c.end()
	d := c.db
	if c.n == 0 {
		d.commits.Add(1)
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	// Every table must still exist before the first write is applied.
	names := make([]string, 0, len(c.pend))
	for name, m := range c.pend {
		if len(m) > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	tables := make([]*table, len(names))
	for i, name := range names {
		t, err := d.lookup(name)
		if err != nil {
			return err
		}
		tables[i] = t
	}
	applied, puts, dels := 0, 0, 0
	for i, t := range tables {
		for k, p := range c.pend[names[i]] {
			var err error
			if p.del {
				err = t.f.del([]byte(k))
				dels++
			} else {
				err = t.f.put([]byte(k), p.value)
				puts++
			}
			if err != nil {
				if applied == 0 {
					return classify(err)
				}
				return partial(err, applied, c.n)
			}
			applied++
		}
	}
	d.puts.Add(int64(puts))
	d.deletes.Add(int64(dels))
	for _, t := range tables {
		if err := d.wrote(t); err != nil {
			return classify(err)
		}
	}
	d.commits.Add(1)
	d.writeXacts.Add(1)
	return nil
}

// Rollback discards the buffered writes: nothing reached a file.
func (c *conn) Rollback(context.Context) error {
	if c.state == writeTx {
		c.db.rollbacks.Add(1)
	}
	c.end()
	return nil
}

// buffered returns this transaction's write of key in table, if any.
func (c *conn) buffered(table string, key []byte) (pending, bool) {
	p, ok := c.pend[table][string(key)]
	return p, ok
}

func (c *conn) Get(_ context.Context, table string, key []byte) ([]byte, bool, error) {
	if c.state == noTx {
		return nil, false, errNoTx
	}
	if p, ok := c.buffered(table, key); ok {
		if !c.db.hasTable(table) {
			return nil, false, classify(backend.TableError(table))
		}
		if p.del {
			return nil, false, nil
		}
		return p.value, true, nil
	}
	d := c.db
	d.mu.Lock()
	defer d.mu.Unlock()
	t, err := d.lookup(table)
	if err != nil {
		return nil, false, err
	}
	v, ok, err := t.f.get(key)
	return v, ok, classify(err)
}

// buffer records a write for Commit.
func (c *conn) buffer(table string, key []byte, p pending) error {
	switch c.state {
	case noTx:
		return errNoTx
	case readTx:
		return errReadOnly
	}
	if !c.db.hasTable(table) {
		return classify(backend.TableError(table))
	}
	if c.pend == nil {
		c.pend = map[string]map[string]pending{}
	}
	m := c.pend[table]
	if m == nil {
		m = map[string]pending{}
		c.pend[table] = m
	}
	if _, ok := m[string(key)]; !ok {
		c.n++
	}
	m[string(key)] = p
	return nil
}

func (c *conn) Put(_ context.Context, table string, key, value []byte) error {
	return c.buffer(table, key, pending{value: value})
}

func (c *conn) Delete(_ context.Context, table string, key []byte) error {
	return c.buffer(table, key, pending{del: true})
}

type record struct{ k, v []byte }

// Scan reads the whole file under the mutex (gdbm walks in hash order),
// sorts it by key, merges this transaction's buffered writes and calls fn
// outside the mutex.
func (c *conn) Scan(_ context.Context, table string, fn func(k, v []byte) error) error {
	if c.state == noTx {
		return errNoTx
	}
	d := c.db
	var recs []record
	err := func() error {
		d.mu.Lock()
		defer d.mu.Unlock()
		t, err := d.lookup(table)
		if err != nil {
			return err
		}
		return classify(t.f.walk(func(k, v []byte, found bool) error {
			if !found {
				return dberr.New(dberr.Fatal, dberr.Corrupt, "", fmt.Errorf("gdbm: %s: gdbm_nextkey returned key %q, which gdbm_fetch cannot find", t.f.path, k))
			}
			recs = append(recs, record{k, v})
			return nil
		}))
	}()
	if err != nil {
		return err
	}
	slices.SortFunc(recs, func(a, b record) int { return bytes.Compare(a.k, b.k) })
	if m := c.pend[table]; len(m) > 0 {
		recs = merge(recs, m)
	}
	for _, r := range recs {
		if err := fn(r.k, r.v); err != nil {
			return err
		}
	}
	return nil
}

// merge returns recs (sorted by key) with the buffered writes applied, still
// sorted.
func merge(recs []record, m map[string]pending) []record {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]record, 0, len(recs)+len(keys))
	i := 0
	for _, k := range keys {
		for i < len(recs) && string(recs[i].k) < k {
			out = append(out, recs[i])
			i++
		}
		if i < len(recs) && string(recs[i].k) == k {
			i++ // replaced or deleted
		}
		if p := m[k]; !p.del {
			out = append(out, record{[]byte(k), p.value})
		}
	}
	return append(out, recs[i:]...)
}

func (c *conn) Close() error { return c.Rollback(context.Background()) }
