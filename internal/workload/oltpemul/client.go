package oltpemul

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// client runs business actions on one connection, each in one transaction.
type client struct {
	w   *emul
	c   backend.Conn
	rng *rand.Rand
}

// Do runs one business action as one transaction. An action that finds
// nothing to do (no document to pick, no stock to reserve, nothing owed, the
// aggregation held by another client) rolls back and returns
// workload.ErrNothing: it was answered "no", like a user told that nothing is
// in stock, and the run engine counts it as nothing to do, not as done.
func (c *client) Do(ctx context.Context, kind int, ops workload.Ops) error {
	if err := ops.Time(opBegin, func() error { return c.c.Begin(ctx) }); err != nil {
		return err
	}
	_, err := c.action(ctx, kind, ops)
	if err != nil {
		_ = c.c.Rollback(ctx)
		return err
	}
	if err := ops.Time(opCommit, func() error { return c.c.Commit(ctx) }); err != nil {
		_ = c.c.Rollback(ctx)
		return err
	}
	return nil
}

// action runs the body of one business action inside the open transaction
// and returns the documents it created.
func (c *client) action(ctx context.Context, kind int, ops workload.Ops) (int64, error) {
	switch kind {
	case kOrder:
		return c.customerOrder(ctx, ops)
	case kCancel:
		return 0, c.cancelOrder(ctx, ops)
	case kSupplierOrder:
		return c.supplierOrder(ctx, ops)
	case kInvoice:
		return c.supplierInvoice(ctx, ops)
	case kAccept:
		return 0, c.acceptInvoice(ctx, ops)
	case kReserve:
		return 0, c.reserve(ctx, ops)
	case kSale:
		return 0, c.sale(ctx, ops)
	case kPayIn:
		return 0, c.payment(ctx, ops, c.w.customer(c.rng))
	case kPayOut:
		return 0, c.payment(ctx, ops, c.w.supplier(c.rng))
	case kAggregate:
		return 0, c.aggregate(ctx, ops)
	}
	return 0, errors.New("oltp-emul: unknown action")
}

// Close releases the connection.
func (c *client) Close(context.Context) error { return c.c.Close() }

// line is one document line.
type line struct {
	ware, qty, price int64
}

// newDoc inserts a document with its lines and returns its id and total.
func (c *client) newDoc(ctx context.Context, ops workload.Ops, kind, state string, contractor int64, lines []line) (int64, int64, error) {
	id := c.w.id(seqDoc)
	var total int64
	for _, l := range lines {
		total += l.qty * l.price
	}
	err := ops.Time(opWrite, func() error {
		if _, err := c.c.Exec(ctx, c.w.st.insDoc, id, kind, state, contractor, total, time.Now().Unix()); err != nil {
			return err
		}
		for _, l := range lines {
			if _, err := c.c.Exec(ctx, c.w.st.insLine, c.w.id(seqLine), id, l.ware, l.qty, l.price, l.qty*l.price); err != nil {
				return err
			}
		}
		return nil
	})
	return id, total, err
}

// delta is a change of a ware's balances: CLO, ORD, SUP, AVL, RES, INC, OUT.
type delta [7]int64

// logQty appends to the quantity turnover log.
func (c *client) logQty(ctx context.Context, ops workload.Ops, ware, doc int64, d delta) error {
	return ops.Time(opLog, func() error {
		_, err := c.c.Exec(ctx, c.w.st.insQty, c.w.id(seqQtyLog), ware, doc, d[0], d[1], d[2], d[3], d[4], d[5], d[6])
		return err
	})
}

// logMoney appends to the money turnover log.
func (c *client) logMoney(ctx context.Context, ops workload.Ops, contractor, doc, amount int64) error {
	return ops.Time(opLog, func() error {
		_, err := c.c.Exec(ctx, c.w.st.insMoneyLog, c.w.id(seqMoneyLog), contractor, doc, amount)
		return err
	})
}

// lines reads a document's lines.
func (c *client) lines(ctx context.Context, doc int64) ([]line, error) {
	var out []line
	err := c.c.Query(ctx, c.w.st.docLines, []any{doc}, func(scan func(dest ...any) error) error {
		var l line
		if err := scan(&l.ware, &l.qty, &l.price); err != nil {
			return err
		}
		out = append(out, l)
		return nil
	})
	return out, err
}

// pick takes the oldest document of kind in state that no one else holds;
// when there is none, it returns workload.ErrNothing (the pick was timed).
func (c *client) pick(ctx context.Context, ops workload.Ops, kind, state string) (id, contractor, total int64, err error) {
	ok := false
	err = ops.Time(opPick, func() error {
		e := c.c.QueryRow(ctx, c.w.st.pickDoc, []any{kind, state}, &id, &contractor, &total)
		if errors.Is(e, backend.ErrNoRows) {
			return nil
		}
		ok = e == nil
		return e
	})
	if err == nil && !ok {
		err = workload.Nothing("oltp-emul: no document %s in state %s to pick", kind, state)
	}
	return id, contractor, total, err
}

// pickMany takes up to n such documents; when there is none, it returns
// workload.ErrNothing.
func (c *client) pickMany(ctx context.Context, ops workload.Ops, kind, state string, n int) ([]int64, error) {
	var ids []int64
	err := ops.Time(opPick, func() error {
		return c.c.Query(ctx, c.w.st.pickDocs, []any{kind, state, n}, func(scan func(dest ...any) error) error {
			var id int64
			if err := scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
			return nil
		})
	})
	if err == nil && len(ids) == 0 {
		err = workload.Nothing("oltp-emul: no document %s in state %s to gather", kind, state)
	}
	return ids, err
}

// setState moves a document it holds from one state to another.
func (c *client) setState(ctx context.Context, ops workload.Ops, doc int64, from, to string) error {
	return ops.Time(opWrite, func() error {
		n, err := c.c.Exec(ctx, c.w.st.setState, to, doc, from)
		if err == nil && n != 1 {
			return c.w.st.taken(doc, from)
		}
		return err
	})
}

// price reads a ware's price; a ware missing from the catalogue cannot be
// ordered: nothing to do.
func (c *client) price(ctx context.Context, ware int64) (int64, error) {
	var p int64
	err := c.c.QueryRow(ctx, c.w.st.wareQty, []any{ware}, &p)
	if errors.Is(err, backend.ErrNoRows) {
		return 0, workload.Nothing("oltp-emul: ware %d is not in the catalogue", ware)
	}
	return p, err
}
