package oltpemul

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// cancelOrder: the oldest new customer order is cancelled. CLO −q.
func (c *client) cancelOrder(ctx context.Context, ops workload.Ops) error {
	doc, _, _, err := c.pick(ctx, ops, "CO", "N")
	if err != nil {
		return err
	}
	if err := c.setState(ctx, ops, doc, "N", "X"); err != nil {
		return err
	}
	lines, err := c.lines(ctx, doc)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if err := c.logQty(ctx, ops, l.ware, doc, delta{-l.qty, 0, 0, 0, 0, 0, 0}); err != nil {
			return err
		}
	}
	return nil
}
