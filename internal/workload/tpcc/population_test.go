package tpcc

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	loadConstants = Constants{CLast: 157, CID: 1000, OLIID: 7000}
	loadTime      = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
)

// census is what one pass over a one-warehouse population found: row
// counts, a few tallies, and every broken rule by topic. The pass keeps
// aggregates only, never a table.
type census struct {
	rows     map[string]int
	problems map[string][]string

	itemOriginal, itemOriginalFirstHalf   int
	stockOriginal, stockOriginalFirstHalf int
	badCredit                             [DistrictsPerWarehouse + 1]int
	lines                                 [MaxLines + 1]int // orders by O_OL_CNT
	shuffled                              int               // districts whose orders' customers are not in order
	districtHistory                       Money             // the last district's sum(H_AMOUNT)
}

func (c *census) fail(topic, format string, args ...any) {
	if len(c.problems[topic]) < 10 { // enough to see the pattern
		c.problems[topic] = append(c.problems[topic], fmt.Sprintf(format, args...))
	}
}

// check fails t with the census's problems on these topics.
func (c *census) check(t *testing.T, topics ...string) {
	t.Helper()
	for _, topic := range topics {
		for _, p := range c.problems[topic] {
			t.Errorf("%s: %s", topic, p)
		}
	}
}

var (
	censusOnce sync.Once
	theCensus  *census
)

// oneWarehouse generates warehouse 1's population once for all the tests.
func oneWarehouse(t *testing.T) *census {
	t.Helper()
	censusOnce.Do(func() { theCensus = takeCensus(NewSeeded(1992, 1, loadConstants), 1) })
	return theCensus
}

// takeCensus ranges over warehouse w's whole population (and the items),
// checks each row against clause 4.3.3.1 and evaluates the twelve
// consistency conditions of clause 3.3.2 in Go, the way the queries of
// Conditions do in SQL: "a database, when populated as defined in Clause
// 4.3, must meet all of these consistency conditions".
func takeCensus(r *Rand, w int) *census {
	c := &census{rows: map[string]int{}, problems: map[string][]string{}}
	names := map[string]bool{}
	for n := range 1000 {
		names[LastName(n)] = true
	}

	for it := range Items(r) {
		c.rows["item"]++
		if it.IID != c.rows["item"] || it.IMID < 1 || it.IMID > 10000 || it.IPrice < 100 || it.IPrice > 10000 ||
			len(it.IName) < 14 || len(it.IName) > 24 || len(it.IData) < 26 || len(it.IData) > 50 {
			c.fail("item", "%+v", it)
		}
		if strings.Contains(it.IData, originalMark) {
			c.itemOriginal++
			if it.IID <= NumItems/2 {
				c.itemOriginalFirstHalf++
			}
		}
	}

	wh := MakeWarehouse(r, w)
	c.rows["warehouse"]++
	if wh.WID != w || wh.WYTD != 300000_00 || wh.WTax < 0 || wh.WTax > 2000 || len(wh.WState) != 2 || len(wh.WZip) != 9 {
		c.fail("warehouse", "%+v", wh)
	}
	var sumDYTD, sumHAmount Money
	for d := range Districts(r, w) {
		c.rows["district"]++
		if d.DID != c.rows["district"] || d.DWID != w || d.DYTD != 30000_00 || d.DNextOID != 3001 || d.DTax < 0 || d.DTax > 2000 {
			c.fail("district", "%+v", d)
		}
		sumDYTD += d.DYTD
		c.district(r, w, d, names)
		sumHAmount += c.districtHistory
	}
	if wh.WYTD != sumDYTD {
		c.fail("3.3.2.1", "W_YTD %v, sum(D_YTD) %v", wh.WYTD, sumDYTD)
	}
	if wh.WYTD != sumHAmount {
		c.fail("3.3.2.8", "W_YTD %v, sum(H_AMOUNT) %v", wh.WYTD, sumHAmount)
	}

	for s := range Stocks(r, w) {
		c.rows["stock"]++
		if s.SIID != c.rows["stock"] || s.SWID != w || s.SQuantity < 10 || s.SQuantity > 100 || s.SYTD != 0 || s.SOrderCnt != 0 ||
			s.SRemoteCnt != 0 || len(s.SData) < 26 || len(s.SData) > 50 {
			c.fail("stock", "%+v", s)
		}
		for d := 1; d <= DistrictsPerWarehouse; d++ {
			if len(s.Dist(d)) != 24 {
				c.fail("stock", "S_DIST_%02d %q", d, s.Dist(d))
			}
		}
		if strings.Contains(s.SData, originalMark) {
			c.stockOriginal++
			if s.SIID <= StockPerWarehouse/2 {
				c.stockOriginalFirstHalf++
			}
		}
	}
	return c
}

