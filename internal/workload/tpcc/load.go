package tpcc

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// metaTable remembers what dbgauge loaded: the warehouse count and the
// load's NURand constants, which the run's C_LAST is chosen against
// (clause 2.1.6.1). A database go-tpc loaded has none; it is reused all
// the same, its constants unknown.
const metaTable = "dbgauge_tpcc"

var (
	countAll = &backend.Stmt{SQL: "SELECT (SELECT count(*) FROM warehouse), (SELECT count(*) FROM district), " +
		"(SELECT count(*) FROM item), (SELECT count(*) FROM stock)"}
	readMeta  = &backend.Stmt{SQL: "SELECT warehouses, c_last, c_id, ol_i_id FROM " + metaTable}
	writeMeta = &backend.Stmt{SQL: "INSERT INTO " + metaTable + " (warehouses, c_last, c_id, ol_i_id) VALUES (?, ?, ?, ?)"}
)

// Load reuses a database holding the initial population of the same
// warehouse count (dbgauge's or go-tpc's) or makes it: the schema, the
// items, then the warehouses in parallel, each by its own connection and
// the engine's fastest path (workload.InsertRows: COPY, multi-row INSERTs,
// row by row on Firebird), then the secondary indexes. The conditions
// --check asks for are checked on a population just made.
func (w *tpcc) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	sdb, err := workload.SQLOf("tpcc", db)
	if err != nil {
		return workload.Dataset{}, err
	}
	c, err := sdb.Conn(ctx)
	if err != nil {
		return workload.Dataset{}, err
	}
	defer c.Close()
	d := sdb.Dialect()
	ds := workload.Dataset{Facts: map[string]string{"warehouses": strconv.Itoa(w.cfg.Warehouses)}}
	if ok, err := w.reusable(ctx, c, d); err != nil {
		return ds, err
	} else if ok {
		ds.Reused = true
		return ds, nil
	}
	start := time.Now()
	if err := w.build(ctx, sdb, c, d); err != nil {
		return ds, fmt.Errorf("tpcc: load %d warehouses: %w", w.cfg.Warehouses, err)
	}
	w.cfg.LoadSeconds = time.Since(start).Seconds()
	ds.Facts["load_seconds"] = strconv.FormatFloat(w.cfg.LoadSeconds, 'f', 1, 64)
	checks, err := w.conditions(ctx, c, true)
	if err != nil {
		return ds, err
	}
	w.loadChecks = checks
	var held []string
	for _, ch := range checks {
		if !ch.OK {
			return ds, fmt.Errorf("tpcc: the population just loaded fails %s: %s", ch.Name, ch.Detail)
		}
		held = append(held, strings.TrimPrefix(ch.Name, "load: condition "))
	}
	ds.Facts["conditions_hold"] = strings.Join(held, " ")
	return ds, nil
}

// reusable says whether the database holds the initial population's
// cardinalities for the configured warehouses, and reads dbgauge's record
// of the load's constants where there is one.
func (w *tpcc) reusable(ctx context.Context, c backend.Conn, d backend.Dialect) (bool, error) {
	var n int64
	if err := c.QueryRow(ctx, &backend.Stmt{SQL: d.HasTable}, []any{"stock"}, &n); err != nil || n == 0 {
		return false, err
	}
	var wh, di, it, st int64
	if err := c.QueryRow(ctx, countAll, nil, &wh, &di, &it, &st); err != nil {
		return false, err
	}
	W := int64(w.cfg.Warehouses)
	if wh != W || di != W*DistrictsPerWarehouse || it != NumItems || st != W*StockPerWarehouse {
		return false, nil
	}
	if err := c.QueryRow(ctx, &backend.Stmt{SQL: d.HasTable}, []any{metaTable}, &n); err != nil {
		return false, err
	}
	if n > 0 {
		var lc Constants
		err := c.QueryRow(ctx, readMeta, nil, &n, &lc.CLast, &lc.CID, &lc.OLIID)
		if err == nil && lc.check() == nil {
			w.cfg.LoadC = &lc
		} else if err != nil && !errors.Is(err, backend.ErrNoRows) {
			return false, err
		}
	}
	return true, nil
}

