package oltpemul

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// multiplyPdistr is sp_multiply_rows_for_pdistr: a document's cost waits
// in pdistr for its counterpart (a realization for the customer's payments,
// a payment for realizations: an advance; likewise an invoice and payments
// to its supplier), in C_ROWS_TO_MULTIPLY rows rounded to hundreds (one
// row below C_MIN_COST_TO_BE_SPLITTED), the last row making the sum exact.
func (c *client) multiplyPdistr(docID, agent int64, op int, cost int64) {
	rcv := pcounter(op)
	if rcv == 0 || cost <= 0 {
		return
	}
	n := int64(rowsToMultiply)
	if cost < minCostToBeSplitted*cents {
		n = 1
	}
	div := roundTo(float64(cost)/float64(n), 100*cents)
	if div <= 0 || div > cost {
		div = cost
	}
	for acc := int64(0); acc < cost; {
		row := div
		if acc+row > cost {
			row = cost - acc
		}
		c.insert(tPdistr, c.w.id(seqPdistr), agent, op, docID, c.wk, row, rcv)
		acc += row
	}
}

// prow is a row of the cost FIFO.
type prow struct {
	id, sndOp, snd, cost, rcvOp int64
}

// agentRows reads an agent's rows waiting from operation op, oldest
// document first, the rows others hold skipped (SKIP LOCKED: in the read
// on PostgreSQL, by id after it on MariaDB; on Firebird each is claimed, a
// conflict skipping it).
func (c *client) agentRows(ctx context.Context, agent int64, op int) ([]prow, error) {
	st := c.w.st.pdAgent
	if c.sign < 0 {
		st = c.w.st.pdAgentDesc
	}
	var rows []prow
	err := c.rows(ctx, opFifo, st, []any{agent, op, c.wk}, func(scan func(dest ...any) error) error {
		var r prow
		err := scan(&r.id, &r.sndOp, &r.snd, &r.cost, &r.rcvOp)
		rows = append(rows, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return claimed(ctx, c, "oe_pdistr", rows, func(r prow) int64 { return r.id })
}

// claim locks a pdistr row where the select could not (Firebird): false
// when another transaction holds it (the original's "update pdistr set id
// = id where current of c", a lock conflict skipping the row).
func (c *client) claim(ctx context.Context, id int64) (bool, error) {
	if !c.w.st.rowByRow {
		return true, nil
	}
	n, err := c.exec(ctx, opFifo, c.w.st.pdClaim, id)
	if conflict(err) {
		return false, nil
	}
	return n == 1, err
}

// makeCostStorno is sp_make_cost_storno: a document of op with cost diff
// first pays off the agent's rows waiting for it (a realization takes the
// customer's advances, a payment the unpaid realizations), oldest first,
// recording each in pstorned; then as much of the document's own side is
// taken off the agent's rows of op, oldest first.
func (c *client) makeCostStorno(ctx context.Context, docID int64, op int, agent, diff int64) error {
	var storned int64
	for pass := 1; pass <= 2; pass++ {
		from, left := pcounter(op), diff
		if pass == 2 {
			from, left = op, storned
		}
		if left <= 0 {
			return nil
		}
		rows, err := c.agentRows(ctx, agent, from)
		if err != nil {
			return err
		}
		var gone []int64
		for _, r := range rows {
			if left <= 0 {
				break
			}
			ok, err := c.claim(ctx, r.id)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			s := min(left, r.cost)
			if pass == 1 {
				c.insert(tPstorned, c.w.id(seqPstorned), agent, r.sndOp, r.snd, c.wk, s, r.rcvOp, docID, s)
				storned += s
			}
			if s == r.cost {
				gone = append(gone, r.id)
			} else if _, err := c.exec(ctx, opFifo, c.w.st.pdLess, s, r.id); err != nil {
				return err
			}
			left -= s
		}
		if n, err := c.deleteIDs(ctx, opFifo, "oe_pdistr", gone); err != nil {
			return err
		} else if n != int64(len(gone)) {
			return workload.LostRace("oltp-emul: cost rows of agent %d were taken meanwhile", agent)
		}
	}
	return nil
}

// killCostStorno is sp_kill_cost_storno: a document deleted (or moved back)
// gives back what it paid off and what paid it off, to pdistr, and its own
// rows still waiting go.
func (c *client) killCostStorno(ctx context.Context, docID int64) error {
	type ps struct {
		id, agent, sndOp, snd, sndCost, rcvOp, rcv, rcvCost int64
	}
	var rows []ps
	seen := map[int64]bool{}
	for _, q := range []*backend.Stmt{c.w.st.psByRcv, c.w.st.psBySnd} {
		err := c.rows(ctx, opFifo, q, []any{docID, c.wk}, func(scan func(dest ...any) error) error {
			var r ps
			if err := scan(&r.id, &r.agent, &r.sndOp, &r.snd, &r.sndCost, &r.rcvOp, &r.rcv, &r.rcvCost); err != nil {
				return err
			}
			if !seen[r.id] {
				seen[r.id] = true
				rows = append(rows, r)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	if n, err := c.deleteIDs(ctx, opFifo, "oe_pstorned", ids); err != nil {
		return err
	} else if n != int64(len(ids)) {
		return workload.LostRace("oltp-emul: payments of document %d were given back meanwhile", docID)
	}
	for _, r := range rows {
		if r.rcv == docID { // what this document paid off waits again
			c.insert(tPdistr, c.w.id(seqPdistr), r.agent, r.sndOp, r.snd, c.wk, r.rcvCost, r.rcvOp)
		} else { // what paid this document off waits for another
			c.insert(tPdistr, c.w.id(seqPdistr), r.agent, r.rcvOp, r.rcv, c.wk, r.sndCost, r.sndOp)
		}
	}
	_, err := c.deleteWhere(ctx, "oe_pdistr", c.w.st.pdIDsBySnd, docID, c.wk)
	return err
}
