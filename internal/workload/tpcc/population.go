package tpcc

import (
	"iter"
	"strconv"
	"time"
)

// The cardinalities of the initial population (clauses 1.2 and 4.3.3.1).
const (
	NumItems              = 100000 // ITEM, whatever the warehouse count
	StockPerWarehouse     = 100000 // STOCK: one row per item
	DistrictsPerWarehouse = 10
	CustomersPerDistrict  = 3000 // and one HISTORY row each
	OrdersPerDistrict     = 3000 // one per customer
	NewOrdersPerDistrict  = 900  // the last 900 orders, not yet delivered
	// FirstNewOrder is the first undelivered order of a district: orders
	// below it have a carrier and delivered lines (clause 4.3.3.1).
	FirstNewOrder = OrdersPerDistrict - NewOrdersPerDistrict + 1 // 2101
	// MinLines and MaxLines bound an order's O_OL_CNT (clause 4.3.3.1).
	MinLines = 5
	MaxLines = 15
)

// Money is an amount in cents: the spec's signed numeric(n, 2) columns
// (W_YTD, D_YTD, C_BALANCE, I_PRICE, OL_AMOUNT, H_AMOUNT, …; clause 1.3) as
// an exact integer. Floats cannot hold 0.01 exactly, and the consistency
// conditions (clause 3.3.2) compare sums of amounts for equality, so the
// transactions must add cents, not approximations of them; an int64 does
// that with no dependency and holds any numeric(12, 2). String gives the
// exact decimal literal a DECIMAL column takes on every engine (go-tpc's
// columns are DECIMAL(12, 2), DECIMAL(6, 2), DECIMAL(5, 2)).
type Money int64

// String is the amount as a decimal with two places: "-10.00".
func (m Money) String() string { return fixed(int64(m), 2) }

// Rate is a fraction in ten-thousandths: the spec's numeric(4, 4) columns
// W_TAX, D_TAX and C_DISCOUNT (clause 1.3), exact for the same reasons as
// Money; go-tpc's columns are DECIMAL(4, 4).
type Rate int64

// String is the fraction as a decimal with four places: "0.1234".
func (r Rate) String() string { return fixed(int64(r), 4) }

// fixed writes v / 10^places as a decimal with that many places.
func fixed(v int64, places int) string {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	for len(s) <= places {
		s = "0" + s
	}
	s = s[:len(s)-places] + "." + s[len(s)-places:]
	if neg {
		s = "-" + s
	}
	return s
}

// The rows of the nine tables, one field per column with the column's name
// (go-tpc's, which are the spec's: clause 1.3) in its db tag. Text columns
// are strings, identifiers and counts ints, dates time.Time, amounts Money,
// rates Rate. Two columns may be NULL; their zero value stands for it
// (O_CARRIER_ID is otherwise in [1 .. 10], OL_DELIVERY_D a real date).

// Warehouse is a WAREHOUSE row.
type Warehouse struct {
	WID      int    `db:"w_id"`
	WName    string `db:"w_name"`
	WStreet1 string `db:"w_street_1"`
	WStreet2 string `db:"w_street_2"`
	WCity    string `db:"w_city"`
	WState   string `db:"w_state"`
	WZip     string `db:"w_zip"`
	WTax     Rate   `db:"w_tax"`
	WYTD     Money  `db:"w_ytd"`
}

// District is a DISTRICT row.
type District struct {
	DID      int    `db:"d_id"`
	DWID     int    `db:"d_w_id"`
	DName    string `db:"d_name"`
	DStreet1 string `db:"d_street_1"`
	DStreet2 string `db:"d_street_2"`
	DCity    string `db:"d_city"`
	DState   string `db:"d_state"`
	DZip     string `db:"d_zip"`
	DTax     Rate   `db:"d_tax"`
	DYTD     Money  `db:"d_ytd"`
	DNextOID int    `db:"d_next_o_id"`
}

