package kv

import (
	"bytes"
	"context"
	"math/rand/v2"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// client runs units for one client. A unit is one operation of the mix (a
// scan is one unit, however many records it reads, as YCSB counts
// operations). Under --commit unit a writing unit is one transaction; under
// every:N writing units open a group that later units join; a reading unit
// outside a group, and every operation under --commit op, runs in its own
// transaction (a read-only one for reads).
type client struct {
	w      *kv
	c      backend.KVConn
	rs     backend.RangeScanner
	rng    *rand.Rand
	choose chooser
	g      workload.Group
	inTx   bool  // a transaction is open (the group's, or one of its own)
	write  bool  // the open transaction writes
	bound  int64 // records below it are readable in the open transaction
	ins    []int64
	key    []byte // of the last read
	looked int64
}

// Do runs one unit of the mix.
func (c *client) Do(ctx context.Context, kind int, ops workload.Ops) error {
	o := c.w.kinds[kind]
	grouped := c.g.Open || (o.writes() && c.g.Commit.Mode != workload.PerOp)
	if grouped && !c.g.Open {
		if err := c.begin(ctx, ops, true); err != nil {
			return c.fail(ctx, err)
		}
		c.g.Open = true
	}
	var err error
	switch o {
	case opRead:
		err = c.read(ctx, ops)
	case opUpdate:
		err = c.update(ctx, ops)
	case opInsert:
		err = c.insert(ctx, ops)
	case opScan:
		err = c.scan(ctx, ops)
	case opRMW:
		err = c.rmw(ctx, ops)
	}
	if err != nil {
		return c.fail(ctx, err)
	}
	if grouped && c.g.UnitEnds() {
		if err := c.commit(ctx, ops); err != nil {
			return c.fail(ctx, err)
		}
	}
	return nil
}

// begin opens a transaction. The readable bound is taken before it: a record
// acknowledged before the transaction began is visible in it on every engine
// (a snapshot taken at Begin, or at the first read, included).
func (c *client) begin(ctx context.Context, ops workload.Ops, write bool) error {
	c.bound = c.w.ks.readable()
	var err error
	if write {
		err = ops.Time(tBegin, func() error { return c.c.Begin(ctx, write) })
	} else {
		err = c.c.Begin(ctx, write)
	}
	if err != nil {
		return err
	}
	c.inTx, c.write = true, write
	return nil
}

// commit ends the open transaction; a writing one acknowledges its inserts.
func (c *client) commit(ctx context.Context, ops workload.Ops) error {
	if !c.write {
		if err := c.c.Commit(ctx); err != nil {
			return err
		}
		c.inTx = false
		return nil
	}
	l := c.w.ledger
	if l != nil && len(c.ins) > 0 {
		l.Mark(workload.Committing, c.ins)
	}
	err := ops.Time(tCommit, func() error { return c.c.Commit(ctx) })
	if err != nil {
		if workload.Ambiguous(err) {
			// The engine may have made these inserts: count them as unknown,
			// and never read them.
			c.w.unknown.Add(int64(len(c.ins)))
			c.settle(false)
		}
		return err
	}
	c.inTx = false
	c.w.acked.Add(int64(len(c.ins)))
	if l != nil && len(c.ins) > 0 {
		l.Mark(workload.Acked, c.ins)
	}
	c.settle(true)
	c.g.Committed()
	return nil
}

func (c *client) settle(exists bool) {
	for _, n := range c.ins {
		c.w.ks.settle(n, exists)
	}
	c.ins = c.ins[:0]
}

// fail rolls back what is open; its inserts did not happen.
func (c *client) fail(ctx context.Context, err error) error {
	if c.inTx {
		_ = c.c.Rollback(ctx)
		c.inTx = false
	}
	c.settle(false)
	return c.g.Abort(err, func() {})
}

// own runs fn in a transaction of its own unless one is open.
func (c *client) own(ctx context.Context, ops workload.Ops, write bool, fn func() error) error {
	if c.inTx {
		return fn()
	}
	if err := c.begin(ctx, ops, write); err != nil {
		return err
	}
	if err := fn(); err != nil {
		return err
	}
	return c.commit(ctx, ops)
}

// pick chooses a readable record for the next operation, skipping holes. It
// reads the bound of the open transaction, or the current one for an
// operation about to begin its own.
func (c *client) pick() int64 {
	n := c.bound
	if !c.inTx {
		n = c.w.ks.readable()
		c.bound = n
	}
	for range 16 {
		if k := c.choose.next(c.rng, n); !c.w.ks.hole(k) {
			return k
		}
	}
	return c.rng.Int64N(c.w.cfg.Records) // loaded records are never holes
}

// get reads record n and checks that it is there and is n's.
func (c *client) get(ctx context.Context, ops workload.Ops, n int64) error {
	c.key = key(c.key, n)
	return ops.Time(tGet, func() error {
		v, ok, err := c.c.Get(ctx, table, c.key)
		if err != nil {
			return err
		}
		return c.found(n, c.key, v, ok)
	})
}

// found judges what a read of record n returned.
func (c *client) found(n int64, k, v []byte, ok bool) error {
	if !ok {
		c.w.missing.Add(1)
		return workload.Inconsistent("kv: record %d (key %x) is missing, though it was loaded or its insert acknowledged", n, k)
	}
	if m, mine := c.w.numberOf(k, v); !mine || (n >= 0 && m != n) {
		c.w.wrong.Add(1)
		return workload.Inconsistent("kv: reading record %d (key %x) returned a value of %d bytes holding record %d", n, k, len(v), m)
	}
	c.looked++
	return nil
}

// put writes record n with a fresh value. Key and value are new buffers:
// an engine may hold them until the commit (bbolt, gdbm).
func (c *client) put(ctx context.Context, ops workload.Ops, n int64) error {
	b := make([]byte, 8+c.w.cfg.ValueBytes)
	k, v := key(b[:0:8], n), b[8:]
	fillValue(v, n, c.rng)
	return ops.Time(tPut, func() error { return c.c.Put(ctx, table, k, v) })
}

func (c *client) read(ctx context.Context, ops workload.Ops) error {
	n := c.pick()
	return c.own(ctx, ops, false, func() error { return c.get(ctx, ops, n) })
}

// update overwrites a record's value without reading it (YCSB update; YCSB
// writes one of ten fields, kv's record is one value).
func (c *client) update(ctx context.Context, ops workload.Ops) error {
	n := c.pick()
	return c.own(ctx, ops, true, func() error { return c.put(ctx, ops, n) })
}

// insert adds the record of the next number (YCSB's insert key sequence).
func (c *client) insert(ctx context.Context, ops workload.Ops) error {
	n := c.w.ks.take()
	c.ins = append(c.ins, n) // settled at the commit, or as a hole if it fails
	return c.own(ctx, ops, true, func() error { return c.put(ctx, ops, n) })
}

// rmw reads a record, then writes it back (YCSB readmodifywrite); under
// --commit op the two are separate transactions, as in YCSB.
func (c *client) rmw(ctx context.Context, ops workload.Ops) error {
	n := c.pick()
	if err := c.own(ctx, ops, false, func() error { return c.get(ctx, ops, n) }); err != nil {
		return err
	}
	return c.own(ctx, ops, true, func() error { return c.put(ctx, ops, n) })
}

// scan reads 1..--scan-length records in key order from a chosen one
// (YCSB scan, scanlengthdistribution=uniform). The first must be the chosen
// record itself, and every one a record's own value.
func (c *client) scan(ctx context.Context, ops workload.Ops) error {
	n := c.pick()
	limit := 1 + c.rng.IntN(c.w.cfg.ScanLength)
	return c.own(ctx, ops, false, func() error {
		c.key = key(c.key, n)
		return ops.Time(tScan, func() error {
			i := 0
			err := c.rs.ScanFrom(ctx, table, c.key, limit, func(k, v []byte) error {
				want := int64(-1)
				if i == 0 {
					want = n
					if !bytes.Equal(k, c.key) {
						return c.found(n, c.key, nil, false)
					}
				}
				i++
				return c.found(want, k, v, true)
			})
			if err == nil && i == 0 {
				err = c.found(n, c.key, nil, false)
			}
			return err
		})
	})
}

// Pending says how many finished units ride on the open transaction
// (--commit every:N): the run engine holds them until it commits.
func (c *client) Pending() int64 { return c.g.Held() }

var _ workload.Pender = (*client)(nil)

// Close commits a group left open by --commit every:N; if that fails, its
// units are lost.
func (c *client) Close(ctx context.Context) error {
	defer c.c.Close()
	c.w.looked.Add(c.looked)
	c.looked = 0
	if !c.g.Open {
		if c.inTx {
			_ = c.c.Rollback(ctx)
		}
		c.settle(false)
		return nil
	}
	if err := c.commit(ctx, nopOps{}); err != nil {
		return c.fail(ctx, err)
	}
	return nil
}

// nopOps runs without timing: Close's commit is outside any unit.
type nopOps struct{}

func (nopOps) Time(_ int, fn func() error) error { return fn() }
