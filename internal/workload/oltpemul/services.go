package oltpemul

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// lockSemaphore takes a service's semaphore row for this transaction; when
// another transaction holds it (or changed it since this one began) the
// service is deferred: nothing to do (ex_cant_lock_semaphore_record), as
// the original raises.
func (c *client) lockSemaphore(ctx context.Context, sem int) error {
	if c.held == sem {
		return nil // taken on the side connection (takeSemaphore)
	}
	var id int64
	err := c.row(ctx, opLock, c.w.st.lockSemaphore, []any{sem}, &id)
	switch {
	case conflict(err):
		return workload.NothingAs("ex_cant_lock_semaphore_record", "oltp-emul: another client holds semaphore %d: %v", sem, err)
	case errors.Is(err, backend.ErrNoRows):
		return workload.NothingAs("ex_record_not_found", "oltp-emul: no semaphore %d", sem)
	case err != nil:
		return err
	}
	_, err = c.exec(ctx, opLock, c.w.st.semaphore, c.now, sem)
	return err
}

// saldo is a ware's remainders: qty_clo … qty_out, cost_inc, cost_out.
type saldo [10]int64

var saldoCols = [10]string{"qty_clo", "qty_clr", "qty_ord", "qty_sup", "qty_avl", "qty_res", "qty_inc", "qty_out", "cost_inc", "cost_out"}

// makeInvntSaldo is srv_make_invnt_saldo: under its semaphore, the
// inventory turnover log as this transaction sees it is totalled per ware
// through the operations' multipliers (v_saldo_invnt), added to the ware's
// saldo, and the rows totalled are deleted (by id: a row logged meanwhile
// waits for the next time). A ware whose saldo would go below zero is left
// for later, unless halt_test_on_errors has CK: then it is written, and
// the saldo's CHECK constraint stops the run.
func (c *client) makeInvntSaldo(ctx context.Context) error {
	if err := c.lockSemaphore(ctx, semInvntSaldo); err != nil {
		return err
	}
	type ware struct {
		id  int64
		sum saldo
		ids []int64
	}
	var wares []*ware
	err := c.rows(ctx, opPick, c.w.st.invntLog, nil, func(scan func(dest ...any) error) error {
		var id, w, q, cost int64
		var m [8]int64
		if err := scan(&id, &w, &q, &cost, &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &m[6], &m[7]); err != nil {
			return err
		}
		if len(wares) == 0 || wares[len(wares)-1].id != w {
			wares = append(wares, &ware{id: w})
		}
		x := wares[len(wares)-1]
		for i := range 6 {
			x.sum[i] += m[i] * q
		}
		x.sum[6] += m[6] * q    // qty_inc
		x.sum[7] += m[7] * q    // qty_out
		x.sum[8] += m[6] * cost // cost_inc
		x.sum[9] += m[7] * cost // cost_out
		x.ids = append(x.ids, id)
		return nil
	})
	if err != nil {
		return err
	}
	for _, x := range wares {
		var s saldo
		found := true
		err := c.row(ctx, opPick, c.w.st.saldo, []any{x.id}, &s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &s[6], &s[7], &s[8], &s[9])
		if errors.Is(err, backend.ErrNoRows) {
			found = false
		} else if err != nil {
			return err
		}
		negative := false
		args := make([]any, 0, 12)
		for i := range s {
			s[i] += x.sum[i]
			negative = negative || s[i] < 0
			args = append(args, s[i])
		}
		if negative && !c.w.halt[dberr.Check] {
			continue // the original writes only correct remainders: this ware waits
		}
		args = append(args, c.now, x.id)
		st := c.w.st.updSaldo
		if !found {
			st = c.w.st.insSaldo
		}
		if _, err := c.exec(ctx, opWrite, st, args...); err != nil {
			return err
		}
		if n, err := c.deleteIDs(ctx, opWrite, "oe_invnt_turnover_log", x.ids); err != nil {
			return err
		} else if n != int64(len(x.ids)) {
			return workload.LostRace("oltp-emul: %d rows of the inventory log were totalled meanwhile", int64(len(x.ids))-n)
		}
	}
	return nil
}

// makeMoneySaldo is srv_make_money_saldo: under its semaphore, the money
// turnover log is totalled per agent through the operations' multipliers
// (what we owe a supplier: invoices added less payments; what a customer
// owes us: realizations less payments), added to the agent's saldo, which
// may be below zero (an advance), and the rows totalled are deleted.
func (c *client) makeMoneySaldo(ctx context.Context) error {
	if err := c.lockSemaphore(ctx, semMoneySaldo); err != nil {
		return err
	}
	type agent struct {
		id, purchase, retail int64
		ids                  []int64
	}
	var agents []*agent
	err := c.rows(ctx, opPick, c.w.st.moneyLog, nil, func(scan func(dest ...any) error) error {
		var id, a, p, r int64
		if err := scan(&id, &a, &p, &r); err != nil {
			return err
		}
		if len(agents) == 0 || agents[len(agents)-1].id != a {
			agents = append(agents, &agent{id: a})
		}
		x := agents[len(agents)-1]
		x.purchase, x.retail = x.purchase+p, x.retail+r
		x.ids = append(x.ids, id)
		return nil
	})
	if err != nil {
		return err
	}
	for _, x := range agents {
		if n, err := c.deleteIDs(ctx, opWrite, "oe_money_turnover_log", x.ids); err != nil {
			return err
		} else if n != int64(len(x.ids)) {
			return workload.LostRace("oltp-emul: %d rows of the money log were totalled meanwhile", int64(len(x.ids))-n)
		}
		if x.purchase == 0 && x.retail == 0 {
			continue // nothing to add (and MySQL counts an UPDATE that changes nothing as no row)
		}
		n, err := c.exec(ctx, opWrite, c.w.st.updMoneySaldo, x.purchase, x.retail, x.id)
		if err != nil {
			return err
		}
		if n == 0 {
			if _, err := c.exec(ctx, opWrite, c.w.st.insMoneySaldo, x.purchase, x.retail, x.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// recalcIdxStat is srv_recalc_idx_stat, after its semaphore's commit: the
// statistics of the busiest tables' indexes are refreshed, each statement
// in a transaction of its own (the original's autonomous transactions), at
// most every recalc_idx_min_interval.
func (c *client) recalcIdxStat(ctx context.Context) error {
	c.w.lastRecalc.Store(time.Now().UnixNano())
	var stmts []string
	switch c.w.dial.Name {
	case "postgres":
		stmts = []string{"ANALYZE oe_doc_data, oe_doc_list, oe_qdistr, oe_qstorned, oe_pdistr, oe_pstorned"}
	case "mysql":
		stmts = []string{"ANALYZE TABLE oe_doc_data, oe_doc_list, oe_qdistr, oe_qstorned, oe_pdistr, oe_pstorned"}
	case "firebird":
		var names []string
		err := c.ops.Time(opPick, func() error {
			return c.c.Query(ctx, c.w.st.fbIndexes, nil, func(scan func(dest ...any) error) error {
				var n string
				err := scan(&n)
				names = append(names, n)
				return err
			})
		})
		if err != nil {
			return err
		}
		for _, n := range names {
			stmts = append(stmts, "SET STATISTICS INDEX "+n)
		}
	default:
		stmts = []string{"ANALYZE"}
	}
	for _, q := range stmts {
		if err := c.ops.Time(opWrite, func() error { return c.c.ExecScript(ctx, q) }); err != nil {
			return fmt.Errorf("srv_recalc_idx_stat: %w", err)
		}
	}
	return nil
}
