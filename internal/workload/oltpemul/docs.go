package oltpemul

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// pickID is OLTP-EMUL's sp_get_random_id: the ids of a set (a view in the
// original) lie between its lowest and highest, read once per transaction
// (bounds); a point is drawn uniformly in [lo − 0.5, hi + 0.5], rounded, and
// the first id at or above it is taken (at or below, with desc: the
// original's find_using_desc_index). 0 when the set is empty or no id lies
// beyond the point. first reads the id from the point on.
func (c *client) pickID(ctx context.Context, bounds [2]*backend.Stmt, first *backend.Stmt, args []any, desc bool) (int64, error) {
	// The bounds are read once per transaction, as the original keeps them
	// in USER_TRANSACTION context variables.
	k := boundsKey{bounds[0], fmt.Sprint(args...)}
	b, ok := c.bounds[k]
	if !ok {
		for i, st := range bounds {
			err := c.row(ctx, opPick, st, args, &b[i])
			if errors.Is(err, backend.ErrNoRows) {
				b = [2]int64{}
				break
			}
			if err != nil {
				return 0, err
			}
		}
		if c.bounds == nil {
			c.bounds = map[boundsKey][2]int64{}
		}
		c.bounds[k] = b
	}
	if b[1] == 0 {
		return 0, nil
	}
	return c.pickIn(ctx, b[0], b[1], first, args, desc)
}

// pickIn picks as pickID does in a set known to lie between lo and hi.
func (c *client) pickIn(ctx context.Context, lo, hi int64, first *backend.Stmt, args []any, desc bool) (int64, error) {
	if hi == 0 {
		return 0, nil
	}
	// CAST(… AS BIGINT) rounds: every id of a dense range is as likely.
	at := int64(math.Floor(float64(lo) - 0.5 + c.rng.Float64()*float64(hi-lo+1) + 0.5))
	var id int64
	err := c.row(ctx, opPick, first, append(args[:len(args):len(args)], at), &id)
	if errors.Is(err, backend.ErrNoRows) {
		return 0, nil
	}
	return id, err
}

// boundsKey names a set's bounds read in this transaction.
type boundsKey struct {
	st   *backend.Stmt
	args string
}

// doc is a document header, as locked.
type doc struct {
	id, optype, agent, state, base int64
	purchase, retail               int64
}

// pickDoc takes a random document of optype of the unit's worker (the
// original's v_cancel_client_order, v_add_invoice_to_stock… views) and
// locks it (sp_lock_selected_doc: SELECT … WITH LOCK in a NO WAIT
// transaction, a lock conflict when another transaction holds it, an
// update conflict when one changed it since this one began). None to
// pick: nothing to do (ex_can_not_select_random_id).
func (c *client) pickDoc(ctx context.Context, optype int) (doc, error) {
	id, err := c.pickID(ctx, c.w.st.docBounds, c.w.st.docFirst, []any{optype, c.wk}, false)
	if err != nil {
		return doc{}, err
	}
	if id == 0 {
		return doc{}, workload.NothingAs("ex_can_not_select_random_id", "oltp-emul: no document of operation %d to take", optype)
	}
	return c.lockDoc(ctx, id, optype)
}

// lockDoc locks document id, which must still be of optype (any, 0).
func (c *client) lockDoc(ctx context.Context, id int64, optype int) (doc, error) {
	d := doc{id: id}
	err := c.row(ctx, opLock, c.w.st.lockDoc, []any{id}, &d.optype, &d.agent, &d.state, &d.base, &d.purchase, &d.retail)
	if errors.Is(err, backend.ErrNoRows) {
		return d, workload.NothingAs("ex_no_doc_found_for_handling", "oltp-emul: document %d is gone", id)
	}
	if err != nil {
		return d, err
	}
	if optype != 0 && d.optype != int64(optype) {
		// A locking read sees the latest version (InnoDB); a snapshot
		// engine reports this as an update conflict itself.
		return d, workload.LostRace("oltp-emul: document %d is of operation %d now, not %d", id, d.optype, optype)
	}
	return d, nil
}

// line is a document line (doc_data).
type line struct {
	id, ware, qty, purchase, retail int64
}