// district checks district d's customers, history, orders, order lines and
// new orders, and the conditions within a district.
func (c *census) district(r *Rand, w int, d District, names map[string]bool) {
	const n = CustomersPerDistrict
	var balance, ytd, paid, delivered [n + 1]Money
	for x := range Customers(r, w, d.DID, loadTime) {
		c.rows["customer"]++
		if x.CWID != w || x.CDID != d.DID || x.CMiddle != "OE" || x.CCreditLim != 50000_00 || x.CDiscount < 0 || x.CDiscount > 5000 ||
			x.CPaymentCnt != 1 || x.CDeliveryCnt != 0 || !x.CSince.Equal(loadTime) || len(x.CPhone) != 16 ||
			len(x.CData) < 300 || len(x.CData) > 500 || len(x.CFirst) < 8 || len(x.CFirst) > 16 {
			c.fail("customer", "%+v", x)
		}
		if x.CID <= 1000 && x.CLast != LastName(x.CID-1) || !names[x.CLast] {
			c.fail("last name", "customer %d of district %d: %q", x.CID, d.DID, x.CLast)
		}
		switch x.CCredit {
		case "BC":
			c.badCredit[d.DID]++
		case "GC":
		default:
			c.fail("customer", "C_CREDIT %q", x.CCredit)
		}
		balance[x.CID], ytd[x.CID] = x.CBalance, x.CYTDPayment
	}

	c.districtHistory = 0
	for h := range Histories(r, w, d.DID, loadTime) {
		c.rows["history"]++
		if h.HCWID != w || h.HWID != w || h.HCDID != d.DID || h.HDID != d.DID || h.HAmount != 10_00 || len(h.HData) < 12 || len(h.HData) > 24 {
			c.fail("history", "%+v", h)
		}
		paid[h.HCID] += h.HAmount
		c.districtHistory += h.HAmount
	}
	if d.DYTD != c.districtHistory {
		c.fail("3.3.2.9", "district %d: D_YTD %v, sum(H_AMOUNT) %v", d.DID, d.DYTD, c.districtHistory)
	}

	var customerSeen [n + 1]bool
	var undelivered []int
	orders, maxOID, sumOLCnt, lines, inOrder := 0, 0, 0, 0, true
	for o := range Orders(r, w, d.DID, loadTime) {
		orders++
		c.rows["orders"]++
		maxOID = max(maxOID, o.OID)
		if o.OID != orders || o.OWID != w || o.ODID != d.DID || o.OAllLocal != 1 || !o.OEntryD.Equal(loadTime) {
			c.fail("orders", "%+v", o)
		}
		if o.OCID < 1 || o.OCID > n || customerSeen[o.OCID] {
			c.fail("permutation", "district %d: order %d's customer %d is out of range or taken", d.DID, o.OID, o.OCID)
		} else {
			customerSeen[o.OCID] = true
		}
		inOrder = inOrder && o.OCID == o.OID
		if o.OOLCnt < MinLines || o.OOLCnt > MaxLines {
			c.fail("ol_cnt", "order %d: O_OL_CNT %d", o.OID, o.OOLCnt)
		} else {
			c.lines[o.OOLCnt]++
		}
		if o.Delivered() != (o.OID < FirstNewOrder) || o.Delivered() && (o.OCarrierID < 1 || o.OCarrierID > 10) {
			c.fail("new orders", "order %d: O_CARRIER_ID %d", o.OID, o.OCarrierID)
		}
		if !o.Delivered() {
			undelivered = append(undelivered, o.OID)
		}
		sumOLCnt += o.OOLCnt
		if len(o.Lines) != o.OOLCnt {
			c.fail("3.3.2.6", "order %d: O_OL_CNT %d, %d lines", o.OID, o.OOLCnt, len(o.Lines))
		}
		for i, l := range o.Lines {
			c.rows["order_line"]++
			lines++
			if l.OLOID != o.OID || l.OLDID != d.DID || l.OLWID != w || l.OLNumber != i+1 || l.OLSupplyWID != w || l.OLQuantity != 5 ||
				l.OLIID < 1 || l.OLIID > NumItems || len(l.OLDistInfo) != 24 {
				c.fail("order_line", "%+v", l)
			}
			if l.OLDeliveryD.IsZero() == o.Delivered() {
				c.fail("3.3.2.7", "order %d line %d: OL_DELIVERY_D %v, O_CARRIER_ID %d", o.OID, l.OLNumber, l.OLDeliveryD, o.OCarrierID)
			}
			if o.Delivered() && (l.OLAmount != 0 || !l.OLDeliveryD.Equal(loadTime)) ||
				!o.Delivered() && (l.OLAmount < 1 || l.OLAmount > 999999) {
				c.fail("new orders", "order %d line %d: OL_AMOUNT %v, OL_DELIVERY_D %v", o.OID, l.OLNumber, l.OLAmount, l.OLDeliveryD)
			}
			if !l.OLDeliveryD.IsZero() {
				delivered[o.OCID] += l.OLAmount
			}
		}
	}
	if !inOrder {
		c.shuffled++
	}

	var newOrders []int
	for no := range NewOrders(w, d.DID) {
		c.rows["new_order"]++
		if no.NOWID != w || no.NODID != d.DID {
			c.fail("new orders", "%+v", no)
		}
		newOrders = append(newOrders, no.NOOID)
	}
	// 3.3.2.5: O_CARRIER_ID null exactly for the orders in NEW-ORDER, and
	// those are the last 900.
	if !slices.Equal(undelivered, newOrders) || len(newOrders) != NewOrdersPerDistrict || newOrders[0] != FirstNewOrder {
		c.fail("3.3.2.5", "district %d: undelivered orders %v…, new orders %v…", d.DID, head(undelivered), head(newOrders))
	}
	if len(newOrders) > 0 {
		lo, hi := slices.Min(newOrders), slices.Max(newOrders)
		if d.DNextOID-1 != maxOID || d.DNextOID-1 != hi {
			c.fail("3.3.2.2", "district %d: D_NEXT_O_ID %d, max(O_ID) %d, max(NO_O_ID) %d", d.DID, d.DNextOID, maxOID, hi)
		}
		if hi-lo+1 != len(newOrders) {
			c.fail("3.3.2.3", "district %d: new orders %d to %d, %d rows", d.DID, lo, hi, len(newOrders))
		}
	}
	if sumOLCnt != lines {
		c.fail("3.3.2.4", "district %d: sum(O_OL_CNT) %d, %d order lines", d.DID, sumOLCnt, lines)
	}
	if orders-len(newOrders) != 2100 {
		c.fail("3.3.2.11", "district %d: %d orders, %d new orders", d.DID, orders, len(newOrders))
	}
	for id := 1; id <= n; id++ {
		if !customerSeen[id] {
			c.fail("permutation", "district %d: customer %d has no order", d.DID, id)
		}
		if balance[id] != delivered[id]-paid[id] {
			c.fail("3.3.2.10", "customer (%d, %d): C_BALANCE %v, delivered %v, paid %v", d.DID, id, balance[id], delivered[id], paid[id])
		}
		if balance[id]+ytd[id] != delivered[id] {
			c.fail("3.3.2.12", "customer (%d, %d): C_BALANCE %v + C_YTD_PAYMENT %v, delivered %v", d.DID, id, balance[id], ytd[id], delivered[id])
		}
	}
}

