package etcd

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

// Key layout. A table is a key of its own, prefix + name (its marker),
// and each record the key prefix + name + NUL + key: etcd keeps keys in
// order, so a table's records are one range. A name holds no NUL.
const prefix = "dbgauge/"

func marker(table string) string { return prefix + table }

func recordPrefix(table string) string { return prefix + table + "\x00" }

func recordKey(table string, key []byte) string { return recordPrefix(table) + string(key) }

// page is how many records one range read of a scan asks for.
const page = 1000

var errBadName = dberr.New(dberr.Fatal, dberr.Other, "", errors.New("etcd: a table's name holds no NUL byte"))

// KVConn returns a handle for one client (the client's connections are
// shared: a transaction lives in the handle until its Txn).
func (d *db) KVConn(context.Context) (backend.KVConn, error) {
	return &conn{kv: d.client.KV, serializable: d.serializable}, nil
}

// conn is one client's handle. A transaction reads at one revision, the
// one its first read saw (a snapshot), keeps its writes until Commit, and
// commits them in one Txn whose If holds every key it read at the
// revision it saw (absent: its creation revision 0) and every table it
// wrote still there: when another client changed one meanwhile the Txn
// fails, nothing is written, and the unit is a conflict to retry. With
// serializable reads the first read's revision is the answering member's,
// possibly behind the leader's: a write transaction then fails its If
// where a key read has changed since, never commits on a stale read.
type conn struct {
	kv           clientv3.KV
	serializable bool // reads answered by the member asked (--etcd-reads)
	tx           *tx
}

type tx struct {
	write  bool
	rev    int64            // the revision reads see; 0 until the first read
	reads  map[string]int64 // a write transaction's reads: each key's ModRevision seen (0: absent)
	tables map[string]bool  // tables found, or written
	writes backend.WriteSet // the buffered writes, by record key
}

func (c *conn) CreateTable(ctx context.Context, name string) error {
	if strings.Contains(name, "\x00") {
		return errBadName
	}
	_, err := c.kv.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(marker(name)), "=", 0)).
		Then(clientv3.OpPut(marker(name), "table")).Commit()
	return classify(err)
}

// DropTable deletes the table's marker and its records in one Txn.
func (c *conn) DropTable(ctx context.Context, name string) error {
	_, err := c.kv.Txn(ctx).Then(clientv3.OpDelete(marker(name)), clientv3.OpDelete(recordPrefix(name), clientv3.WithPrefix())).Commit()
	return classify(err)
}

func (c *conn) Begin(_ context.Context, write bool) error {
	if c.tx != nil {
		return errTxOpen
	}
	c.tx = &tx{write: write, tables: map[string]bool{}}
	return nil
}

// Commit sends a write transaction's writes in one Txn (nothing for one
// that wrote nothing: its reads were one snapshot already).
func (c *conn) Commit(ctx context.Context) error {
	t := c.end()
	if t == nil {
		return errNoTx
	}
	if t.writes.Len() == 0 {
		return nil
	}
	var cmps []clientv3.Cmp
	for k, rev := range t.reads {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", rev))
	}
	// The tables in one order: the Else's answers come in it.
	tables := slices.Sorted(maps.Keys(t.tables))
	var gets []clientv3.Op
	for _, table := range tables {
		cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(marker(table)), ">", 0))
		gets = append(gets, clientv3.OpGet(marker(table), clientv3.WithCountOnly()))
	}
	ops := make([]clientv3.Op, 0, t.writes.Len())
	for _, k := range t.writes.Keys() {
		if w, _ := t.writes.Get(k); w.Delete {
			ops = append(ops, clientv3.OpDelete(k))
		} else {
			ops = append(ops, clientv3.OpPut(k, string(w.Value)))
		}
	}
	resp, err := c.kv.Txn(ctx).If(cmps...).Then(ops...).Else(gets...).Commit()
	if err != nil {
		return classify(err)
	}
	if resp.Succeeded {
		return nil
	}
	for i, table := range tables {
		if resp.Responses[i].GetResponseRange().Count == 0 {
			return classify(backend.TableError(table))
		}
	}
	return errConflict
}

func (c *conn) Rollback(context.Context) error {
	c.end()
	return nil
}

func (c *conn) end() *tx {
	t := c.tx
	c.tx = nil
	return t
}

// get reads keys at the transaction's revision, fixing it at the first.
func (c *conn) get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if c.tx.rev > 0 {
		opts = append(opts, clientv3.WithRev(c.tx.rev))
	}
	if c.serializable {
		opts = append(opts, clientv3.WithSerializable())
	}
	resp, err := c.kv.Get(ctx, key, opts...)
	if err != nil {
		return nil, classify(err)
	}
	if c.tx.rev == 0 {
		c.tx.rev = resp.Header.Revision
	}
	return resp, nil
}

