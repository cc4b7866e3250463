package tpcc

import (
	"errors"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// deliveryStmts are Delivery's statements (clause 2.7.4); the batched ones
// are made for each number of districts delivered.
type deliveryStmts struct {
	dNewOrder, dLeft, dCustomerUpd              *backend.Stmt
	dDelete, dOrder, dOrderUpd, dLinesUpd, dSum [DistrictsPerWarehouse + 1]*backend.Stmt
}

// deliveryStatements makes Delivery's statements for dialect d.
func deliveryStatements(d backend.Dialect) deliveryStmts {
	var s deliveryStmts
	s.dNewOrder = stmt(d, "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id{first}{lock}")
	s.dLeft = stmt(d, "SELECT COUNT(*) FROM new_order WHERE no_w_id = ? AND no_d_id = ?")
	for n := 1; n <= DistrictsPerWarehouse; n++ {
		// The (w_id, d_id, o_id) keys as ORs of equalities on the whole
		// key, which every engine's planner turns into index lookups (row
		// values in an IN list are not in Firebird 3; SQLite uses an index
		// for each OR term only when the OR is the whole WHERE).
		keys := func(w, d, o string) string {
			return strings.TrimSuffix(strings.Repeat("("+w+" = ? AND "+d+" = ? AND "+o+" = ?) OR ", n), " OR ")
		}
		s.dDelete[n] = stmt(d, "DELETE FROM new_order WHERE "+keys("no_w_id", "no_d_id", "no_o_id"))
		s.dOrderUpd[n] = stmt(d, "UPDATE orders SET o_carrier_id = ? WHERE "+keys("o_w_id", "o_d_id", "o_id"))
		s.dOrder[n] = stmt(d, "SELECT o_d_id, o_c_id FROM orders WHERE "+keys("o_w_id", "o_d_id", "o_id"))
		s.dLinesUpd[n] = stmt(d, "UPDATE order_line SET ol_delivery_d = ? WHERE "+keys("ol_w_id", "ol_d_id", "ol_o_id"))
		s.dSum[n] = stmt(d, "SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE "+keys("ol_w_id", "ol_d_id", "ol_o_id")+" GROUP BY ol_d_id")
	}
	s.dCustomerUpd = stmt(d, "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	return s
}

// delivery is clause 2.7: for each district of the home warehouse, its
// oldest undelivered order delivered by a random carrier, all ten in one
// transaction (clause 2.7.4.2's deferred execution allows it). A district
// with no new order is skipped and counted. The oldest new orders are
// taken district by district; the orders, lines and sums of all the
// districts are then read and written a statement each (as go-tpc does),
// their keys in one WHERE; the customers are credited one by one.
func (c *client) delivery() error {
	carrier := c.r.Int(1, 10)
	now := time.Now().UTC().Truncate(time.Microsecond)
	var skipped int64
	var dids []int
	var oids []int64
	err := c.time(opDNewOrder, func() error {
		var err error
		dids, oids, skipped, err = c.takeNewOrders()
		return err
	})
	if err != nil || len(dids) == 0 {
		if err == nil {
			c.w.skipped.Add(skipped)
		}
		return err
	}
	n := len(dids)
	keys := c.keys(dids, oids)
	customers := map[int]int{}
	err = c.time(opDOrder, func() error {
		if err := c.exec(c.st.dOrderUpd[n], int64(n), append([]any{carrier}, keys...)...); err != nil {
			return err
		}
		return c.c.Query(c.ctx, c.st.dOrder[n], keys, func(scan func(...any) error) error {
			var did, cid int
			if err := scan(&did, &cid); err != nil {
				return err
			}
			customers[did] = cid
			return nil
		})
	})
	if err != nil {
		return err
	}
	totals := map[int]float64{}
	err = c.time(opDLines, func() error {
		if _, err := c.c.Exec(c.ctx, c.st.dLinesUpd[n], append([]any{now}, keys...)...); err != nil {
			return err
		}
		return c.c.Query(c.ctx, c.st.dSum[n], keys, func(scan func(...any) error) error {
			var did int
			var total float64
			if err := scan(&did, &total); err != nil {
				return err
			}
			totals[did] = total
			return nil
		})
	})
	if err != nil {
		return err
	}
	err = c.time(opDCustomer, func() error {
		for i, did := range dids {
			cid, ok := customers[did]
			if !ok {
				return workload.Inconsistent("tpcc: order (%d, %d, %d) not found", c.home, did, oids[i])
			}
			if err := c.exec(c.st.dCustomerUpd, 1, money(cents(totals[did])), c.home, did, cid); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.w.skipped.Add(skipped)
	c.w.delivered.Add(int64(n))
	return nil
}

// takeNewOrders takes the oldest new order of each district of the home
// warehouse: their districts and numbers, and how many districts had none.
func (c *client) takeNewOrders() (dids []int, oids []int64, skipped int64, err error) {
	for did := 1; did <= DistrictsPerWarehouse; did++ {
		var oid int64
		err := c.c.QueryRow(c.ctx, c.st.dNewOrder, []any{c.home, did}, &oid)
		if errors.Is(err, backend.ErrNoRows) {
			// None to deliver, or the oldest was taken while this
			// transaction waited for its lock (PostgreSQL and
			// Firebird then return no row): only the first is a
			// skipped district.
			var left int64
			if err := c.c.QueryRow(c.ctx, c.st.dLeft, []any{c.home, did}, &left); err != nil {
				return nil, nil, 0, err
			}
			if left > 0 {
				return nil, nil, 0, workload.LostRace("tpcc: the oldest new order of (%d, %d) was delivered by another terminal", c.home, did)
			}
			skipped++
			continue
		}
		if err != nil {
			return nil, nil, 0, err
		}
		dids, oids = append(dids, did), append(oids, oid)
	}
	if len(dids) == 0 {
		return nil, nil, skipped, nil
	}
	n, err := c.c.Exec(c.ctx, c.st.dDelete[len(dids)], c.keys(dids, oids)...)
	if err == nil && n != int64(len(dids)) {
		// Taken by another delivery since they were read.
		err = workload.LostRace("tpcc: %d of %d new orders of warehouse %d delivered by another terminal", int64(len(dids))-n, len(dids), c.home)
	}
	return dids, oids, skipped, err
}

// keys are the arguments of a delivery's batched statements: each order's
// key (the home warehouse, the district, the order number).
func (c *client) keys(dids []int, oids []int64) []any {
	out := make([]any, 0, 3*len(dids))
	for i := range dids {
		out = append(out, c.home, dids[i], oids[i])
	}
	return out
}
