package oltpemul

import (
	"context"
	"errors"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// payment: a customer pays us, or we pay a supplier, part or all of what is
// owed, never more; nothing owed, nothing to do. The contractor's balance row is locked first, so two
// payments to one contractor cannot both spend the same debt.
func (c *client) payment(ctx context.Context, ops workload.Ops, contractor int64) error {
	var owed int64
	err := ops.Time(opPick, func() error {
		if _, err := c.c.Exec(ctx, c.w.st.lockMoney, contractor); err != nil {
			return err
		}
		return c.c.QueryRow(ctx, c.w.st.owed, []any{contractor}, &owed)
	})
	if errors.Is(err, backend.ErrNoRows) {
		return workload.Nothing("oltp-emul: contractor %d is not in the catalogue", contractor)
	}
	if err != nil {
		return err
	}
	if owed <= 0 {
		return workload.Nothing("oltp-emul: contractor %d is owed nothing", contractor)
	}
	pay := owed/2 + c.rng.Int64N(owed-owed/2+1)
	return c.logMoney(ctx, ops, contractor, 0, -pay)
}