// build makes the schema and the initial population.
func (w *tpcc) build(ctx context.Context, sdb backend.SQLDB, c backend.Conn, d backend.Dialect) error {
	keys, err := createSchema(ctx, c, d)
	if err != nil {
		return err
	}
	lc := LoadConstants(workload.NewRand(w.common.Seed, 0x10ad))
	w.cfg.LoadC = &lc
	now := time.Now().UTC().Truncate(time.Second)

	var done atomic.Int64
	total := int64(NumItems)
	for _, t := range Tables {
		total += int64(t.PerWarehouse * w.cfg.Warehouses)
	}
	report := func(rows int64) {
		if n := done.Add(rows); w.progress != nil {
			w.progress(n, total)
		}
	}
	if err := insert(ctx, c, d, "item", NumItems, Items(NewSeeded(w.common.Seed, 0, lc)), itemRow, report); err != nil {
		return err
	}
	if err := w.loadWarehouses(ctx, sdb, d, lc, now, report); err != nil {
		return err
	}
	for _, q := range append(keys, createIndexes...) {
		if err := c.ExecScript(ctx, q); err != nil {
			return err
		}
	}
	if d.Name == "postgres" {
		if err := c.ExecScript(ctx, "ANALYZE"); err != nil {
			return err
		}
	}
	_, err = c.Exec(ctx, writeMeta, w.cfg.Warehouses, lc.CLast, lc.CID, lc.OLIID)
	return err
}

// createSchema drops the tables of an earlier load and makes them anew; it
// returns the statements that add the primary keys ddl leaves for after
// the load.
func createSchema(ctx context.Context, c backend.Conn, d backend.Dialect) ([]string, error) {
	for _, t := range append([]string{metaTable}, tableNames()...) {
		var n int64
		if err := c.QueryRow(ctx, &backend.Stmt{SQL: d.HasTable}, []any{t}, &n); err != nil {
			return nil, err
		}
		if n > 0 {
			if err := c.ExecScript(ctx, "DROP TABLE "+t); err != nil {
				return nil, err
			}
		}
	}
	var keys []string
	for _, q := range createTables {
		create, key := ddl(d, q)
		if err := c.ExecScript(ctx, create); err != nil {
			return nil, err
		}
		if key != "" {
			keys = append(keys, key)
		}
	}
	if err := c.ExecScript(ctx, "CREATE TABLE "+metaTable+" (warehouses INTEGER, c_last INTEGER, c_id INTEGER, ol_i_id INTEGER)"); err != nil {
		return nil, err
	}
	return keys, nil
}

// loadWarehouses loads every warehouse's rows, each loader on a connection
// of its own taking the next warehouse; the first error cancels the others.
func (w *tpcc) loadWarehouses(ctx context.Context, sdb backend.SQLDB, d backend.Dialect, lc Constants, now time.Time, report func(int64)) error {
	// One warehouse at a time per loader; SQLite has one writer at a time.
	loaders := min(w.cfg.Warehouses, max(2, runtime.GOMAXPROCS(0)))
	if d.Name == "sqlite" {
		loaders = 1
	}
	w.cfg.Loaders = loaders
	next := atomic.Int64{}
	var wg sync.WaitGroup
	errs := make([]error, loaders)
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := range loaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lc2, err := sdb.Conn(lctx)
			if err != nil {
				errs[i] = err
				cancel()
				return
			}
			defer lc2.Close()
			for {
				wh := int(next.Add(1))
				if wh > w.cfg.Warehouses || lctx.Err() != nil {
					return
				}
				if err := loadWarehouse(lctx, lc2, d, wh, NewSeeded(w.common.Seed, uint64(wh), lc), now, report); err != nil {
					errs[i] = fmt.Errorf("warehouse %d: %w", wh, err)
					cancel()
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func tableNames() []string {
	out := make([]string, len(Tables))
	for i, t := range Tables {
		out[i] = t.Name
	}
	return out
}

// loadWarehouse loads warehouse wh: its row, its districts with their
// customers, history, orders, order lines and new orders, and its stock.
func loadWarehouse(ctx context.Context, c backend.Conn, d backend.Dialect, wh int, r *Rand, now time.Time, report func(int64)) error {
	one := func(yield func(Warehouse) bool) { yield(MakeWarehouse(r, wh)) }
	if err := insert(ctx, c, d, "warehouse", 1, one, warehouseRow, report); err != nil {
		return err
	}
	if err := insert(ctx, c, d, "district", DistrictsPerWarehouse, Districts(r, wh), districtRow, report); err != nil {
		return err
	}
	for di := 1; di <= DistrictsPerWarehouse; di++ {
		if err := insert(ctx, c, d, "customer", CustomersPerDistrict, Customers(r, wh, di, now), customerRow, report); err != nil {
			return err
		}
		if err := insert(ctx, c, d, "history", CustomersPerDistrict, Histories(r, wh, di, now), historyRow, report); err != nil {
			return err
		}
		var orders []Order
		for o := range Orders(r, wh, di, now) {
			orders = append(orders, o)
		}
		if err := insert(ctx, c, d, "orders", len(orders), seqOf(orders), orderRow, report); err != nil {
			return err
		}
		nlines := 0
		for _, o := range orders {
			nlines += len(o.Lines)
		}
		lines := func(yield func(OrderLine) bool) {
			for _, o := range orders {
				for _, l := range o.Lines {
					if !yield(l) {
						return
					}
				}
			}
		}
		if err := insert(ctx, c, d, "order_line", nlines, lines, orderLineRow, report); err != nil {
			return err
		}
		if err := insert(ctx, c, d, "new_order", NewOrdersPerDistrict, NewOrders(wh, di), newOrderRow, report); err != nil {
			return err
		}
	}
	return insert(ctx, c, d, "stock", StockPerWarehouse, Stocks(r, wh), stockRow, report)
}

func seqOf[T any](xs []T) iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, x := range xs {
			if !yield(x) {
				return
			}
		}
	}
}

// insert puts the rows of seq into table, each made into its columns by
// row, through workload.InsertRows; report hears of the rows as they go in.
func insert[T any](ctx context.Context, c backend.Conn, d backend.Dialect, table string, n int, seq iter.Seq[T],
	row func(T, []any), report func(int64)) error {
	var cols []string
	for _, t := range Tables {
		if t.Name == table {
			cols = t.Columns
		}
	}
	next, stop := iter.Pull(seq)
	defer stop()
	var sent int64
	return workload.InsertRows(ctx, c, d, table, cols, int64(n), func(_ int64, dst []any) error {
		x, ok := next()
		if !ok {
			return fmt.Errorf("tpcc: %s has fewer than %d rows", table, n)
		}
		row(x, dst)
		return nil
	}, func(rows int64) { report(rows - sent); sent = rows })
}

func money(m Money) float64 { return float64(m) / 100 }
func rate(r Rate) float64   { return float64(r) / 10000 }

// nullTime is a date, or NULL for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func nullInt(v int) any {
	if v == 0 {
		return nil
	}
	return v
}

