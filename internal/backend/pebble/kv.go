package pebble

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// conn is a client's handle. A write transaction is an indexed batch (its
// reads see its own writes, then the latest committed data); a read
// transaction is a snapshot. Pebble detects no conflicts (the last commit
// wins for a key), so write transactions run one at a time, as in bbolt:
// two clients incrementing one counter would otherwise lose updates (nms's
// checks caught it with two clients).
type conn struct {
	db    *db
	batch *pebbledb.Batch    // the open write transaction
	snap  *pebbledb.Snapshot // the open read transaction
	key   []byte             // scratch: the stored key of the last call
	val   []byte             // the value Get returned last
}

func validName(name string) bool { return name != "" && !strings.ContainsRune(name, 0) }

// CreateTable writes the table's catalog key, in its own commit.
func (c *conn) CreateTable(_ context.Context, name string) error {
	if !validName(name) {
		return classify(fmt.Errorf("%w: %q", errBadName, name))
	}
	d := c.db
	d.ddl.Lock()
	defer d.ddl.Unlock()
	if _, ok := (*d.tables.Load())[name]; ok {
		return nil
	}
	b := d.pebble.NewBatch()
	defer b.Close()
	if err := b.Set(metaKey(name), nil, nil); err != nil {
		return classify(err)
	}
	if err := d.commit(b); err != nil {
		return err
	}
	m := maps.Clone(*d.tables.Load())
	m[name] = spanOf(name)
	d.tables.Store(&m)
	return nil
}

// DropTable deletes the table's range (one range tombstone) and its catalog
// key, in one commit. Dropping a missing table is not an error.
func (c *conn) DropTable(_ context.Context, name string) error {
	d := c.db
	d.ddl.Lock()
	defer d.ddl.Unlock()
	sp, ok := (*d.tables.Load())[name]
	if !ok {
		return nil
	}
	b := d.pebble.NewBatch()
	defer b.Close()
	if err := b.DeleteRange(sp.lo, sp.hi, nil); err != nil {
		return classify(err)
	}
	if err := b.Delete(metaKey(name), nil); err != nil {
		return classify(err)
	}
	if err := d.commit(b); err != nil {
		return err
	}
	m := maps.Clone(*d.tables.Load())
	delete(m, name)
	d.tables.Store(&m)
	return nil
}

// Begin starts a transaction; neither kind waits for anything.
func (c *conn) Begin(_ context.Context, write bool) error {
	if c.batch != nil || c.snap != nil {
		return errTxOpen
	}
	if e := c.db.failed.Load(); e != nil {
		return *e
	}
	if write {
		c.db.writer.Lock()
		c.batch = c.db.pebble.NewIndexedBatch()
	} else {
		c.snap = c.db.pebble.NewSnapshot()
	}
	return nil
}

// Commit applies the write transaction's batch with the durability's write
// option, or releases the read transaction's snapshot.
func (c *conn) Commit(context.Context) error {
	switch {
	case c.batch != nil:
		b := c.batch
		c.batch = nil
		err := c.db.commit(b)
		_ = b.Close()
		c.db.writer.Unlock()
		return err
	case c.snap != nil:
		s := c.snap
		c.snap = nil
		return classify(s.Close())
	}
	return errNoTx
}

// Rollback discards the batch or releases the snapshot.
func (c *conn) Rollback(context.Context) error {
	var err error
	if c.batch != nil {
		err = c.batch.Close()
		c.batch = nil
		c.db.writer.Unlock()
	}
	if c.snap != nil {
		err = c.snap.Close()
		c.snap = nil
	}
	return classify(err)
}

// span returns the table's range, after checking that a transaction is open.
func (c *conn) span(table string) (span, error) {
	if c.batch == nil && c.snap == nil {
		return span{}, errNoTx
	}
	sp, ok := (*c.db.tables.Load())[table]
	if !ok {
		return span{}, classify(backend.TableError(table))
	}
	return sp, nil
}

// storedKey returns the key under which table's key is stored, in c.key.
func (c *conn) storedKey(table string, key []byte) ([]byte, error) {
	sp, err := c.span(table)
	if err != nil {
		return nil, err
	}
	c.key = append(append(c.key[:0], sp.lo...), key...)
	return c.key, nil
}

func (c *conn) Get(_ context.Context, table string, key []byte) ([]byte, bool, error) {
	k, err := c.storedKey(table, key)
	if err != nil {
		return nil, false, err
	}
	var v []byte
	var closer io.Closer
	if c.batch != nil {
		v, closer, err = c.batch.Get(k)
	} else {
		v, closer, err = c.snap.Get(k)
	}
	if errors.Is(err, pebbledb.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, classify(err)
	}
	// pebble's value lives until closer.Close: keep a copy until the next call.
	if c.val == nil {
		c.val = make([]byte, 0, 64)
	}
	c.val = append(c.val[:0], v...)
	if err := closer.Close(); err != nil {
		return nil, false, classify(err)
	}
	return c.val, true, nil
}

