package oltpemul

import (
	"context"
	"errors"
	"slices"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// clientOrder is sp_client_order: a customer — or, one order in four
// (ORDER_FOR_OUR_FIRM_PERCENT), our own firm — orders up to
// C_CUSTOMER_DOC_MAX_ROWS wares drawn from the catalogue, up to
// C_CUSTOMER_DOC_MAX_QTY units each, at the ware's prices plus up to 300
// rounded to hundreds; each unit waits in the quantity FIFO for a supplier
// order and (but our firm's) for a reserve. CLO +q.
func (c *client) clientOrder(ctx context.Context) error {
	cfg := c.w.cfg
	kind := agCustomer
	if c.rng.Int64N(100) < cfg.OurFirmPercent {
		kind = agOurFirm
	}
	agent, err := c.agent(ctx, kind)
	if err != nil {
		return err
	}
	ourFirm := kind == agOurFirm
	want := c.randomQty(cfg.CustomerDocMaxRows)
	var wares []int64
	for range want {
		// v_all_wares, the cart's wares left out: the first ware at or
		// above a point drawn over the catalogue.
		w := 1 + c.rng.Int64N(cfg.Wares)
		for slices.Contains(wares, w) {
			w++
		}
		if w >= 1 && w <= cfg.Wares {
			wares = append(wares, w)
		}
	}
	if len(wares) == 0 {
		return workload.NothingAs("ex_no_rows_in_shopping_cart", "oltp-emul: the catalogue has no ware to order")
	}
	docID := c.w.id(seqDoc)
	lines := make([]line, 0, len(wares))
	var sumP, sumR int64
	for _, w := range wares {
		var pp, pr int64
		err := c.row(ctx, opPick, c.w.st.warePrice, []any{w}, &pp, &pr)
		if errors.Is(err, backend.ErrNoRows) {
			return workload.NothingAs("ex_no_rows_in_shopping_cart", "oltp-emul: ware %d is not in the catalogue", w)
		}
		if err != nil {
			return err
		}
		q := c.randomQty(cfg.CustomerDocMaxQty)
		l := line{id: c.w.id(seqDocData), ware: w, qty: q,
			purchase: roundTo(float64(pp)/cents+c.rng.Float64()*300, 100) * q * cents,
			retail:   roundTo(float64(pr)/cents+c.rng.Float64()*300, 100) * q * cents}
		c.addDocData(docID, opCLO, l.id, l.ware, l.qty, l.purchase, l.retail)
		lines = append(lines, l)
		sumP, sumR = sumP+l.purchase, sumR+l.retail
	}
	c.multiplyQdistr(docID, lines, ourFirm)
	c.addDocList(docID, opCLO, agent, stFix, 0, sumP, sumR)
	return nil
}

// cancelClientOrder is sp_cancel_client_order: a customer order taken at
// random is refused (CLR, cancelled without revert); its units leave the
// FIFO, waiting or taken. CLR +q.
func (c *client) cancelClientOrder(ctx context.Context) error {
	d, err := c.pickDoc(ctx, opCLO)
	if err != nil {
		return err
	}
	if err := c.setDoc(ctx, d, opCLR, stCanc); err != nil {
		return err
	}
	return c.dropRows(ctx, d)
}

// cart fills a shopping cart for op (sp_fill_shopping_cart): up to
// rows wares drawn among those with units waiting from src for op (the
// original's v_random_find_clo_ord…), up to qty units each.
func (c *client) cart(ctx context.Context, src, op int, rows, qty int64) ([]cartLine, error) {
	var out []cartLine
	var taken []int64
	for range c.randomQty(rows) {
		w, err := c.pickID(ctx, c.w.st.wareBounds, c.w.st.wareFirst, []any{src, op, c.wk}, false)
		if err != nil {
			return nil, err
		}
		for w != 0 && slices.Contains(taken, w) { // the next ware not in the cart yet
			var next int64
			err := c.row(ctx, opPick, c.w.st.wareFirst, []any{src, op, c.wk, w + 1}, &next)
			if errors.Is(err, backend.ErrNoRows) {
				break
			}
			if err != nil {
				return nil, err
			}
			w = next
		}
		if w == 0 || slices.Contains(taken, w) {
			continue
		}
		taken = append(taken, w)
		out = append(out, cartLine{ware: w, qty: c.randomQty(qty)})
	}
	if len(out) == 0 {
		return nil, workload.NothingAs("ex_no_rows_in_shopping_cart", "oltp-emul: no ware waits for operation %d", op)
	}
	return out, nil
}

// supplierDoc is sp_supplier_order (op 1200: the units customers ordered
// are ordered from a supplier, CLO −q, ORD +q) and sp_supplier_invoice
// (op 2000: a supplier invoices units ordered from suppliers, ORD −q,
// SUP +q): up to C_SUPPLIER_DOC_MAX_ROWS wares, up to
// C_SUPPLIER_DOC_MAX_QTY units each, taken from the quantity FIFO.
func (c *client) supplierDoc(ctx context.Context, op int) error {
	cfg := c.w.cfg
	cart, err := c.cart(ctx, source(op), op, cfg.SupplierDocMaxRows, cfg.SupplierDocMaxQty)
	if err != nil {
		return err
	}
	agent, err := c.agent(ctx, agSupplier)
	if err != nil {
		return err
	}
	_, err = c.storno(ctx, op, agent, stOpen, 0, cart)
	return err
}

// cancelSupplierInvoice is sp_cancel_supplier_invoice: an invoice not yet
// added to stock is deleted; the units it took wait for invoices again.
// ORD +q, SUP −q.
func (c *client) cancelSupplierInvoice(ctx context.Context) error {
	d, err := c.pickDoc(ctx, opSUP)
	if err != nil {
		return err
	}
	return c.dropSupplierInvoice(ctx, d)
}

func (c *client) dropSupplierInvoice(ctx context.Context, d doc) error {
	if err := c.returnRows(ctx, d, opSUP, true, false); err != nil {
		return err
	}
	return c.deleteDoc(ctx, d)
}

// addInvoiceToStock is sp_add_invoice_to_stock: an invoice taken at random
// is checked and its wares come into stock (SUP −q, AVL +q, INC +q): its
// units wait for reserves now; we owe the supplier its cost, which first
// pays off our advances to him. Then (ENABLE_RESERVES_WHEN_ADD_INVOICE)
// the customer orders waiting for its wares are reserved, each in a
// savepoint: a conflict leaves that reserve out, as the original's WHEN
// block does.
func (c *client) addInvoiceToStock(ctx context.Context) error {
	d, err := c.pickDoc(ctx, opSUP)
	if err != nil {
		return err
	}
	if err := c.setDoc(ctx, d, opINC, stFix); err != nil {
		return err
	}
	if err := c.moveRows(ctx, d, opSUP, opINC); err != nil {
		return err
	}
	if err := c.owe(ctx, d, opINC); err != nil {
		return err
	}
	if !c.w.cfg.ReservesWhenAddInvoice {
		return nil
	}
	clos, err := c.waitingOrders(ctx, d.id)
	if err != nil {
		return err
	}
	for _, clo := range clos {
		if err := c.savepoint(ctx, func() error { return c.reserveFor(ctx, clo) }); err != nil {
			return err
		}
	}
	return nil
}

// owe records a document's cost as a debt (doc_list_aiud): its cost waits
// in the cost FIFO, pays off what waits for it, and the money log takes it.
func (c *client) owe(ctx context.Context, d doc, op int) error {
	cost := d.purchase
	if optypeOf(op).custDebt != 0 {
		cost = d.retail
	}
	c.multiplyPdistr(d.id, d.agent, op, cost)
	if err := c.makeCostStorno(ctx, d.id, op, d.agent, cost); err != nil {
		return err
	}
	c.logMoney(d.id, d.agent, op, d.purchase, d.retail)
	return nil
}

// unowe takes a document's debt back (doc_list_aiud when its operation
// goes back, or it is deleted): the cost FIFO gives back what it paid off,
// and the money log takes the cost off.
func (c *client) unowe(ctx context.Context, d doc, op int) error {
	if err := c.killCostStorno(ctx, d.id); err != nil {
		return err
	}
	c.logMoney(d.id, d.agent, op, -d.purchase, -d.retail)
	return nil
}

// savepoint runs fn in a savepoint: a conflict (fn_is_lock_trouble) rolls
// back fn's work alone, nothing to do is kept as a no-op, other errors end
// the unit.
func (c *client) savepoint(ctx context.Context, fn func() error) error {
	if err := c.flush(ctx); err != nil {
		return err
	}
	if err := c.ops.Time(opWrite, func() error { return c.c.ExecScript(ctx, "SAVEPOINT oe_sp") }); err != nil {
		return err
	}
	err := fn()
	if err == nil {
		err = c.flush(ctx)
	}
	switch {
	case err == nil:
		return c.ops.Time(opWrite, func() error { return c.c.ExecScript(ctx, "RELEASE SAVEPOINT oe_sp") })
	case conflict(err) || errors.Is(err, workload.ErrNothing):
		clear(c.pend)
		return c.ops.Time(opWrite, func() error { return c.c.ExecScript(ctx, "ROLLBACK TO SAVEPOINT oe_sp") })
	}
	return err
}

// waitingOrders is sp_get_clo_for_invoice: for each ware of the invoice,
// the customer orders whose units wait for a reserve, oldest first, as
// many as the invoice brings units.
func (c *client) waitingOrders(ctx context.Context, invoice int64) ([]int64, error) {
	lines, err := c.lines(ctx, invoice)
	if err != nil {
		return nil, err
	}
	var out []int64
	for _, l := range lines {
		err := c.rows(ctx, opPick, c.w.st.cloWaiting, []any{opCLO, opRES, c.wk, l.ware, l.qty}, func(scan func(dest ...any) error) error {
			var id, q int64
			if err := scan(&id, &q); err != nil {
				return err
			}
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// cancelAddingInvoice is sp_cancel_adding_invoice: an invoice in stock is
// taken back to a draft; the reserves that took its units are cancelled
// first (their write-offs before them), then its units wait for it again
// and our debt to the supplier goes. SUP +q, AVL −q, INC −q.
func (c *client) cancelAddingInvoice(ctx context.Context) error {
	d, err := c.pickDoc(ctx, opINC)
	if err != nil {
		return err
	}
	return c.reopenInvoice(ctx, d)
}

func (c *client) reopenInvoice(ctx context.Context, d doc) error {
	deps, err := c.dependents(ctx, d.id, opINC)
	if err != nil {
		return err
	}
	for _, r := range deps {
		if err := c.dropReserve(ctx, r); err != nil {
			return err
		}
	}
	if err := c.setDoc(ctx, d, opSUP, stOpen); err != nil {
		return err
	}
	if err := c.moveRows(ctx, d, opINC, opSUP); err != nil {
		return err
	}
	return c.unowe(ctx, d, opINC)
}

// dropReserve cancels a reserve that depends on a document being taken
// back: its write-off first, if it was written off.
func (c *client) dropReserve(ctx context.Context, r doc) error {
	if r.optype == opSAL {
		if err := c.unwriteOff(ctx, r); err != nil {
			return err
		}
		r.optype = opRES
	}
	if r.optype != opRES {
		return workload.LostRace("oltp-emul: document %d that took reserves' rows is of operation %d", r.id, r.optype)
	}
	return c.dropCustomerReserve(ctx, r)
}

// cancelSupplierOrder is sp_cancel_supplier_order: an order to a supplier
// is deleted, with what depends on it: the reserves of its invoices (their
// write-offs first), its invoices (taken back from stock first), then
// itself; the units it took wait for supplier orders again. CLO +q, ORD −q.
func (c *client) cancelSupplierOrder(ctx context.Context) error {
	d, err := c.pickDoc(ctx, opORD)
	if err != nil {
		return err
	}
	invoices, err := c.dependents(ctx, d.id, opORD)
	if err != nil {
		return err
	}
	var reserves []doc
	for _, inv := range invoices {
		deps, err := c.dependents(ctx, inv.id, opINC)
		if err != nil {
			return err
		}
		for _, r := range deps {
			if !slices.ContainsFunc(reserves, func(x doc) bool { return x.id == r.id }) {
				reserves = append(reserves, r) // one reserve can take from several invoices
			}
		}
	}
	for _, r := range reserves {
		if err := c.dropReserve(ctx, r); err != nil {
			return err
		}
	}
	for _, inv := range invoices {
		if inv.optype == opINC {
			if err := c.reopenInvoice(ctx, inv); err != nil {
				return err
			}
		}
		if err := c.dropSupplierInvoice(ctx, inv); err != nil {
			return err
		}
	}
	if err := c.returnRows(ctx, d, opORD, true, false); err != nil {
		return err
	}
	return c.deleteDoc(ctx, d)
}

// customerReserve is sp_customer_reserve: a customer order with units not
// reserved yet is taken at random, and the stock reserves them, oldest
// invoice first (AVL −q, RES +q); with no such order, a customer reserves
// wares drawn among those in stock.
func (c *client) customerReserve(ctx context.Context) error {
	clo, err := c.pickID(ctx, c.w.st.cloBounds, c.w.st.cloFirst, []any{opCLO, opRES, c.wk}, false)
	if err != nil {
		return err
	}
	if clo != 0 {
		return c.reserveFor(ctx, clo)
	}
	cart, err := c.cart(ctx, opINC, opRES, c.w.cfg.CustomerDocMaxRows, c.w.cfg.CustomerDocMaxQty)
	if err != nil {
		return err
	}
	agent, err := c.agent(ctx, agCustomer)
	if err != nil {
		return err
	}
	_, err = c.storno(ctx, opRES, agent, stOpen, 0, cart)
	return err
}

// reserveFor reserves the units of customer order clo not reserved yet
// (sp_fill_shopping_cart_clo_res, then sp_make_qty_storno with its lines).
func (c *client) reserveFor(ctx context.Context, clo int64) error {
	var cart []cartLine
	err := c.rows(ctx, opPick, c.w.st.cloCart, []any{opCLO, opRES, c.wk, clo}, func(scan func(dest ...any) error) error {
		var l cartLine
		err := scan(&l.cloLine, &l.ware, &l.qty)
		cart = append(cart, l)
		return err
	})
	if err != nil {
		return err
	}
	if len(cart) == 0 {
		return workload.NothingAs("ex_no_rows_in_shopping_cart", "oltp-emul: customer order %d waits for no reserve", clo)
	}
	var agent int64
	if err := c.row(ctx, opPick, c.w.st.docAgent, []any{clo}, &agent); err != nil {
		if errors.Is(err, backend.ErrNoRows) {
			return workload.NothingAs("ex_no_doc_found_for_handling", "oltp-emul: customer order %d is gone", clo)
		}
		return err
	}
	_, err = c.storno(ctx, opRES, agent, stOpen, clo, cart)
	return err
}

// cancelCustomerReserve is sp_cancel_customer_reserve: a reserve not
// written off is deleted; the stock it took, and the customer order's
// units, wait again. AVL +q, RES −q.
func (c *client) cancelCustomerReserve(ctx context.Context) error {
	d, err := c.pickDoc(ctx, opRES)
	if err != nil {
		return err
	}
	return c.dropCustomerReserve(ctx, d)
}

func (c *client) dropCustomerReserve(ctx context.Context, d doc) error {
	if err := c.returnRows(ctx, d, opRES, true, false); err != nil {
		return err
	}
	return c.deleteDoc(ctx, d)
}

// reserveWriteOff is sp_reserve_write_off: a reserve is realized (shipped):
// its units leave the stock (RES −q, OUT +q), and the customer owes its
// retail cost, which first takes his advances.
func (c *client) reserveWriteOff(ctx context.Context) error {
	d, err := c.pickDoc(ctx, opRES)
	if err != nil {
		return err
	}
	if err := c.setDoc(ctx, d, opSAL, stFix); err != nil {
		return err
	}
	if err := c.sendRows(ctx, d); err != nil {
		return err
	}
	return c.owe(ctx, d, opSAL)
}

// cancelWriteOff is sp_cancel_write_off: a realization goes back to a
// reserve; its units and the customer's payments for it come back.
// RES +q, OUT −q.
func (c *client) cancelWriteOff(ctx context.Context) error {
	d, err := c.pickDoc(ctx, opSAL)
	if err != nil {
		return err
	}
	return c.unwriteOff(ctx, d)
}

func (c *client) unwriteOff(ctx context.Context, d doc) error {
	if err := c.setDoc(ctx, d, opRES, stOpen); err != nil {
		return err
	}
	if err := c.returnRows(ctx, d, opSAL, false, true); err != nil {
		return err
	}
	return c.unowe(ctx, d, opSAL)
}