// lines reads a document's lines, in id order.
func (c *client) lines(ctx context.Context, docID int64) ([]line, error) {
	var out []line
	err := c.rows(ctx, opPick, c.w.st.docLines, []any{docID}, func(scan func(dest ...any) error) error {
		var l line
		if err := scan(&l.id, &l.ware, &l.qty, &l.purchase, &l.retail); err != nil {
			return err
		}
		out = append(out, l)
		return nil
	})
	return out, err
}

// addDocList queues a document header (sp_add_doc_list). A document in a
// state past open is fixed now; closed or cancelled, closed too.
func (c *client) addDocList(id int64, optype int, agent int64, state int, base, purchase, retail int64) {
	var fix, clos, b any
	if state != stOpen {
		fix = c.now
	}
	if state == stClos || state == stCanc {
		clos = c.now + 1
	}
	if base != 0 {
		b = base
	}
	c.insert(tDocList, id, optype, agent, state, b, purchase, retail, optypeOf(optype).acn, c.now, fix, clos, c.wk)
}

// addDocData queues a line and its row of the inventory turnover log
// (sp_add_doc_data).
func (c *client) addDocData(docID int64, optype int, id, ware, qty, purchase, retail int64) {
	c.insert(tDocData, id, docID, ware, qty, purchase, retail, c.now)
	if qty != 0 {
		c.logInvnt(ware, qty, purchase, docID, optype, id)
	}
}

// logInvnt queues a row of the insert-only inventory turnover log.
func (c *client) logInvnt(ware, qty, cost, docID int64, optype int, ddID int64) {
	c.insert(tInvntLog, c.w.id(seqInvntLog), ware, qty, cost, docID, optypeOf(optype).mcode, ddID, optype, c.now)
}

// logMoney queues a row of the insert-only money turnover log
// (sp_add_money_log).
func (c *client) logMoney(docID, agent int64, optype int, purchase, retail int64) {
	c.insert(tMoneyLog, c.w.id(seqMoneyLog), docID, agent, optype, purchase, retail, c.now)
}

// setDoc moves a document it holds to another operation and state; a
// state past open fixes it, and back to open unfixes it (doc_list_biud).
func (c *client) setDoc(ctx context.Context, d doc, optype, state int) error {
	var fix, clos any
	if state != stOpen {
		fix = c.now
	}
	if state == stClos || state == stCanc {
		clos = c.now + 1
	}
	n, err := c.exec(ctx, opWrite, c.w.st.setDoc, optype, state, fix, clos, d.id)
	if err == nil && n != 1 {
		return workload.Inconsistent("oltp-emul: document %d vanished under its lock", d.id)
	}
	return err
}

// deleteDoc deletes a document it holds, its lines gone already.
func (c *client) deleteDoc(ctx context.Context, d doc) error {
	n, err := c.exec(ctx, opWrite, c.w.st.delDoc, d.id)
	if err == nil && n != 1 {
		return workload.Inconsistent("oltp-emul: document %d vanished under its lock", d.id)
	}
	return err
}

// agent picks a customer, a supplier or our firm at random from the
// agents table (fn_get_random_customer, fn_get_random_supplier,
// v_our_firm: sp_get_random_id over the agents); none: nothing to do.
func (c *client) agent(ctx context.Context, kind int) (int64, error) {
	r := [3][2]int64{c.w.customers, c.w.suppliers, {c.w.ourFirm, c.w.ourFirm}}[kind] // the catalogue's, read by Load
	id, err := c.pickIn(ctx, r[0], r[1], c.w.st.agentFirst[kind], nil, false)
	if err == nil && id == 0 {
		err = workload.NothingAs("ex_can_not_select_random_id", "oltp-emul: no %s among the agents", [...]string{"customer", "supplier", "our firm"}[kind])
	}
	return id, err
}

// The kinds of agent.
const (
	agCustomer = iota
	agSupplier
	agOurFirm
)

// randomQty is fn_get_random_quantity: uniform in 1 … max.
func (c *client) randomQty(maxQty int64) int64 { return 1 + c.rng.Int64N(max(1, maxQty)) }

// randomCost is fn_get_random_cost: uniform in [lo − 0.5, hi + 0.5], then
// rounded to unit, in cents.
func (c *client) randomCost(lo, hi, unit int64) int64 {
	return roundTo(float64(lo)-0.5+c.rng.Float64()*float64(hi-lo+1), unit) * cents
}
