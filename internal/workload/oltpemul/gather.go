package oltpemul

import (
	"context"
	"time"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// gather makes a document of kind for a supplier out of up to n documents
// of kind from in state new, marking them to (with the new one as parent):
// one line per ware with the summed quantity, each logged with d(q).
func (c *client) gather(ctx context.Context, ops workload.Ops, from, kind, to string, n int, d func(q int64) delta) (int64, error) {
	ids, err := c.pickMany(ctx, ops, from, "N", n)
	if err != nil {
		return 0, err
	}
	doc := c.w.id(seqDoc)
	err = ops.Time(opWrite, func() error {
		if _, err := c.c.Exec(ctx, c.w.st.insDoc, doc, kind, "N", c.w.supplier(c.rng), 0, time.Now().Unix()); err != nil {
			return err
		}
		for _, id := range ids {
			n, err := c.c.Exec(ctx, c.w.st.setParent, to, doc, id, "N")
			if err != nil {
				return err
			}
			if n != 1 {
				return c.w.st.taken(id, "N")
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	var sums []line
	err = c.c.Query(ctx, c.w.st.sumChildren, []any{doc}, func(scan func(dest ...any) error) error {
		var l line
		if err := scan(&l.ware, &l.qty); err != nil {
			return err
		}
		sums = append(sums, l)
		return nil
	})
	if err != nil {
		return 0, err
	}
	var total int64
	for _, l := range sums {
		p, err := c.price(ctx, l.ware)
		if err != nil {
			return 0, err
		}
		total += l.qty * p
		err = ops.Time(opWrite, func() error {
			_, err := c.c.Exec(ctx, c.w.st.insLine, c.w.id(seqLine), doc, l.ware, l.qty, p, l.qty*p)
			return err
		})
		if err != nil {
			return 0, err
		}
		if err := c.logQty(ctx, ops, l.ware, doc, d(l.qty)); err != nil {
			return 0, err
		}
	}
	return 1, ops.Time(opWrite, func() error {
		_, err := c.c.Exec(ctx, c.w.st.docTotal, total, doc)
		return err
	})
}

// supplierOrder: new customer orders are gathered into an order to a
// supplier. CLO −q, ORD +q.
func (c *client) supplierOrder(ctx context.Context, ops workload.Ops) (int64, error) {
	return c.gather(ctx, ops, "CO", "SO", "O", 10, func(q int64) delta { return delta{-q, q, 0, 0, 0, 0, 0} })
}

// supplierInvoice: new supplier orders are gathered into a supplier's
// invoice. ORD −q, SUP +q.
func (c *client) supplierInvoice(ctx context.Context, ops workload.Ops) (int64, error) {
	return c.gather(ctx, ops, "SO", "SI", "I", 5, func(q int64) delta { return delta{0, -q, q, 0, 0, 0, 0} })
}
