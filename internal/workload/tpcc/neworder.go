package tpcc

import (
	"errors"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// newOrderStmts are New-Order's statements (clause 2.4.2); the item,
// stock and line statements are made for each number of lines.
type newOrderStmts struct {
	multiRow bool // the engine inserts several rows with one VALUES list (not Firebird 3)

	noCustomer, noDistrict, noNextOID, noOrder, noNewOrder, noStockUpd, noLine *backend.Stmt
	noItems, noStock, noLines                                                  [MaxLines + 1]*backend.Stmt
}

// newOrderStatements makes New-Order's statements for dialect d.
func newOrderStatements(d backend.Dialect) newOrderStmts {
	s := newOrderStmts{multiRow: d.Name != "firebird"}
	s.noCustomer = stmt(d, "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?")
	s.noDistrict = stmt(d, "SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ?{lock}")
	s.noNextOID = stmt(d, "UPDATE district SET d_next_o_id = ? WHERE d_w_id = ? AND d_id = ?")
	s.noOrder = stmt(d, "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?)")
	s.noNewOrder = stmt(d, "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)")
	s.noStockUpd = stmt(d, "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? "+
		"WHERE s_w_id = ? AND s_i_id = ?")
	s.noLine = stmt(d, "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
	for n := 1; n <= MaxLines; n++ {
		in := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
		s.noItems[n] = stmt(d, "SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN ("+in+")")
		s.noStock[n] = stmt(d, "SELECT s_i_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, "+
			"s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE s_w_id = ? AND s_i_id IN ("+in+"){lock}")
		s.noLines[n] = stmt(d, "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES "+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", n), ", "))
	}
	return s
}

// errRolledBack is the New-Order that found its unused item.
var errRolledBack = errors.New("tpcc: the unused item rolls the New-Order back (clause 2.4.2.3)")

// line is one order line of a New-Order.
type line struct {
	item, supply, quantity int
	price                  Money
	name, data             string
	amount                 Money
}

// newOrder is clause 2.4: an order of 5 to 15 lines for a customer of a
// random district of the home warehouse; rollback makes the last item an
// unused one, so that the transaction finds it missing and rolls back.
func (c *client) newOrder(rollback bool) error {
	r := c.r
	did := r.Int(1, DistrictsPerWarehouse) // 2.4.1.2
	cid := r.CustomerID()
	n := r.Int(MinLines, MaxLines) // 2.4.1.3
	lines := make([]line, n)
	allLocal := 1
	for i := range lines { // 2.4.1.5
		l := &lines[i]
		l.item = r.ItemID()
		if rollback && i == n-1 {
			l.item = NumItems + 1 // 2.4.1.4: an unused item number
		}
		l.supply = c.home
		if r.Int(1, 100) == 1 && c.w.cfg.Warehouses > 1 {
			l.supply = c.otherWarehouse()
			allLocal = 0
		}
		l.quantity = r.Int(1, 10)
	}
	entry := time.Now().UTC().Truncate(time.Microsecond)
	// 2.4.2.2: the warehouse's tax, the district's tax and next order
	// number (taken, and advanced), the customer's discount and credit.
	var discount, wTax, dTax float64
	var last, credit string
	err := c.time(opNOCustomer, func() error {
		return c.c.QueryRow(c.ctx, c.st.noCustomer, []any{c.home, did, cid}, &discount, &last, &credit, &wTax)
	})
	if err != nil {
		return notFound(err, "customer (%d, %d, %d)", c.home, did, cid)
	}
	var oid int64
	err = c.time(opNODistrict, func() error {
		if err := c.c.QueryRow(c.ctx, c.st.noDistrict, []any{c.home, did}, &oid, &dTax); err != nil {
			return notFound(err, "district (%d, %d)", c.home, did)
		}
		return c.exec(c.st.noNextOID, 1, oid+1, c.home, did)
	})
	if err != nil {
		return err
	}
	err = c.time(opNOOrder, func() error {
		if err := c.exec(c.st.noOrder, 1, oid, did, c.home, cid, entry, n, allLocal); err != nil {
			return err
		}
		return c.exec(c.st.noNewOrder, 1, oid, did, c.home)
	})
	if err != nil {
		return err
	}
	// The items: one missing is the spec's rollback (2.4.2.3), which the
	// statement itself did right.
	missing := false
	err = c.time(opNOItems, func() error {
		err := c.items(lines)
		if missing = errors.Is(err, errRolledBack); missing {
			return nil
		}
		return err
	})
	if missing {
		return errRolledBack
	}
	if err != nil {
		return err
	}
	// The stock of each line, by supplying warehouse, taken for update.
	dist := make([]string, n)
	err = c.time(opNOStock, func() error { return c.stock(lines, did, dist) })
	if err != nil {
		return err
	}
	return c.time(opNOLines, func() error { return c.orderLines(lines, dist, oid, did) })
}

// items reads each line's item; a missing one rolls the New-Order back.
func (c *client) items(lines []line) error {
	n := len(lines)
	args := make([]any, n)
	for i, l := range lines {
		args[i] = l.item
	}
	type item struct {
		price      Money
		name, data string
	}
	found := make(map[int]item, n)
	err := c.c.Query(c.ctx, c.st.noItems[n], args, func(scan func(...any) error) error {
		var id int
		var price float64
		var it item
		if err := scan(&id, &price, &it.name, &it.data); err != nil {
			return err
		}
		it.price = cents(price)
		found[id] = it
		return nil
	})
	if err != nil {
		return err
	}
	for i := range lines {
		it, ok := found[lines[i].item]
		if !ok {
			if lines[i].item == NumItems+1 {
				return errRolledBack
			}
			return workload.Inconsistent("tpcc: item %d not found", lines[i].item)
		}
		lines[i].price, lines[i].name, lines[i].data = it.price, it.name, it.data
	}
	return nil
}

// stock takes each line's stock row, grouped by supplying warehouse, and
// updates it as clause 2.4.2.2 says; dist gets each line's S_DIST_xx.
func (c *client) stock(lines []line, did int, dist []string) error {
	type stockRow struct {
		quantity int
		dist     string
	}
	done := make([]bool, len(lines))
	for i := range lines {
		if done[i] {
			continue
		}
		supply := lines[i].supply
		args := []any{supply}
		for j := i; j < len(lines); j++ {
			if lines[j].supply == supply {
				args = append(args, lines[j].item)
			}
		}
		rows := map[int]*stockRow{}
		err := c.c.Query(c.ctx, c.st.noStock[len(args)-1], args, func(scan func(...any) error) error {
			var id, q int
			var data string
			var ds [DistrictsPerWarehouse]string
			if err := scan(&id, &q, &data, &ds[0], &ds[1], &ds[2], &ds[3], &ds[4], &ds[5], &ds[6], &ds[7], &ds[8], &ds[9]); err != nil {
				return err
			}
			rows[id] = &stockRow{quantity: q, dist: ds[did-1]}
			return nil
		})
		if err != nil {
			return err
		}
		for j := i; j < len(lines); j++ {
			l := &lines[j]
			if l.supply != supply {
				continue
			}
			done[j] = true
			s, ok := rows[l.item]
			if !ok {
				return workload.Inconsistent("tpcc: stock (%d, %d) not found", supply, l.item)
			}
			// 2.4.2.2: S_QUANTITY down by OL_QUANTITY, or up by 91 less it
			// when that would leave fewer than 10.
			if s.quantity >= l.quantity+10 {
				s.quantity -= l.quantity
			} else {
				s.quantity = s.quantity - l.quantity + 91
			}
			remote := 0
			if supply != c.home {
				remote = 1
			}
			if err := c.exec(c.st.noStockUpd, 1, s.quantity, l.quantity, remote, supply, l.item); err != nil {
				return err
			}
			dist[j] = s.dist
			l.amount = Money(l.quantity) * l.price
		}
	}
	return nil
}

// orderLines inserts the order's lines: in one statement where the engine
// takes several rows in one VALUES list.
func (c *client) orderLines(lines []line, dist []string, oid int64, did int) error {
	row := func(i int) []any {
		l := lines[i]
		return []any{oid, did, c.home, i + 1, l.item, l.supply, l.quantity, money(l.amount), dist[i]}
	}
	if c.st.multiRow {
		args := make([]any, 0, 9*len(lines))
		for i := range lines {
			args = append(args, row(i)...)
		}
		return c.exec(c.st.noLines[len(lines)], int64(len(lines)), args...)
	}
	for i := range lines {
		if err := c.exec(c.st.noLine, 1, row(i)...); err != nil {
			return err
		}
	}
	return nil
}