func head(s []int) []int { return s[:min(3, len(s))] }

// TestCardinalities counts one warehouse's rows against clauses 1.2 and
// 4.3.3.1 and against Tables.
func TestCardinalities(t *testing.T) {
	c := oneWarehouse(t)
	want := map[string]int{"item": 100000, "warehouse": 1, "district": 10, "customer": 30000, "history": 30000,
		"orders": 30000, "new_order": 9000, "stock": 100000}
	for _, tb := range Tables {
		got := c.rows[tb.Name]
		if tb.Approximate {
			// ORDER-LINE: 30,000 orders of 5 to 15 lines, σ ≈ 550 around 300,000
			if tb.Name != "order_line" || tb.Rows(1) != 300000 || got < 297000 || got > 303000 {
				t.Errorf("%s: %d rows, want about %d", tb.Name, got, tb.Rows(1))
			}
			continue
		}
		if got != want[tb.Name] || tb.Rows(1) != want[tb.Name] {
			t.Errorf("%s: %d rows generated, Tables says %d, want %d", tb.Name, got, tb.Rows(1), want[tb.Name])
		}
	}
	if n := Tables[len(Tables)-1]; n.Name != "item" || n.Rows(10) != 100000 {
		t.Errorf("ITEM at 10 warehouses: %d rows", n.Rows(10))
	}
	if len(Tables) != 9 || len(c.rows) != 9 {
		t.Errorf("%d tables, %d generated", len(Tables), len(c.rows))
	}
	c.check(t, "item", "warehouse", "district", "customer", "history", "orders", "order_line", "stock")
}

