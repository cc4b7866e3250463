package oltpemul

import (
	"context"
	"errors"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// aggregate moves the turnover logs into the balances, one client at a time
// as the seed insists: whoever holds oe_agg's row aggregates, the others
// skip (SKIP LOCKED) instead of queueing. The rows committed so far are
// marked, summed, added and called aggregated, in one transaction.
func (c *client) aggregate(ctx context.Context, ops workload.Ops) error {
	var runs int64
	err := ops.Time(opPick, func() error { return c.c.QueryRow(ctx, c.w.st.lockAgg, nil, &runs) })
	if errors.Is(err, backend.ErrNoRows) {
		return workload.Nothing("oltp-emul: another client is aggregating")
	}
	if err != nil {
		return err
	}
	return ops.Time(opWrite, func() error {
		if _, err := c.c.Exec(ctx, c.w.st.bumpAgg); err != nil {
			return err
		}
		if _, err := c.c.Exec(ctx, c.w.st.markQty); err != nil {
			return err
		}
		var sums [][8]int64
		err := c.c.Query(ctx, c.w.st.qtySums, nil, func(scan func(dest ...any) error) error {
			var s [8]int64
			if err := scan(&s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &s[6], &s[7]); err != nil {
				return err
			}
			sums = append(sums, s)
			return nil
		})
		if err != nil {
			return err
		}
		for _, s := range sums {
			if _, err := c.c.Exec(ctx, c.w.st.addBalance, s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[0]); err != nil {
				return err
			}
		}
		if _, err := c.c.Exec(ctx, c.w.st.doneQty); err != nil {
			return err
		}
		if _, err := c.c.Exec(ctx, c.w.st.markMoney); err != nil {
			return err
		}
		var money [][2]int64
		err = c.c.Query(ctx, c.w.st.moneySums, nil, func(scan func(dest ...any) error) error {
			var m [2]int64
			if err := scan(&m[0], &m[1]); err != nil {
				return err
			}
			money = append(money, m)
			return nil
		})
		if err != nil {
			return err
		}
		for _, m := range money {
			if _, err := c.c.Exec(ctx, c.w.st.addMoney, m[1], m[0]); err != nil {
				return err
			}
		}
		_, err = c.c.Exec(ctx, c.w.st.doneMoney)
		return err
	})
}
