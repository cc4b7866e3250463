package tpcc

import "strconv"

// Condition is one of the twelve consistency conditions of clause 3.3.2: a
// relationship between the tables that the initial population meets and
// that every transaction keeps (condition 11 excepted: LoadOnly).
//
// Query returns the rows that VIOLATE the condition, with the keys and the
// values compared; no row: the condition holds. The queries use the standard
// table and column names (Tables, go-tpc's) and portable SQL only: ANSI
// joins, derived tables with aliases, UNION ALL, COALESCE and ABS, no LIMIT, no
// engine's own functions or quoting, so they run unchanged on PostgreSQL,
// MariaDB, SQLite and Firebird 3, on a database dbgauge loaded as on one
// go-tpc did. Amounts are compared to within half a cent, so that an
// engine storing DECIMAL as binary floating point (SQLite) does not fail a
// sum by its rounding, while any real difference, a cent or more, shows.
// Each query reads whole tables: meant for checks after a load or a run, not
// during one.
type Condition struct {
	Number int    // the condition is clause 3.3.2.<Number>
	Text   string // the relationship, as the spec states it
	Query  string
	// Audited: conditions 1 to 4, the ones the consistency test of clause
	// 3.3.3 verifies before and after a run (and the ones HammerDB checks).
	Audited bool
	// LoadOnly: condition 11 holds on the initial population only. A
	// New-Order adds a row to both ORDER and NEW-ORDER, but a Delivery
	// deletes the NEW-ORDER row and keeps the ORDER one, so the difference
	// grows by one with each district delivered (go-tpc checks it only after
	// its prepare, CockroachDB's workload marks it load-only).
	LoadOnly bool
}

// Clause is the condition's clause number: "3.3.2.7".
func (c Condition) Clause() string { return "3.3.2." + strconv.Itoa(c.Number) }