// TestOriginal: exactly 10 % of ITEM and of STOCK hold ORIGINAL, spread
// over the table rather than bunched.
func TestOriginal(t *testing.T) {
	c := oneWarehouse(t)
	for _, x := range []struct {
		table            string
		n, firstHalf, of int
	}{{"item", c.itemOriginal, c.itemOriginalFirstHalf, NumItems}, {"stock", c.stockOriginal, c.stockOriginalFirstHalf, StockPerWarehouse}} {
		if x.n < x.of*95/1000 || x.n > x.of*105/1000 {
			t.Errorf("%s: %d of %d rows hold ORIGINAL, want 10 %%", x.table, x.n, x.of)
		}
		if x.firstHalf < x.n*45/100 || x.firstHalf > x.n*55/100 {
			t.Errorf("%s: %d of the %d ORIGINAL rows in the first half", x.table, x.firstHalf, x.n)
		}
	}
}

// TestBadCredit: C_CREDIT is "BC" for 10 % of each district's customers.
func TestBadCredit(t *testing.T) {
	c := oneWarehouse(t)
	for d := 1; d <= DistrictsPerWarehouse; d++ {
		if n := c.badCredit[d]; n < 270 || n > 330 {
			t.Errorf("district %d: %d customers of 3000 with bad credit, want 10 %%", d, n)
		}
	}
	c.check(t, "customer")
}

func TestLastNames(t *testing.T) {
	oneWarehouse(t).check(t, "last name")
}

// TestOrdersPermuteCustomers: each district's 3,000 orders belong to its
// 3,000 customers, one each, in a random order.
func TestOrdersPermuteCustomers(t *testing.T) {
	c := oneWarehouse(t)
	c.check(t, "permutation")
	if c.shuffled != DistrictsPerWarehouse {
		t.Errorf("%d districts' orders are not in customer order, want all %d", c.shuffled, DistrictsPerWarehouse)
	}
}

// TestNewOrdersAreTheLast900: orders 2,101 to 3,000 of each district are
// undelivered and in NEW-ORDER, the others delivered.
func TestNewOrdersAreTheLast900(t *testing.T) {
	oneWarehouse(t).check(t, "new orders", "3.3.2.5")
}

// TestOrderLineCount: O_OL_CNT within [5 .. 15], every value used, mean 10.
func TestOrderLineCount(t *testing.T) {
	c := oneWarehouse(t)
	c.check(t, "ol_cnt")
	orders, lines := 0, 0
	for n := MinLines; n <= MaxLines; n++ {
		if c.lines[n] < 2000 { // 30,000 / 11 ≈ 2,727 each
			t.Errorf("%d orders of %d lines", c.lines[n], n)
		}
		orders += c.lines[n]
		lines += n * c.lines[n]
	}
	if mean := float64(lines) / float64(orders); mean < 9.9 || mean > 10.1 {
		t.Errorf("mean O_OL_CNT %.3f, want 10", mean)
	}
}