// Customer is a CUSTOMER row.
type Customer struct {
	CID          int       `db:"c_id"`
	CDID         int       `db:"c_d_id"`
	CWID         int       `db:"c_w_id"`
	CFirst       string    `db:"c_first"`
	CMiddle      string    `db:"c_middle"`
	CLast        string    `db:"c_last"`
	CStreet1     string    `db:"c_street_1"`
	CStreet2     string    `db:"c_street_2"`
	CCity        string    `db:"c_city"`
	CState       string    `db:"c_state"`
	CZip         string    `db:"c_zip"`
	CPhone       string    `db:"c_phone"`
	CSince       time.Time `db:"c_since"`
	CCredit      string    `db:"c_credit"` // "GC" good, "BC" bad
	CCreditLim   Money     `db:"c_credit_lim"`
	CDiscount    Rate      `db:"c_discount"`
	CBalance     Money     `db:"c_balance"`
	CYTDPayment  Money     `db:"c_ytd_payment"`
	CPaymentCnt  int       `db:"c_payment_cnt"`
	CDeliveryCnt int       `db:"c_delivery_cnt"`
	CData        string    `db:"c_data"`
}

// History is a HISTORY row.
type History struct {
	HCID    int       `db:"h_c_id"`
	HCDID   int       `db:"h_c_d_id"`
	HCWID   int       `db:"h_c_w_id"`
	HDID    int       `db:"h_d_id"`
	HWID    int       `db:"h_w_id"`
	HDate   time.Time `db:"h_date"`
	HAmount Money     `db:"h_amount"`
	HData   string    `db:"h_data"`
}

// NewOrder is a NEW-ORDER row (table new_order).
type NewOrder struct {
	NOOID int `db:"no_o_id"`
	NODID int `db:"no_d_id"`
	NOWID int `db:"no_w_id"`
}

// Order is an ORDER row (table orders, as go-tpc names it: ORDER is a
// reserved word) and, in Lines, its O_OL_CNT ORDER-LINE rows.
type Order struct {
	OID        int       `db:"o_id"`
	ODID       int       `db:"o_d_id"`
	OWID       int       `db:"o_w_id"`
	OCID       int       `db:"o_c_id"`
	OEntryD    time.Time `db:"o_entry_d"`
	OCarrierID int       `db:"o_carrier_id"` // 0: NULL, not delivered
	OOLCnt     int       `db:"o_ol_cnt"`
	OAllLocal  int       `db:"o_all_local"`

	Lines []OrderLine // the order's lines, OL_NUMBER 1 to O_OL_CNT
}

// Delivered reports whether the order has been delivered: it has a
// carrier; otherwise it is in NEW-ORDER (consistency condition 3.3.2.5).
func (o Order) Delivered() bool { return o.OCarrierID != 0 }

// OrderLine is an ORDER-LINE row (table order_line).
type OrderLine struct {
	OLOID       int       `db:"ol_o_id"`
	OLDID       int       `db:"ol_d_id"`
	OLWID       int       `db:"ol_w_id"`
	OLNumber    int       `db:"ol_number"`
	OLIID       int       `db:"ol_i_id"`
	OLSupplyWID int       `db:"ol_supply_w_id"`
	OLDeliveryD time.Time `db:"ol_delivery_d"` // zero: NULL, not delivered
	OLQuantity  int       `db:"ol_quantity"`
	OLAmount    Money     `db:"ol_amount"`
	OLDistInfo  string    `db:"ol_dist_info"`
}

// Item is an ITEM row.
type Item struct {
	IID    int    `db:"i_id"`
	IMID   int    `db:"i_im_id"`
	IName  string `db:"i_name"`
	IPrice Money  `db:"i_price"`
	IData  string `db:"i_data"`
}

// Stock is a STOCK row.
type Stock struct {
	SIID       int    `db:"s_i_id"`
	SWID       int    `db:"s_w_id"`
	SQuantity  int    `db:"s_quantity"`
	SDist01    string `db:"s_dist_01"`
	SDist02    string `db:"s_dist_02"`
	SDist03    string `db:"s_dist_03"`
	SDist04    string `db:"s_dist_04"`
	SDist05    string `db:"s_dist_05"`
	SDist06    string `db:"s_dist_06"`
	SDist07    string `db:"s_dist_07"`
	SDist08    string `db:"s_dist_08"`
	SDist09    string `db:"s_dist_09"`
	SDist10    string `db:"s_dist_10"`
	SYTD       int    `db:"s_ytd"`
	SOrderCnt  int    `db:"s_order_cnt"`
	SRemoteCnt int    `db:"s_remote_cnt"`
	SData      string `db:"s_data"`
}

