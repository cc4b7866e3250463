package oltpemul

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// acceptInvoice: the oldest new supplier invoice is checked and accepted; its
// wares come in. The producer of the FIFO: one source row per unit. SUP −q,
// AVL +q, INC +q; we owe the supplier the invoice's total.
func (c *client) acceptInvoice(ctx context.Context, ops workload.Ops) error {
	doc, supplier, total, err := c.pick(ctx, ops, "SI", "N")
	if err != nil {
		return err
	}
	if err := c.setState(ctx, ops, doc, "N", "A"); err != nil {
		return err
	}
	lines, err := c.lines(ctx, doc)
	if err != nil {
		return err
	}
	for _, l := range lines {
		err := ops.Time(opWrite, func() error {
			for i := int64(0); i < l.qty; i++ {
				if _, err := c.c.Exec(ctx, c.w.st.insFifo, c.w.id(seqFifo), l.ware, doc); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := c.logQty(ctx, ops, l.ware, doc, delta{0, 0, -l.qty, l.qty, 0, l.qty, 0}); err != nil {
			return err
		}
	}
	return c.logMoney(ctx, ops, supplier, doc, total)
}
