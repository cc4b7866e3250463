package oltpemul

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// reserve: the oldest customer order already ordered from a supplier takes
// free units of each of its wares, oldest first, without waiting for other
// consumers (SKIP LOCKED where the engine locks rows). All or nothing: when a
// ware lacks stock, nothing is reserved. AVL −q, RES +q.
func (c *client) reserve(ctx context.Context, ops workload.Ops) error {
	doc, _, _, err := c.pick(ctx, ops, "CO", "O")
	if err != nil {
		return err
	}
	lines, err := c.lines(ctx, doc)
	if err != nil {
		return err
	}
	// Enough free units of every ware? Asked before anything is written, so
	// that "no" leaves nothing behind even inside a larger transaction (the
	// fill); a consumer that loses a race below rolls the action back.
	need := map[int64]int64{}
	for _, l := range lines {
		need[l.ware] += l.qty
	}
	for ware, q := range need {
		var free int64
		if err := ops.Time(opPick, func() error { return c.c.QueryRow(ctx, c.w.st.freeFifo, []any{ware}, &free) }); err != nil {
			return err
		}
		if free < q {
			return workload.Nothing("oltp-emul: ware %d has %d free units, order %d needs %d", ware, free, doc, q)
		}
	}
	for _, l := range lines {
		var got int64
		err := ops.Time(opWrite, func() error {
			var err error
			got, err = c.c.Exec(ctx, c.w.st.takeFifo, doc, l.ware, l.qty)
			return err
		})
		if err != nil {
			return err
		}
		if got < l.qty {
			// Another consumer took them since the count: rolled back, the
			// units taken so far go back.
			return workload.Nothing("oltp-emul: ware %d: %d of %d units left for order %d", l.ware, got, l.qty, doc)
		}
	}
	if err := ops.Time(opWrite, func() error {
		_, err := c.c.Exec(ctx, c.w.st.useFifo, doc)
		return err
	}); err != nil {
		return err
	}
	if err := c.setState(ctx, ops, doc, "O", "R"); err != nil {
		return err
	}
	for _, l := range lines {
		if err := c.logQty(ctx, ops, l.ware, doc, delta{0, 0, 0, -l.qty, l.qty, 0, 0}); err != nil {
			return err
		}
	}
	return nil
}

// sale: the oldest reserved customer order is shipped; its units leave the
// FIFO. RES −q, OUT +q; the customer owes the order's total.
func (c *client) sale(ctx context.Context, ops workload.Ops) error {
	doc, customer, total, err := c.pick(ctx, ops, "CO", "R")
	if err != nil {
		return err
	}
	if err := c.setState(ctx, ops, doc, "R", "S"); err != nil {
		return err
	}
	lines, err := c.lines(ctx, doc)
	if err != nil {
		return err
	}
	var want int64
	for _, l := range lines {
		want += l.qty
	}
	err = ops.Time(opWrite, func() error {
		if _, err := c.c.Exec(ctx, c.w.st.delUse, doc); err != nil {
			return err
		}
		n, err := c.c.Exec(ctx, c.w.st.delSrc, doc)
		if err == nil && n != want {
			return workload.Inconsistent("oltp-emul: order %d had %d units reserved, its lines say %d", doc, n, want)
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, l := range lines {
		if err := c.logQty(ctx, ops, l.ware, doc, delta{0, 0, 0, 0, -l.qty, 0, l.qty}); err != nil {
			return err
		}
	}
	return c.logMoney(ctx, ops, customer, doc, total)
}