// Dist is S_DIST_xx for district d in [1, 10]: what New-Order copies into
// OL_DIST_INFO (clause 2.4.2.2).
func (s *Stock) Dist(d int) string { return *s.distp(d) }

func (s *Stock) distp(d int) *string {
	switch d {
	case 1:
		return &s.SDist01
	case 2:
		return &s.SDist02
	case 3:
		return &s.SDist03
	case 4:
		return &s.SDist04
	case 5:
		return &s.SDist05
	case 6:
		return &s.SDist06
	case 7:
		return &s.SDist07
	case 8:
		return &s.SDist08
	case 9:
		return &s.SDist09
	case 10:
		return &s.SDist10
	}
	panic("tpcc: S_DIST of district " + strconv.Itoa(d) + ", outside [1, 10]")
}

// Table is a table of the schema: its name and columns (go-tpc's, in its order,
// which is the spec's, clause 1.3) and its initial cardinality.
type Table struct {
	Name    string
	Columns []string
	// Fixed rows whatever the warehouse count, plus PerWarehouse rows for
	// each warehouse (clause 1.2). ORDER-LINE's PerWarehouse is its
	// expected count: 30,000 orders of 5 to 15 lines, 10 on average.
	Fixed, PerWarehouse int
	Approximate         bool // the count is an expectation (ORDER-LINE)
}

// Rows is the table's row count at the given warehouse count after the
// initial population (expected, if Approximate).
func (t Table) Rows(warehouses int) int { return t.Fixed + t.PerWarehouse*warehouses }

// Tables are the nine tables, in the order go-tpc creates them.
var Tables = []Table{
	{Name: "warehouse", PerWarehouse: 1, Columns: []string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"}},
	{Name: "district", PerWarehouse: DistrictsPerWarehouse, Columns: []string{"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2",
		"d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"}},
	{Name: "customer", PerWarehouse: DistrictsPerWarehouse * CustomersPerDistrict, Columns: []string{"c_id", "c_d_id", "c_w_id",
		"c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city", "c_state", "c_zip", "c_phone", "c_since", "c_credit",
		"c_credit_lim", "c_discount", "c_balance", "c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"}},
	{Name: "history", PerWarehouse: DistrictsPerWarehouse * CustomersPerDistrict, Columns: []string{"h_c_id", "h_c_d_id", "h_c_w_id",
		"h_d_id", "h_w_id", "h_date", "h_amount", "h_data"}},
	{Name: "new_order", PerWarehouse: DistrictsPerWarehouse * NewOrdersPerDistrict, Columns: []string{"no_o_id", "no_d_id", "no_w_id"}},
	{Name: "orders", PerWarehouse: DistrictsPerWarehouse * OrdersPerDistrict, Columns: []string{"o_id", "o_d_id", "o_w_id", "o_c_id",
		"o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"}},
	{Name: "order_line", PerWarehouse: DistrictsPerWarehouse * OrdersPerDistrict * (MinLines + MaxLines) / 2, Approximate: true,
		Columns: []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity",
			"ol_amount", "ol_dist_info"}},
	{Name: "stock", PerWarehouse: StockPerWarehouse, Columns: []string{"s_i_id", "s_w_id", "s_quantity",
		"s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05", "s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10",
		"s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"}},
	{Name: "item", Fixed: NumItems, Columns: []string{"i_id", "i_im_id", "i_name", "i_price", "i_data"}},
}

// The generators below make the initial population of clause 4.3.3.1, one
// table (of one warehouse, or one district) at a time, as sequences to range
// over: no table is ever held whole. Each draws from the Rand it is given,
// which must carry the load's constants (C_LAST's makes the last names) and
// be used by one goroutine; its values are drawn in a fixed order, so one
// seed makes the same rows. A sequence draws as it is ranged over: range it
// once. Dates are the load's moment, given by the caller ("the date and time
// given by the operating system when populating the database").