func (c *conn) Put(_ context.Context, table string, key, value []byte) error {
	k, err := c.storedKey(table, key)
	if err != nil {
		return err
	}
	if c.batch == nil {
		return classify(pebbledb.ErrReadOnly)
	}
	return classify(c.batch.Set(k, value, nil)) // the batch copies k and value
}

func (c *conn) Delete(_ context.Context, table string, key []byte) error {
	k, err := c.storedKey(table, key)
	if err != nil {
		return err
	}
	if c.batch == nil {
		return classify(pebbledb.ErrReadOnly)
	}
	return classify(c.batch.Delete(k, nil))
}

// Scan iterates the table's range in key order, through the batch (a write
// transaction sees its own writes) or the snapshot. Key and value are valid
// during fn only.
func (c *conn) Scan(_ context.Context, table string, fn func(k, v []byte) error) error {
	return c.walk(table, nil, -1, fn)
}

// ScanFrom iterates like Scan from the first key ≥ from (SeekGE), for at
// most limit records.
func (c *conn) ScanFrom(_ context.Context, table string, from []byte, limit int, fn func(k, v []byte) error) error {
	return c.walk(table, from, limit, fn)
}

// walk calls fn for the table's records from the first key ≥ from (nil: the
// first), at most limit of them (< 0: all).
func (c *conn) walk(table string, from []byte, limit int, fn func(k, v []byte) error) error {
	sp, err := c.span(table)
	if err != nil {
		return err
	}
	o := &pebbledb.IterOptions{LowerBound: sp.lo, UpperBound: sp.hi}
	var it *pebbledb.Iterator
	if c.batch != nil {
		it, err = c.batch.NewIter(o)
	} else {
		it, err = c.snap.NewIter(o)
	}
	if err != nil {
		return classify(err)
	}
	var ok bool
	if from == nil {
		ok = it.First()
	} else {
		c.key = append(append(c.key[:0], sp.lo...), from...)
		ok = it.SeekGE(c.key)
	}
	for n := 0; ok && n != limit; ok, n = it.Next(), n+1 {
		v, err := it.ValueAndErr()
		if err != nil {
			_ = it.Close()
			return classify(err)
		}
		if err := fn(it.Key()[len(sp.lo):], v); err != nil {
			_ = it.Close()
			return err
		}
	}
	return classify(it.Close())
}

func (c *conn) Close() error { return c.Rollback(context.Background()) }

// Integrity checks what pebble lets one check: pebble's CheckLevels (the
// LSM's level invariant, key order and checksums inside every table, range
// tombstones ordered and fragmented), then one full scan of the key space
// that reads every value and checks that keys come in strictly increasing
// order and that every record belongs to a table of the catalog.
func (d *db) Integrity(ctx context.Context) (bool, string, error) {
	var problems []string
	n := 0
	problem := func(format string, args ...any) {
		if n++; n <= 5 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}

	var cl pebbledb.CheckLevelsStats
	if err := d.pebble.CheckLevels(&cl); err != nil {
		problem("CheckLevels: %v", err)
	}

	tables := map[string]int64{}
	var records, orphans, keys int64
	var prev []byte
	it, err := d.pebble.NewIter(nil)
	if err != nil {
		return false, "", classify(err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		if keys++; keys%4096 == 0 {
			if err := ctx.Err(); err != nil {
				_ = it.Close()
				return false, "", err
			}
		}
		k := it.Key()
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			problem("key %q comes after %q", k, prev)
		}
		prev = append(prev[:0], k...)
		if _, err := it.ValueAndErr(); err != nil {
			problem("value of key %q: %v", k, err)
		}
		switch {
		case len(k) > 0 && k[0] == metaPrefix:
			tables[string(k[1:])] = 0
		case len(k) > 0 && k[0] == dataPrefix:
			name, _, ok := bytes.Cut(k[1:], []byte{0})
			if _, known := tables[string(name)]; !ok || !known {
				orphans++
				continue
			}
			tables[string(name)]++
			records++
		default:
			problem("key %q is outside the layout (neither catalog nor record)", k)
		}
	}
	if err := it.Close(); err != nil {
		problem("the scan stopped after %d keys: %v", keys, err)
	}
	if orphans > 0 {
		problem("%d records belong to no table of the catalog", orphans)
	}
	if n > 5 {
		problems = append(problems, fmt.Sprintf("and %d more", n-5))
	}
	checked := fmt.Sprintf("pebble CheckLevels (level invariant, table key order and checksums: %d points, %d tombstones); "+
		"full scan: %d tables, %d records, keys strictly ordered, every value read", cl.NumPoints, cl.NumTombstones, len(tables), records)
	if len(problems) == 0 {
		return true, checked + ": ok", nil
	}
	return false, checked + ": " + strings.Join(problems, "; "), nil
}
