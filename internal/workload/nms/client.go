package nms

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// client runs calls for one client.
type client struct {
	w   *nms
	s   store
	rng *rand.Rand
	q   *queue
	g   workload.Group
	// operations done in the open transaction, acknowledged at commit
	pending struct{ inserts, deletes, vsat, cu int64 }
	made    []int64 // channels set up and cleared in the open transaction, for the ledger
	cleared []int64
	ch      channel
	up      update
	call    procCall
}

// Do runs one call: set up a channel, update VSATs and CUs, clear the oldest
// call of this client. Seed 000, note 3: 15 operations make one call.
func (c *client) Do(ctx context.Context, _ int, ops workload.Ops) error {
	if c.w.cfg.Procedure {
		return c.doProcedure(ctx, ops)
	}
	if c.g.UnitBegins() {
		if err := ops.Time(opBegin, func() error { return c.s.begin(ctx) }); err != nil {
			return c.fail(ctx, err)
		}
		c.g.Open = true
	}
	n := c.w.cfg.OpsPerCall
	for i := range n {
		var err error
		switch {
		case i == 0:
			err = c.op(ctx, ops, opInsert, c.insert)
		case i == n-1:
			err = c.op(ctx, ops, opDelete, c.delete)
		case c.rng.IntN(2) == 0:
			err = c.op(ctx, ops, opUpdateVSAT, c.updateVSAT)
		default:
			err = c.op(ctx, ops, opUpdateCU, c.updateCU)
		}
		if err != nil {
			return c.fail(ctx, err)
		}
	}
	if c.g.UnitEnds() {
		if err := c.commit(ctx, ops); err != nil {
			return c.fail(ctx, err)
		}
	}
	return nil
}

// op runs one operation, in its own transaction under --commit op.
func (c *client) op(ctx context.Context, ops workload.Ops, op int, fn func(context.Context) error) error {
	perOp := c.g.Commit.Mode == workload.PerOp
	if perOp {
		if err := ops.Time(opBegin, func() error { return c.s.begin(ctx) }); err != nil {
			return err
		}
		c.g.Open = true
	}
	if err := ops.Time(op, func() error { return fn(ctx) }); err != nil {
		return err
	}
	if perOp {
		return c.commit(ctx, ops)
	}
	return nil
}

func (c *client) commit(ctx context.Context, ops workload.Ops) error {
	c.sending()
	if err := ops.Time(opCommit, func() error { return c.s.commit(ctx) }); err != nil {
		c.ambiguous(err)
		return err
	}
	c.acknowledge()
	return nil
}

// ambiguous counts the open transaction's operations as unknown when its
// commit failed with its connection.
func (c *client) ambiguous(err error) {
	if workload.Ambiguous(err) {
		c.q.forget()
		u, p := &c.w.unknown, c.pending
		u.inserts.Add(p.inserts)
		u.deletes.Add(p.deletes)
		u.vsat.Add(p.vsat)
		u.cu.Add(p.cu)
	}
}

// sending tells the ledger what the commit about to be sent does.
func (c *client) sending() {
	if l := c.w.ledger; l != nil {
		l.Mark(workload.Committing, c.made)
		l.Mark(workload.Removing, c.cleared)
	}
}

// acknowledge counts the committed transaction's operations as acknowledged.
func (c *client) acknowledge() {
	c.g.Committed()
	a := &c.w.acked
	a.inserts.Add(c.pending.inserts)
	a.deletes.Add(c.pending.deletes)
	a.vsat.Add(c.pending.vsat)
	a.cu.Add(c.pending.cu)
	c.pending = struct{ inserts, deletes, vsat, cu int64 }{}
	c.q.commit()
	if l := c.w.ledger; l != nil {
		l.Mark(workload.Acked, c.made)
		l.Mark(workload.Removed, c.cleared)
		c.made, c.cleared = c.made[:0], c.cleared[:0]
	}
}

// fail rolls back the open transaction and reports the units lost with it.
func (c *client) fail(ctx context.Context, err error) error {
	c.pending = struct{ inserts, deletes, vsat, cu int64 }{}
	c.made, c.cleared = c.made[:0], c.cleared[:0]
	c.q.rollback()
	return c.g.Abort(err, func() { _ = c.s.rollback(ctx) })
}

// newChannel takes the next channel id and draws the new channel's fields
// from the client's generator: an insert's, or a procedure call's first.
func (c *client) newChannel() channel {
	r, lines := c.rng, int64(c.w.cfg.Lines)
	return channel{
		ID: c.w.nextID.Add(1) - 1, VSAT: 1 + r.Int64N(lines), CU: 1 + r.Int64N(lines),
		FreqHz: 14_000_000_000 + r.Int64N(500_000_000), BandwidthHz: 64_000 * (1 + r.Int64N(32)),
		PowerDBm: r.Int64N(30), State: 1, Created: time.Now().UnixMicro(),
	}
}