// Items yields the 100,000 ITEM rows (clause 4.3.3.1): I_IM_ID random
// within [1 .. 10,000], I_NAME a random a-string [14 .. 24], I_PRICE random
// within [1.00 .. 100.00], I_DATA a random a-string [26 .. 50] holding
// "ORIGINAL" in exactly 10 % of the rows, chosen at random.
func Items(r *Rand) iter.Seq[Item] {
	return func(yield func(Item) bool) {
		orig := newSample(NumItems/10, NumItems)
		for id := 1; id <= NumItems; id++ {
			it := Item{IID: id}
			it.IMID = r.Int(1, 10000)
			it.IName = r.AString(14, 24)
			it.IPrice = Money(r.Int(100, 10000))
			it.IData = r.Data(orig.next(r))
			if !yield(it) {
				return
			}
		}
	}
}

// MakeWarehouse is warehouse w's WAREHOUSE row (clause 4.3.3.1): W_TAX
// random within [0.0000 .. 0.2000], W_YTD 300,000.00.
func MakeWarehouse(r *Rand, w int) Warehouse {
	x := Warehouse{WID: w}
	x.WName = r.AString(6, 10)
	x.WStreet1 = r.AString(10, 20)
	x.WStreet2 = r.AString(10, 20)
	x.WCity = r.AString(10, 20)
	x.WState = r.AString(2, 2)
	x.WZip = r.Zip()
	x.WTax = Rate(r.Int(0, 2000))
	x.WYTD = 300000_00
	return x
}

// Districts yields warehouse w's ten DISTRICT rows (clause 4.3.3.1): D_TAX
// random within [0.0000 .. 0.2000], D_YTD 30,000.00, D_NEXT_O_ID 3,001.
func Districts(r *Rand, w int) iter.Seq[District] {
	return func(yield func(District) bool) {
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			x := District{DID: d, DWID: w}
			x.DName = r.AString(6, 10)
			x.DStreet1 = r.AString(10, 20)
			x.DStreet2 = r.AString(10, 20)
			x.DCity = r.AString(10, 20)
			x.DState = r.AString(2, 2)
			x.DZip = r.Zip()
			x.DTax = Rate(r.Int(0, 2000))
			x.DYTD = 30000_00
			x.DNextOID = OrdersPerDistrict + 1
			if !yield(x) {
				return
			}
		}
	}
}

// Customers yields district (w, d)'s 3,000 CUSTOMER rows (clause 4.3.3.1):
// C_LAST from the customer's number for the first 1,000 (C_ID − 1, so each
// of the thousand names once) and from NURand(255, 0, 999) with the load's
// C for the other 2,000; C_MIDDLE "OE"; C_CREDIT "BC" for exactly 10 % of
// the rows, chosen at random, "GC" for the others; C_CREDIT_LIM 50,000.00;
// C_DISCOUNT random within [0.0000 .. 0.5000]; C_BALANCE −10.00;
// C_YTD_PAYMENT 10.00; C_PAYMENT_CNT 1; C_DELIVERY_CNT 0; C_SINCE since.
func Customers(r *Rand, w, d int, since time.Time) iter.Seq[Customer] {
	return func(yield func(Customer) bool) {
		bad := newSample(CustomersPerDistrict/10, CustomersPerDistrict)
		for c := 1; c <= CustomersPerDistrict; c++ {
			x := Customer{CID: c, CDID: d, CWID: w, CMiddle: "OE", CSince: since}
			if c <= 1000 {
				x.CLast = LastName(c - 1)
			} else {
				x.CLast = r.LastName()
			}
			x.CFirst = r.AString(8, 16)
			x.CStreet1 = r.AString(10, 20)
			x.CStreet2 = r.AString(10, 20)
			x.CCity = r.AString(10, 20)
			x.CState = r.AString(2, 2)
			x.CZip = r.Zip()
			x.CPhone = r.NString(16, 16)
			x.CCredit = "GC"
			if bad.next(r) {
				x.CCredit = "BC"
			}
			x.CCreditLim = 50000_00
			x.CDiscount = Rate(r.Int(0, 5000))
			x.CBalance = -10_00
			x.CYTDPayment = 10_00
			x.CPaymentCnt = 1
			x.CDeliveryCnt = 0
			x.CData = r.AString(300, 500)
			if !yield(x) {
				return
			}
		}
	}
}