// table checks, once a transaction, that table exists at its revision.
func (c *conn) table(ctx context.Context, table string) error {
	if c.tx.tables[table] {
		return nil
	}
	resp, err := c.get(ctx, marker(table), clientv3.WithCountOnly())
	if err != nil {
		return err
	}
	if resp.Count == 0 {
		return classify(backend.TableError(table))
	}
	c.tx.tables[table] = true
	return nil
}

// Get reads key: the transaction's own write if it made one, else the
// value at the transaction's revision, remembered for the commit's If.
func (c *conn) Get(ctx context.Context, table string, key []byte) ([]byte, bool, error) {
	t := c.tx
	if t == nil {
		return nil, false, errNoTx
	}
	rk := recordKey(table, key)
	if w, ok := t.writes.Get(rk); ok {
		return w.Value, !w.Delete, nil
	}
	if err := c.table(ctx, table); err != nil {
		return nil, false, err
	}
	resp, err := c.get(ctx, rk)
	if err != nil {
		return nil, false, err
	}
	var v []byte
	var rev int64
	if len(resp.Kvs) > 0 {
		v, rev = resp.Kvs[0].Value, resp.Kvs[0].ModRevision
	}
	if t.write {
		if t.reads == nil {
			t.reads = map[string]int64{}
		}
		t.reads[rk] = rev
	}
	return v, v != nil || rev > 0, nil
}

// writable checks that a write may be kept: a write transaction is open
// and the table exists.
func (c *conn) writable(ctx context.Context, table string) error {
	switch {
	case c.tx == nil:
		return errNoTx
	case !c.tx.write:
		return errReadOnly
	}
	return c.table(ctx, table)
}

func (c *conn) Put(ctx context.Context, table string, key, value []byte) error {
	if err := c.writable(ctx, table); err != nil {
		return err
	}
	c.tx.writes.Put(recordKey(table, key), value)
	return nil
}

func (c *conn) Delete(ctx context.Context, table string, key []byte) error {
	if err := c.writable(ctx, table); err != nil {
		return err
	}
	c.tx.writes.Delete(recordKey(table, key))
	return nil
}

// Scan reads every record of table in key order, at the transaction's
// revision, with its own writes over them.
func (c *conn) Scan(ctx context.Context, table string, fn func(k, v []byte) error) error {
	return c.ScanFrom(ctx, table, nil, -1, fn)
}

// ScanFrom reads at most limit records (all: a negative limit) of table
// from the first key ≥ from, in key order, a page at a time, at the
// transaction's revision, with its own writes over them. The records read
// are not held in the commit's If.
func (c *conn) ScanFrom(ctx context.Context, table string, from []byte, limit int, fn func(k, v []byte) error) error {
	if c.tx == nil {
		return errNoTx
	}
	if err := c.table(ctx, table); err != nil {
		return err
	}
	p := recordPrefix(table)
	end := clientv3.GetPrefixRangeEnd(p)
	mine := c.tx.mine(p, p+string(from))
	n := 0
	emit := func(k string, v []byte) (bool, error) {
		if limit >= 0 && n >= limit {
			return false, nil
		}
		n++
		return true, fn([]byte(k[len(p):]), v)
	}
	for next := p + string(from); ; {
		resp, err := c.get(ctx, next, clientv3.WithRange(end), clientv3.WithLimit(page))
		if err != nil {
			return err
		}
		for _, kv := range resp.Kvs {
			k := string(kv.Key)
			for len(mine) > 0 && mine[0] <= k {
				if more, err := c.emitMine(mine[0], emit); !more || err != nil {
					return err
				}
				if mine[0] == k {
					kv = nil
				}
				mine = mine[1:]
			}
			if kv == nil {
				continue
			}
			if more, err := emit(k, kv.Value); !more || err != nil {
				return err
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		next = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	for _, k := range mine {
		if more, err := c.emitMine(k, emit); !more || err != nil {
			return err
		}
	}
	return nil
}

// mine lists the transaction's own writes under prefix p from key from,
// sorted.
func (t *tx) mine(p, from string) []string {
	var ks []string
	for _, k := range t.writes.Keys() {
		if strings.HasPrefix(k, p) && k >= from {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// emitMine emits the transaction's own write of k (nothing for a delete).
func (c *conn) emitMine(k string, emit func(string, []byte) (bool, error)) (bool, error) {
	w, _ := c.tx.writes.Get(k)
	if w.Delete {
		return true, nil
	}
	return emit(k, w.Value)
}

func (c *conn) Close() error { return nil }
