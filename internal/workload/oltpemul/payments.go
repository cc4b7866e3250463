package oltpemul

import (
	"context"
	"errors"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// payment is sp_pay_from_customer (op 5000) and sp_pay_to_supplier (op
// 4000), through sp_payment_common: a realization (an invoice) still
// unpaid is taken at random and its agent pays what is left of it,
// rounded up to hundreds (thousands for a supplier); with none, a customer
// (a supplier) drawn at random pays 1,000–5,000 (2,000–15,000) ahead: an
// advance. The payment first pays off the agent's unpaid documents, oldest
// first (the cost FIFO), and the money log takes it: a balance can go
// below zero, the agent's advance.
func (c *client) payment(ctx context.Context, op int) error {
	paid := pcounter(op) // what this payment pays: realizations, invoices
	unit, lo, hi := int64(100), int64(paymentFromClientMin), int64(paymentFromClientMax)
	if op == opPSU {
		unit, lo, hi = 1000, paymentToSupplierMin, paymentToSupplierMax
	}
	src, err := c.pickID(ctx, c.w.st.pdBounds, c.w.st.pdFirst, []any{paid, op, c.wk}, true)
	if err != nil {
		return err
	}
	var agent, pay int64
	if src != 0 {
		err := c.row(ctx, opPick, c.w.st.docAgent, []any{src}, &agent)
		if errors.Is(err, backend.ErrNoRows) {
			src = 0
		} else if err != nil {
			return err
		}
	}
	if src != 0 {
		var left int64
		if err := c.row(ctx, opPick, c.w.st.pdSum, []any{src, c.wk}, &left); err != nil {
			return err
		}
		step := unit * cents
		pay = (left + step - 1) / step * step
	}
	if src == 0 || pay <= 0 {
		kind := agCustomer
		if op == opPSU {
			kind = agSupplier
		}
		if agent, err = c.agent(ctx, kind); err != nil {
			return err
		}
		pay = c.randomCost(lo, hi, unit)
	}
	d := doc{id: c.w.id(seqDoc), optype: int64(op), agent: agent, state: stOpen}
	if op == opPSU {
		d.purchase = pay
	} else {
		d.retail = pay
	}
	c.addDocList(d.id, op, agent, stOpen, 0, d.purchase, d.retail)
	return c.owe(ctx, d, op)
}

// cancelPayment is sp_cancel_pay_from_customer and
// sp_cancel_pay_to_supplier: a payment taken at random is deleted; what it
// paid off waits to be paid again, and the money log takes it back.
func (c *client) cancelPayment(ctx context.Context, op int) error {
	d, err := c.pickDoc(ctx, op)
	if err != nil {
		return err
	}
	if err := c.unowe(ctx, d, op); err != nil {
		return err
	}
	return c.deleteDoc(ctx, d)
}