// TestInitialPopulationIsConsistent: the generated population meets the
// twelve conditions (clause 3.3.2), evaluated in Go by the census.
func TestInitialPopulationIsConsistent(t *testing.T) {
	c := oneWarehouse(t)
	for _, cond := range Conditions {
		c.check(t, cond.Clause())
	}
}

// TestDeterminism: one seed makes the same rows, another different ones.
func TestDeterminism(t *testing.T) {
	gen := func(seed uint64) []any {
		r := NewSeeded(seed, 3, loadConstants)
		var out []any
		for it := range Items(r) {
			if it.IID > 2000 {
				break
			}
			out = append(out, it)
		}
		out = append(out, MakeWarehouse(r, 2))
		out = append(out, slices.Collect(Districts(r, 2)))
		for x := range Customers(r, 2, 3, loadTime) {
			if x.CID > 1500 {
				break
			}
			out = append(out, x)
		}
		out = append(out, slices.Collect(Histories(r, 2, 3, loadTime)))
		out = append(out, slices.Collect(Orders(r, 2, 3, loadTime)))
		for s := range Stocks(r, 2) {
			if s.SIID > 1000 {
				break
			}
			out = append(out, s)
		}
		return out
	}
	a, b, other := gen(42), gen(42), gen(43)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed made different rows")
	}
	for i := range a {
		if reflect.DeepEqual(a[i], other[i]) {
			t.Errorf("seeds 42 and 43 made the same %T", a[i])
		}
	}
}

// TestRowsMatchTables: each row type has one field per column of its table,
// in Tables' order, named by its db tag.
func TestRowsMatchTables(t *testing.T) {
	types := map[string]reflect.Type{
		"warehouse": reflect.TypeFor[Warehouse](), "district": reflect.TypeFor[District](), "customer": reflect.TypeFor[Customer](),
		"history": reflect.TypeFor[History](), "new_order": reflect.TypeFor[NewOrder](), "orders": reflect.TypeFor[Order](),
		"order_line": reflect.TypeFor[OrderLine](), "stock": reflect.TypeFor[Stock](), "item": reflect.TypeFor[Item](),
	}
	for _, tb := range Tables {
		typ, ok := types[tb.Name]
		if !ok {
			t.Errorf("table %s has no row type", tb.Name)
			continue
		}
		var cols []string
		for f := range typ.Fields() {
			if c := f.Tag.Get("db"); c != "" {
				cols = append(cols, c)
			}
		}
		if !slices.Equal(cols, tb.Columns) {
			t.Errorf("%s: fields %v, columns %v", tb.Name, cols, tb.Columns)
		}
	}
}

func TestMoney(t *testing.T) {
	for v, want := range map[Money]string{300000_00: "300000.00", -10_00: "-10.00", -5: "-0.05", 0: "0.00", 1: "0.01", 999999: "9999.99"} {
		if got := v.String(); got != want {
			t.Errorf("Money(%d) = %q, want %q", int64(v), got, want)
		}
	}
	for v, want := range map[Rate]string{2000: "0.2000", 5: "0.0005", 0: "0.0000", 10000: "1.0000", -1: "-0.0001"} {
		if got := v.String(); got != want {
			t.Errorf("Rate(%d) = %q, want %q", int64(v), got, want)
		}
	}
}

// TestStop: every sequence stops when its consumer does.
func TestStop(t *testing.T) {
	r := NewSeeded(1, 1, loadConstants)
	for range Items(r) {
		break
	}
	for range Districts(r, 1) {
		break
	}
	for range Customers(r, 1, 1, loadTime) {
		break
	}
	for range Histories(r, 1, 1, loadTime) {
		break
	}
	for range Orders(r, 1, 1, loadTime) {
		break
	}
	for range NewOrders(1, 1) {
		break
	}
	for range Stocks(r, 1) {
		break
	}
	s := Stock{SDist01: "a", SDist10: "j"}
	if s.Dist(1) != "a" || s.Dist(10) != "j" {
		t.Errorf("Dist: %q, %q", s.Dist(1), s.Dist(10))
	}
}