// Histories yields district (w, d)'s 3,000 HISTORY rows, one per customer
// (clause 4.3.3.1): paid by the customer in its own district, H_AMOUNT
// 10.00, H_DATA a random a-string [12 .. 24], H_DATE at.
func Histories(r *Rand, w, d int, at time.Time) iter.Seq[History] {
	return func(yield func(History) bool) {
		for c := 1; c <= CustomersPerDistrict; c++ {
			x := History{HCID: c, HCDID: d, HCWID: w, HDID: d, HWID: w, HDate: at, HAmount: 10_00}
			x.HData = r.AString(12, 24)
			if !yield(x) {
				return
			}
		}
	}
}

// Orders yields district (w, d)'s 3,000 ORDER rows with their ORDER-LINE
// rows (clause 4.3.3.1): O_C_ID from a random permutation of the 3,000
// customers, O_OL_CNT random within [5 .. 15], O_ALL_LOCAL 1, O_ENTRY_D
// entry. Orders 1 to 2,100 are delivered: O_CARRIER_ID random within
// [1 .. 10], their lines' OL_DELIVERY_D the entry date and OL_AMOUNT 0.00.
// The last 900 are not: O_CARRIER_ID and OL_DELIVERY_D NULL, OL_AMOUNT
// random within [0.01 .. 9,999.99], and a NEW-ORDER row each (NewOrders).
// Every line: OL_I_ID random within [1 .. 100,000], OL_SUPPLY_W_ID w,
// OL_QUANTITY 5, OL_DIST_INFO a random a-string of 24.
func Orders(r *Rand, w, d int, entry time.Time) iter.Seq[Order] {
	return func(yield func(Order) bool) {
		customers := r.src.Perm(OrdersPerDistrict)
		for o := 1; o <= OrdersPerDistrict; o++ {
			x := Order{OID: o, ODID: d, OWID: w, OCID: customers[o-1] + 1, OEntryD: entry, OAllLocal: 1}
			delivered := o < FirstNewOrder
			if delivered {
				x.OCarrierID = r.Int(1, 10)
			}
			x.OOLCnt = r.Int(MinLines, MaxLines)
			x.Lines = make([]OrderLine, x.OOLCnt)
			for n := range x.Lines {
				l := OrderLine{OLOID: o, OLDID: d, OLWID: w, OLNumber: n + 1, OLSupplyWID: w, OLQuantity: 5}
				l.OLIID = r.Int(1, NumItems)
				if delivered {
					l.OLDeliveryD = entry
				} else {
					l.OLAmount = Money(r.Int(1, 999999))
				}
				l.OLDistInfo = r.AString(24, 24)
				x.Lines[n] = l
			}
			if !yield(x) {
				return
			}
		}
	}
}

// NewOrders yields district (w, d)'s 900 NEW-ORDER rows, its undelivered
// orders 2,101 to 3,000 (clause 4.3.3.1). It draws nothing.
func NewOrders(w, d int) iter.Seq[NewOrder] {
	return func(yield func(NewOrder) bool) {
		for o := FirstNewOrder; o <= OrdersPerDistrict; o++ {
			if !yield(NewOrder{NOOID: o, NODID: d, NOWID: w}) {
				return
			}
		}
	}
}

// Stocks yields warehouse w's 100,000 STOCK rows, one per item (clause
// 4.3.3.1): S_QUANTITY random within [10 .. 100], S_DIST_01 to S_DIST_10
// random a-strings of 24, S_YTD, S_ORDER_CNT and S_REMOTE_CNT 0, S_DATA a
// random a-string [26 .. 50] holding "ORIGINAL" in exactly 10 % of the rows,
// chosen at random.
func Stocks(r *Rand, w int) iter.Seq[Stock] {
	return func(yield func(Stock) bool) {
		orig := newSample(StockPerWarehouse/10, StockPerWarehouse)
		for i := 1; i <= StockPerWarehouse; i++ {
			x := Stock{SIID: i, SWID: w}
			x.SQuantity = r.Int(10, 100)
			for d := 1; d <= DistrictsPerWarehouse; d++ {
				*x.distp(d) = r.AString(24, 24)
			}
			x.SData = r.Data(orig.next(r))
			if !yield(x) {
				return
			}
		}
	}
}
