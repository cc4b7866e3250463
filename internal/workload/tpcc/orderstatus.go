package tpcc

import (
	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// orderStatusStmts are Order-Status's statements (clause 2.6.2).
type orderStatusStmts struct {
	osByLast, osCustomer, osOrder, osLines *backend.Stmt
}

// orderStatusStatements makes Order-Status's statements for dialect d.
func orderStatusStatements(d backend.Dialect) orderStatusStmts {
	return orderStatusStmts{
		osByLast:   stmt(d, "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"),
		osCustomer: stmt(d, "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"),
		osOrder:    stmt(d, "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC{first}"),
		osLines:    stmt(d, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"),
	}
}

// orderStatus is clause 2.6: a customer of a random district of the home
// warehouse, its last order and that order's lines.
func (c *client) orderStatus() error {
	did := c.r.Int(1, DistrictsPerWarehouse)
	var cid int
	err := c.time(opOSCustomer, func() error {
		var err error
		if cid, err = c.customer(c.st.osByLast, c.home, did); err != nil {
			return err
		}
		var balance float64
		var first, middle, last string
		return notFound(c.c.QueryRow(c.ctx, c.st.osCustomer, []any{c.home, did, cid}, &balance, &first, &middle, &last),
			"customer (%d, %d, %d)", c.home, did, cid)
	})
	if err != nil {
		return err
	}
	var oid int64
	err = c.time(opOSOrder, func() error {
		var carrier *int64
		var entry any // a date, shown, not used
		return notFound(c.c.QueryRow(c.ctx, c.st.osOrder, []any{c.home, did, cid}, &oid, &carrier, &entry),
			"an order of customer (%d, %d, %d)", c.home, did, cid)
	})
	if err != nil {
		return err
	}
	return c.time(opOSLines, func() error {
		n := 0
		err := c.c.Query(c.ctx, c.st.osLines, []any{c.home, did, oid}, func(scan func(...any) error) error {
			var item, supply, quantity int
			var amount float64
			var delivered any // a date or NULL, shown, not used
			n++
			return scan(&item, &supply, &quantity, &amount, &delivered)
		})
		if err == nil && n < MinLines {
			err = workload.Inconsistent("tpcc: order (%d, %d, %d) has %d lines", c.home, did, oid, n)
		}
		return err
	})
}
