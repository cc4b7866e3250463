package oltpemul

import (
	"context"
	"errors"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// qrow is a row of the quantity FIFO: one unit of a document line, waiting
// in qdistr for its receiver, or taken (qstorned).
type qrow struct {
	id, doc, snd, qty, purchase, retail int64
	sndOp, rcvOp                        int64
	ware, worker                        int64 // qstorned's
}

func scanQrow(scan func(dest ...any) error, withWare bool) (qrow, error) {
	var r qrow
	dest := []any{&r.id, &r.doc, &r.snd, &r.qty, &r.purchase, &r.retail, &r.sndOp, &r.rcvOp}
	if withWare {
		dest = append(dest, &r.ware, &r.worker)
	}
	return r, scan(dest...)
}

// readQrows reads the FIFO rows st selects (of qstorned, withWare).
func (c *client) readQrows(ctx context.Context, st *backend.Stmt, withWare bool, args ...any) ([]qrow, error) {
	var rows []qrow
	err := c.rows(ctx, opFifo, st, args, func(scan func(dest ...any) error) error {
		r, err := scanQrow(scan, withWare)
		rows = append(rows, r)
		return err
	})
	return rows, err
}

func qrowID(r qrow) int64 { return r.id }

// idsOf lists the rows' ids.
func idsOf(rows []qrow) []int64 {
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	return ids
}

// split divides total over n rows, the remainder on the last, so that they
// add up to it exactly (sp_multiply_rows_for_qdistr's correction of its
// last row).
func split(total, n int64) (each, last int64) {
	each = total / n
	return each, total - each*(n-1)
}

// multiplyQdistr is sp_multiply_rows_for_qdistr for a customer order: each
// line of quantity q puts q rows of one unit into qdistr for the supplier
// order (1000 → 1200) and, unless our firm ordered (its orders are never
// reserved), for the reserve (1000 → 3300), each carrying its share of the
// line's costs.
func (c *client) multiplyQdistr(docID int64, lines []line, ourFirm bool) {
	for _, r := range qrules {
		if r.snd != opCLO || ourFirm && r.rcv == opRES {
			continue
		}
		for _, l := range lines {
			p, pl := split(l.purchase, l.qty)
			s, sl := split(l.retail, l.qty)
			for i := int64(1); i <= l.qty; i++ {
				if i == l.qty {
					p, s = pl, sl
				}
				c.insert(tQdistr, c.w.id(seqQdistr), docID, c.wk, l.ware, opCLO, l.id, int64(1), r.rcv, p, s)
			}
		}
	}
}

// take storns up to want units of ware waiting from snd for rcv (of line
// sndID when not 0): the oldest document's rows first, rows other
// transactions hold skipped (sp_make_qty_storno: "lock_conflict can occur
// here", and the row is skipped). The rows taken are deleted from qdistr
// and returned.
func (c *client) take(ctx context.Context, ware int64, snd, rcv int, sndID, want int64) ([]qrow, error) {
	st, args := c.w.st.fifo, []any{snd, rcv, c.wk, ware}
	if c.sign < 0 {
		st = c.w.st.fifoDesc
	}
	if sndID != 0 {
		st, args = c.w.st.fifoSnd, append(args, sndID)
		if c.sign < 0 {
			st = c.w.st.fifoSndDesc
		}
	}
	rows, err := c.readQrows(ctx, st, false, append(args, want)...)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	if rows, err = claimed(ctx, c, "oe_qdistr", rows, qrowID); err != nil || len(rows) == 0 {
		return nil, err
	}
	ids := idsOf(rows)
	gone, err := c.deleteIDs(ctx, opFifo, "oe_qdistr", ids)
	switch {
	case err == nil && gone == int64(len(ids)):
		return rows, nil
	case err == nil:
		// Another transaction took some since this one read them: an
		// engine whose writes see the latest rows (InnoDB) says so this way.
		return nil, workload.LostRace("oltp-emul: %d of %d FIFO rows of ware %d were taken meanwhile", int64(len(ids))-gone, len(ids), ware)
	case !c.w.st.rowByRow || !conflict(err):
		return nil, err
	}
	// Firebird: one statement per row, a row another transaction holds
	// skipped, as the original's WHEN block does.
	var got []qrow
	for _, r := range rows {
		n, err := c.deleteIDs(ctx, opFifo, "oe_qdistr", []int64{r.id})
		if conflict(err) || err == nil && n == 0 {
			continue
		}
		if err != nil {
			return nil, err
		}
		got = append(got, r)
	}
	return got, nil
}

// claimed keeps the rows this transaction could lock, where they were read
// without a lock (MariaDB: see stmts): table's rows, whose ids id gives.
func claimed[T any](ctx context.Context, c *client, table string, rows []T, id func(T) int64) ([]T, error) {
	if len(rows) == 0 || c.w.st.claim[table] == nil {
		return rows, nil
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = id(r)
	}
	got, err := c.claimIDs(ctx, table, ids)
	if err != nil {
		return nil, err
	}
	out := rows[:0]
	for _, r := range rows {
		if got[id(r)] {
			out = append(out, r)
		}
	}
	return out, nil
}

// claimIDs locks table's rows of ids that no other transaction holds, by
// primary key with SKIP LOCKED, and returns them; nil where the rows were
// locked as they were read.
func (c *client) claimIDs(ctx context.Context, table string, ids []int64) (map[int64]bool, error) {
	sts := c.w.st.claim[table]
	if sts == nil {
		return nil, nil
	}
	got := map[int64]bool{}
	for len(ids) > 0 {
		n := 1
		for _, s := range delSizes {
			if s <= len(ids) {
				n = s
				break
			}
		}
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		err := c.rows(ctx, opFifo, sts[n], args, func(scan func(dest ...any) error) error {
			var id int64
			err := scan(&id)
			got[id] = true
			return err
		})
		if err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return got, nil
}

// conflict reports whether err is a lock or update conflict, a deadlock or
// a lock time-out (fn_is_lock_trouble).
func conflict(err error) bool {
	return err != nil && dberr.ClassOf(err) == dberr.Retryable
}

// deleteIDs deletes table's rows of ids, in a few statements.
func (c *client) deleteIDs(ctx context.Context, op int, table string, ids []int64) (int64, error) {
	var gone int64
	for len(ids) > 0 {
		n := 1
		for _, s := range delSizes {
			if s <= len(ids) {
				n = s
				break
			}
		}
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		k, err := c.exec(ctx, op, c.w.st.delIn[table][n], args...)
		if err != nil {
			return gone, err
		}
		gone += k
		ids = ids[n:]
	}
	return gone, nil
}

// ids reads the ids st selects.
func (c *client) ids(ctx context.Context, st *backend.Stmt, args ...any) ([]int64, error) {
	var out []int64
	err := c.rows(ctx, opFifo, st, args, func(scan func(dest ...any) error) error {
		var id int64
		err := scan(&id)
		out = append(out, id)
		return err
	})
	return out, err
}

// deleteWhere deletes table's rows whose ids st selects, by primary key.
func (c *client) deleteWhere(ctx context.Context, table string, st *backend.Stmt, args ...any) (int64, error) {
	ids, err := c.ids(ctx, st, args...)
	if err != nil {
		return 0, err
	}
	n, err := c.deleteIDs(ctx, opFifo, table, ids)
	if err == nil && n != int64(len(ids)) {
		return n, workload.LostRace("oltp-emul: %d of %d rows of %s were deleted meanwhile", int64(len(ids))-n, len(ids), table)
	}
	return n, err
}

// moveIDs moves qdistr rows to sender operation op, by primary key.
func (c *client) moveIDs(ctx context.Context, op int, ids []int64) (int64, error) {
	var moved int64
	for len(ids) > 0 {
		n := 1
		for _, s := range delSizes {
			if s <= len(ids) {
				n = s
				break
			}
		}
		args := make([]any, 0, n+1)
		args = append(args, op)
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		k, err := c.exec(ctx, opFifo, c.w.st.moveIn[n], args...)
		if err != nil {
			return moved, err
		}
		moved += k
		ids = ids[n:]
	}
	return moved, nil
}

// cartLine is a ware a document wants: qty units of it, and for a reserve
// made for a customer order, the order's line whose own rows it takes too.
type cartLine struct {
	ware, qty, cloLine int64
}

// storno is sp_make_qty_storno: a document of op (a supplier order, an
// invoice, a reserve) takes, for each ware of its cart, as many units as it
// wants, or as are there, from the rows its source left waiting for it
// (1000 → 1200, 1200 → 2000, 2100 → 3300); each row taken moves to
// qstorned with the line that took it, and becomes a row waiting for the
// next stage (1200 → 2000, 2000 → 3300, 3300 → 3400). A line's quantity and
// costs are what it took. A reserve for a customer order then takes as
// many of that order's own rows (1000 → 3300, storno_sub 2). A document
// that took nothing is not made: nothing to do (ex_cant_find_row_for_qdistr;
// the original returns without error for a reserve made for an order,
// dbgauge says nothing to do there too).
func (c *client) storno(ctx context.Context, op int, agent int64, state int, clo int64, cart []cartLine) (int64, error) {
	docID := c.w.id(seqDoc)
	next, src := nextRcv(op), source(op)
	var sumP, sumR int64
	added := 0
	for _, cl := range cart {
		rows, err := c.take(ctx, cl.ware, src, op, 0, cl.qty)
		if err != nil {
			return 0, err
		}
		if len(rows) == 0 {
			continue
		}
		ddID := c.w.id(seqDocData)
		var q, p, s int64
		for _, r := range rows {
			c.insert(tQstorned, r.id, r.doc, c.wk, cl.ware, r.sndOp, r.snd, r.qty, docID, int64(op), ddID, r.purchase, r.retail)
			if next != 0 {
				c.insert(tQdistr, c.w.id(seqQdistr), docID, c.wk, cl.ware, op, ddID, r.qty, next, r.purchase, r.retail)
			}
			q, p, s = q+r.qty, p+r.purchase, s+r.retail
		}
		c.addDocData(docID, op, ddID, cl.ware, q, p, s)
		sumP, sumR, added = sumP+p, sumR+s, added+1
		if cl.cloLine == 0 {
			continue
		}
		own, err := c.take(ctx, cl.ware, opCLO, opRES, cl.cloLine, q)
		if err != nil {
			return 0, err
		}
		for _, r := range own {
			c.insert(tQstorned, r.id, r.doc, c.wk, cl.ware, r.sndOp, r.snd, r.qty, docID, int64(op), ddID, r.purchase, r.retail)
		}
	}
	if added == 0 {
		return 0, workload.NothingAs("ex_cant_find_row_for_qdistr", "oltp-emul: no units of the %d wares asked were waiting for operation %d", len(cart), op)
	}
	c.addDocList(docID, op, agent, state, clo, sumP, sumR)
	return docID, nil
}

// returnRows is sp_kill_qstorno_ret_qs2qd: when a document is deleted (or
// a write-off cancelled) its lines give back the rows they took — those
// whose receiver they are, or for a write-off those they sent — to qdistr,
// as they were; a deleted document's own waiting rows go, with its lines;
// the inventory log gets each line's quantity back, under the document's
// operation.
func (c *client) returnRows(ctx context.Context, d doc, oldOp int, deleting, bySnd bool) error {
	lines, err := c.lines(ctx, d.id)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if deleting {
			n, err := c.deleteWhere(ctx, "oe_qdistr", c.w.st.qdIDsBySnd, l.id, oldOp)
			if err != nil {
				return err
			}
			if n != l.qty {
				return workload.LostRace("oltp-emul: line %d of document %d has %d of its %d rows waiting", l.id, d.id, n, l.qty)
			}
		}
		st := c.w.st.qsByRcv
		if bySnd {
			st = c.w.st.qsBySnd
		}
		back, err := c.readQrows(ctx, st, true, l.id)
		if err != nil {
			return err
		}
		ids := idsOf(back)
		if n, err := c.deleteIDs(ctx, opFifo, "oe_qstorned", ids); err != nil {
			return err
		} else if n != int64(len(ids)) {
			return workload.LostRace("oltp-emul: rows line %d took were given back meanwhile", l.id)
		}
		for _, r := range back {
			c.insert(tQdistr, r.id, r.doc, r.worker, r.ware, r.sndOp, r.snd, r.qty, r.rcvOp, r.purchase, r.retail)
		}
		c.logInvnt(l.ware, -l.qty, -l.purchase, d.id, oldOp, l.id)
		if deleting {
			if _, err := c.exec(ctx, opWrite, c.w.st.delLine, l.id); err != nil {
				return err
			}
		}
	}
	return nil
}

// sendRows is sp_qd_handle_on_reserve_upd_sts: a reserve written off sends
// the rows it left waiting for the write-off to qstorned, and the log
// takes the write-off.
func (c *client) sendRows(ctx context.Context, d doc) error {
	lines, err := c.lines(ctx, d.id)
	if err != nil {
		return err
	}
	for _, l := range lines {
		c.logInvnt(l.ware, l.qty, l.purchase, d.id, opSAL, l.id)
		rows, err := c.readQrows(ctx, c.w.st.qdBySnd, false, l.id, opRES, opSAL)
		if err != nil {
			return err
		}
		n, err := c.deleteIDs(ctx, opFifo, "oe_qdistr", idsOf(rows))
		if err != nil {
			return err
		}
		if n != l.qty || int64(len(rows)) != l.qty {
			return workload.LostRace("oltp-emul: line %d of reserve %d has %d of its %d rows waiting", l.id, d.id, n, l.qty)
		}
		for _, r := range rows {
			c.insert(tQstorned, r.id, r.doc, c.wk, l.ware, r.sndOp, r.snd, r.qty, d.id, int64(opSAL), int64(0), r.purchase, r.retail)
		}
	}
	return nil
}

// dropRows is sp_qd_handle_on_cancel_clo: a refused customer order's rows
// go, those still waiting and the trace of those taken, and the log counts
// its lines as refused (CLR).
func (c *client) dropRows(ctx context.Context, d doc) error {
	lines, err := c.lines(ctx, d.id)
	if err != nil {
		return err
	}
	for _, l := range lines {
		c.logInvnt(l.ware, l.qty, l.purchase, d.id, opCLR, l.id)
		if _, err := c.deleteWhere(ctx, "oe_qdistr", c.w.st.qdIDsBySnd, l.id, opCLO); err != nil {
			return err
		}
		if _, err := c.deleteWhere(ctx, "oe_qstorned", c.w.st.qsIDsBySnd, l.id); err != nil {
			return err
		}
	}
	return nil
}

// moveRows is sp_qd_handle_on_invoice_upd_sts: an invoice added to stock
// (or taken back) moves its rows waiting for reserves from 2000 to 2100
// (or back), and the log takes the stock's arrival (or its reversal).
func (c *client) moveRows(ctx context.Context, d doc, oldOp, newOp int) error {
	lines, err := c.lines(ctx, d.id)
	if err != nil {
		return err
	}
	sign := int64(1)
	if newOp == opSUP {
		sign = -1
	}
	for _, l := range lines {
		c.logInvnt(l.ware, sign*l.qty, sign*l.purchase, d.id, opINC, l.id)
		ids, err := c.ids(ctx, c.w.st.qdIDsBySnd, l.id, oldOp)
		if err != nil {
			return err
		}
		n, err := c.moveIDs(ctx, newOp, ids)
		if err != nil {
			return err
		}
		if n != l.qty || int64(len(ids)) != l.qty {
			return workload.LostRace("oltp-emul: line %d of invoice %d has %d of its %d rows waiting", l.id, d.id, n, l.qty)
		}
	}
	return nil
}

// dependents is sp_lock_dependent_docs: the documents that took rows of
// document base (of operation op) — the invoices of a supplier order, the
// reserves of an invoice added to stock — each locked.
func (c *client) dependents(ctx context.Context, base int64, op int) ([]doc, error) {
	rcv := opSUP
	if op == opINC {
		rcv = opRES
	}
	var ids []int64
	err := c.rows(ctx, opLock, c.w.st.dependents, []any{base, op, rcv, c.wk}, func(scan func(dest ...any) error) error {
		var id int64
		err := scan(&id)
		ids = append(ids, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]doc, 0, len(ids))
	for _, id := range ids {
		d, err := c.lockDoc(ctx, id, 0)
		if errors.Is(err, workload.ErrNothing) {
			// Gone since this transaction read who took the rows: an
			// engine that locks the latest version (InnoDB) sees it so.
			return nil, workload.LostRace("oltp-emul: document %d, which took rows of document %d, is gone", id, base)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}
