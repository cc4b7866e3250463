package oltpemul

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// customerOrder: a customer orders wares. CLO +q per line.
func (c *client) customerOrder(ctx context.Context, ops workload.Ops) (int64, error) {
	cfg := c.w.cfg
	n := cfg.MinLines + c.rng.IntN(cfg.MaxLines-cfg.MinLines+1)
	lines := make([]line, n)
	for i := range lines {
		ware := 1 + c.rng.Int64N(cfg.Wares)
		p, err := c.price(ctx, ware)
		if err != nil {
			return 0, err
		}
		lines[i] = line{ware: ware, qty: 1 + c.rng.Int64N(int64(cfg.MaxQty)), price: p}
	}
	doc, _, err := c.newDoc(ctx, ops, "CO", "N", c.w.customer(c.rng), lines)
	if err != nil {
		return 0, err
	}
	for _, l := range lines {
		if err := c.logQty(ctx, ops, l.ware, doc, delta{l.qty, 0, 0, 0, 0, 0, 0}); err != nil {
			return 0, err
		}
	}
	return 1, nil
}