func itemRow(x Item, a []any) {
	a[0], a[1], a[2], a[3], a[4] = x.IID, x.IMID, x.IName, money(x.IPrice), x.IData
}

func warehouseRow(x Warehouse, a []any) {
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8] = x.WID, x.WName, x.WStreet1, x.WStreet2, x.WCity, x.WState, x.WZip,
		rate(x.WTax), money(x.WYTD)
}

func districtRow(x District, a []any) {
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10] = x.DID, x.DWID, x.DName, x.DStreet1, x.DStreet2, x.DCity,
		x.DState, x.DZip, rate(x.DTax), money(x.DYTD), x.DNextOID
}

func customerRow(x Customer, a []any) {
	copy(a, []any{x.CID, x.CDID, x.CWID, x.CFirst, x.CMiddle, x.CLast, x.CStreet1, x.CStreet2, x.CCity, x.CState, x.CZip,
		x.CPhone, x.CSince, x.CCredit, money(x.CCreditLim), rate(x.CDiscount), money(x.CBalance), money(x.CYTDPayment),
		x.CPaymentCnt, x.CDeliveryCnt, x.CData})
}

func historyRow(x History, a []any) {
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = x.HCID, x.HCDID, x.HCWID, x.HDID, x.HWID, x.HDate, money(x.HAmount), x.HData
}

func orderRow(x Order, a []any) {
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7] = x.OID, x.ODID, x.OWID, x.OCID, x.OEntryD, nullInt(x.OCarrierID), x.OOLCnt, x.OAllLocal
}

func orderLineRow(x OrderLine, a []any) {
	a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9] = x.OLOID, x.OLDID, x.OLWID, x.OLNumber, x.OLIID, x.OLSupplyWID,
		nullTime(x.OLDeliveryD), x.OLQuantity, money(x.OLAmount), x.OLDistInfo
}

func newOrderRow(x NewOrder, a []any) { a[0], a[1], a[2] = x.NOOID, x.NODID, x.NOWID }

func stockRow(x Stock, a []any) {
	copy(a, []any{x.SIID, x.SWID, x.SQuantity, x.SDist01, x.SDist02, x.SDist03, x.SDist04, x.SDist05, x.SDist06, x.SDist07,
		x.SDist08, x.SDist09, x.SDist10, x.SYTD, x.SOrderCnt, x.SRemoteCnt, x.SData})
}