func (c *client) insert(ctx context.Context) error {
	c.ch = c.newChannel()
	id := c.ch.ID
	if err := c.s.insertChannel(ctx, &c.ch); err != nil {
		return err
	}
	c.q.push(id)
	c.pending.inserts++
	if c.w.ledger != nil {
		c.made = append(c.made, id)
	}
	return nil
}

func (c *client) delete(ctx context.Context) error {
	id, ok := c.q.pop()
	if !ok {
		return workload.Inconsistent("nms: client has no active channel to clear")
	}
	if err := c.s.deleteChannel(ctx, id); err != nil {
		return err
	}
	c.pending.deletes++
	if c.w.ledger != nil {
		c.cleared = append(c.cleared, id)
	}
	return nil
}

func (c *client) nextUpdate() *update {
	r := c.rng
	c.up = update{
		Status: r.Int64N(8), Oper: r.Int64N(4), PowerDBm: r.Int64N(40) - 10,
		LastChange: time.Now().UnixMicro(), Note: c.w.notes[r.IntN(len(c.w.notes))],
	}
	return &c.up
}

func (c *client) updateVSAT(ctx context.Context) error {
	if err := c.s.updateVSAT(ctx, 1+c.rng.Int64N(int64(c.w.cfg.Lines)), c.nextUpdate()); err != nil {
		return err
	}
	c.pending.vsat++
	return nil
}

func (c *client) updateCU(ctx context.Context) error {
	if err := c.s.updateCU(ctx, 1+c.rng.Int64N(int64(c.w.cfg.Lines)), c.nextUpdate()); err != nil {
		return err
	}
	c.pending.cu++
	return nil
}

// Pending says how many finished units ride on the open transaction
// (--commit every:N): the run engine holds them until it commits.
func (c *client) Pending() int64 { return c.g.Held() }

var _ workload.Pender = (*client)(nil)

// Close commits a group left open by --commit every:N; if that fails, its
// units are lost.
func (c *client) Close(ctx context.Context) error {
	defer c.s.close()
	if !c.g.Open {
		return nil
	}
	c.sending()
	if err := c.s.commit(ctx); err != nil {
		c.ambiguous(err)
		return c.fail(ctx, err)
	}
	c.acknowledge()
	return nil
}

// doProcedure runs the call as one stored procedure: the same operations,
// drawn the same way, in one round trip.
func (c *client) doProcedure(ctx context.Context, ops workload.Ops) error {
	p := c.s.(procedureStore)
	if c.g.Commit.Mode == workload.PerUnits && !c.g.Open {
		if err := ops.Time(opBegin, func() error { return c.s.begin(ctx) }); err != nil {
			return c.fail(ctx, err)
		}
		c.g.Open = true
	}
	call := &c.call
	call.ch = c.newChannel()
	id := call.ch.ID
	r, lines := c.rng, int64(c.w.cfg.Lines)
	c.q.push(id)
	call.updates = call.updates[:0]
	var vsat, cu int64
	for range c.w.cfg.OpsPerCall - 2 {
		isVSAT := r.IntN(2) == 0
		target := 1 + r.Int64N(lines)
		call.updates = append(call.updates, procUpdate{id: target, vsat: isVSAT, u: *c.nextUpdate()})
		if isVSAT {
			vsat++
		} else {
			cu++
		}
	}
	call.del, _ = c.q.pop()
	if c.w.ledger != nil {
		c.made, c.cleared = append(c.made, id), append(c.cleared, call.del)
	}
	if c.g.Commit.Mode != workload.PerUnits {
		c.sending() // autocommit: the call commits itself
	}
	if err := ops.Time(opProcedure, func() error { return p.call(ctx, call) }); err != nil {
		if c.g.Commit.Mode != workload.PerUnits { // the call was its own commit
			c.pending.inserts++
			c.pending.deletes++
			c.pending.vsat += vsat
			c.pending.cu += cu
			c.ambiguous(err)
		}
		return c.fail(ctx, err)
	}
	c.pending.inserts++
	c.pending.deletes++
	c.pending.vsat += vsat
	c.pending.cu += cu
	if c.g.Commit.Mode != workload.PerUnits {
		c.acknowledge() // autocommit: the call was its own transaction
		return nil
	}
	if c.g.UnitEnds() {
		if err := c.commit(ctx, ops); err != nil {
			return c.fail(ctx, err)
		}
	}
	return nil
}