// Conditions are the twelve consistency conditions, in the spec's order
// (clauses 3.3.2.1 to 3.3.2.12).
var Conditions = []Condition{
	{
		Number:  1,
		Text:    "W_YTD = sum(D_YTD) for each warehouse (W_ID = D_W_ID)",
		Audited: true,
		Query: `SELECT w.w_id, w.w_ytd, COALESCE(d.sum_d_ytd, 0) AS sum_d_ytd
FROM warehouse w
LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS sum_d_ytd FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE ABS(w.w_ytd - COALESCE(d.sum_d_ytd, 0)) >= 0.005`,
	},
	{
		Number: 2,
		Text: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for each district (D_W_ID = O_W_ID = NO_W_ID, D_ID = O_D_ID = NO_D_ID); " +
			"NEW-ORDER only for districts that have new orders",
		Audited: true,
		Query: `SELECT d.d_w_id, d.d_id, d.d_next_o_id, o.max_o_id, n.max_no_o_id
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS max_o_id FROM orders GROUP BY o_w_id, o_d_id) o
  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS max_no_o_id FROM new_order GROUP BY no_w_id, no_d_id) n
  ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE COALESCE(o.max_o_id, 0) <> d.d_next_o_id - 1
   OR (n.max_no_o_id IS NOT NULL AND n.max_no_o_id <> d.d_next_o_id - 1)`,
	},
	{
		Number:  3,
		Text:    "max(NO_O_ID) - min(NO_O_ID) + 1 = the number of NEW-ORDER rows, for each district that has new orders",
		Audited: true,
		Query: `SELECT no_w_id, no_d_id, MIN(no_o_id) AS min_no_o_id, MAX(no_o_id) AS max_no_o_id, COUNT(*) AS new_orders
FROM new_order
GROUP BY no_w_id, no_d_id
HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)`,
	},
	{
		Number:  4,
		Text:    "sum(O_OL_CNT) = the number of ORDER-LINE rows, for each district (O_W_ID = OL_W_ID, O_D_ID = OL_D_ID)",
		Audited: true,
		Query: `SELECT d.d_w_id, d.d_id, COALESCE(o.sum_o_ol_cnt, 0) AS sum_o_ol_cnt, COALESCE(l.order_lines, 0) AS order_lines
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS sum_o_ol_cnt FROM orders GROUP BY o_w_id, o_d_id) o
  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT ol_w_id, ol_d_id, COUNT(*) AS order_lines FROM order_line GROUP BY ol_w_id, ol_d_id) l
  ON l.ol_w_id = d.d_w_id AND l.ol_d_id = d.d_id
WHERE COALESCE(o.sum_o_ol_cnt, 0) <> COALESCE(l.order_lines, 0)`,
	},
	{
		Number: 5,
		Text:   "O_CARRIER_ID is null if and only if the order has a NEW-ORDER row ((O_W_ID, O_D_ID, O_ID) = (NO_W_ID, NO_D_ID, NO_O_ID))",
		Query: `SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_carrier_id, n.no_o_id
FROM orders o
LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
WHERE (o.o_carrier_id IS NULL AND n.no_o_id IS NULL)
   OR (o.o_carrier_id IS NOT NULL AND n.no_o_id IS NOT NULL)`,
	},
	{
		Number: 6,
		Text:   "O_OL_CNT = the number of the order's ORDER-LINE rows ((O_W_ID, O_D_ID, O_ID) = (OL_W_ID, OL_D_ID, OL_O_ID))",
		Query: `SELECT o.o_w_id, o.o_d_id, o.o_id, o.o_ol_cnt, COALESCE(l.order_lines, 0) AS order_lines
FROM orders o
LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS order_lines FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
WHERE COALESCE(l.order_lines, 0) <> o.o_ol_cnt`,
	},
	{
		Number: 7,
		Text:   "OL_DELIVERY_D is null if and only if the order's O_CARRIER_ID is null ((O_W_ID, O_D_ID, O_ID) = (OL_W_ID, OL_D_ID, OL_O_ID))",
		Query: `SELECT l.ol_w_id, l.ol_d_id, l.ol_o_id, l.ol_number, l.ol_delivery_d, o.o_carrier_id
FROM order_line l
JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id
WHERE (l.ol_delivery_d IS NULL AND o.o_carrier_id IS NOT NULL)
   OR (l.ol_delivery_d IS NOT NULL AND o.o_carrier_id IS NULL)`,
	},
	{
		Number: 8,
		Text:   "W_YTD = sum(H_AMOUNT) for each warehouse (W_ID = H_W_ID)",
		Query: `SELECT w.w_id, w.w_ytd, COALESCE(h.sum_h_amount, 0) AS sum_h_amount
FROM warehouse w
LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS sum_h_amount FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE ABS(w.w_ytd - COALESCE(h.sum_h_amount, 0)) >= 0.005`,
	},
	{
		Number: 9,
		Text:   "D_YTD = sum(H_AMOUNT) for each district ((D_W_ID, D_ID) = (H_W_ID, H_D_ID))",
		Query: `SELECT d.d_w_id, d.d_id, d.d_ytd, COALESCE(h.sum_h_amount, 0) AS sum_h_amount
FROM district d
LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS sum_h_amount FROM history GROUP BY h_w_id, h_d_id) h
  ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
WHERE ABS(d.d_ytd - COALESCE(h.sum_h_amount, 0)) >= 0.005`,
	},
	{
		Number: 10,
		Text: "C_BALANCE = sum(OL_AMOUNT) - sum(H_AMOUNT) for each customer: its delivered order lines " +
			"and its payments ((C_W_ID, C_D_ID, C_ID) = (H_C_W_ID, H_C_D_ID, H_C_ID))",
		// Conditions 10 and 12 add up each customer's rows from several
		// tables in one grouping over a UNION ALL, rather than join
		// per-customer sums to CUSTOMER: the join, without go-tpc's index on
		// (o_w_id, o_d_id, o_c_id), made MariaDB 10.11 sum a district's
		// orders once per customer (its split materialization) and run for
		// many minutes on one warehouse; the grouping takes seconds anywhere.
		Query: `SELECT w_id, d_id, c_id, SUM(balance) AS c_balance, SUM(ol) AS sum_ol_amount, SUM(h) AS sum_h_amount
FROM (SELECT c_w_id AS w_id, c_d_id AS d_id, c_id, c_balance AS balance, 0 AS ol, 0 AS h FROM customer
      UNION ALL
      SELECT o.o_w_id, o.o_d_id, o.o_c_id, 0, l.ol_amount, 0
      FROM orders o
      JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
      WHERE l.ol_delivery_d IS NOT NULL
      UNION ALL
      SELECT h_c_w_id, h_c_d_id, h_c_id, 0, 0, h_amount FROM history) u
GROUP BY w_id, d_id, c_id
HAVING ABS(SUM(balance) - (SUM(ol) - SUM(h))) >= 0.005`,
	},
	{
		Number: 11,
		Text: "(count(*) from ORDER) - (count(*) from NEW-ORDER) = 2100 for each district " +
			"((O_W_ID, O_D_ID) = (NO_W_ID, NO_D_ID) = (C_W_ID, C_D_ID))",
		LoadOnly: true,
		Query: `SELECT d.d_w_id, d.d_id, COALESCE(o.order_count, 0) AS order_count, COALESCE(n.new_order_count, 0) AS new_order_count
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS order_count FROM orders GROUP BY o_w_id, o_d_id) o
  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS new_order_count FROM new_order GROUP BY no_w_id, no_d_id) n
  ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE COALESCE(o.order_count, 0) - COALESCE(n.new_order_count, 0) <> 2100`,
	},
	{
		Number: 12,
		Text:   "C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT) of the customer's delivered order lines (for any customer)",
		Query: `SELECT w_id, d_id, c_id, SUM(balance) AS c_balance, SUM(ytd) AS c_ytd_payment, SUM(ol) AS sum_ol_amount
FROM (SELECT c_w_id AS w_id, c_d_id AS d_id, c_id, c_balance AS balance, c_ytd_payment AS ytd, 0 AS ol FROM customer
      UNION ALL
      SELECT o.o_w_id, o.o_d_id, o.o_c_id, 0, 0, l.ol_amount
      FROM orders o
      JOIN order_line l ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
      WHERE l.ol_delivery_d IS NOT NULL) u
GROUP BY w_id, d_id, c_id
HAVING ABS(SUM(balance) + SUM(ytd) - SUM(ol)) >= 0.005`,
	},
}
