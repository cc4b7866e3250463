// Package oltpemul is Firebird QA's OLTP-EMUL (seed 001;
// github.com/FirebirdSQL/oltp-emul, src/oltp30_*.sql) as a dbgauge workload
// on any SQL engine: a trading firm's documents (customer orders, orders
// to suppliers, invoices, reserves, realizations, payments both ways, and
// the cancellation of each), its twenty units drawn as the original draws
// them (srv_random_unit_choice), stock moved through a quantity FIFO of a
// row per unit (qdistr, qstorned) and money through a cost FIFO (pdistr,
// pstorned), insert-only turnover logs that the service units total into
// the saldos and delete, one client at a time under a semaphore row. P is
// the original's: successful units per minute of the measure phase. The
// checks prove the saldos against the documents and the FIFOs against the
// documents' lines.
package oltpemul

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers oltp-emul in the catalog.
var Spec = workload.Spec{
	Name: "oltp-emul",
	Summary: "Firebird QA's OLTP-EMUL: a trading firm's twenty units (orders, invoices, reserves, realizations, payments, their cancellations, " +
		"the services), a FIFO of a row per unit of stock and of money, turnover logs totalled by one client at a time",
	Source: "Firebird QA's OLTP-EMUL, github.com/FirebirdSQL/oltp-emul (P = successful units per minute; its recommended warm_time 30 min and " +
		"test_time 180 min are --warmup 30m --duration 180m, the defaults here are short for a first run)",
	Unit:  "unit",
	Units: "units",
	APIs:  []backend.API{backend.SQL},
	Knobs: []knob.Spec{
		{Name: "working-mode", Uses: knob.ForLoad, Default: "small_03", Kind: knob.Choice, Choices: modeNames(),
			Usage: "the original's working_mode: wares, lines and quantities per customer and supplier document, agents (see docs/workloads/oltp-emul.md)"},
		{Name: "init-docs", Uses: knob.ForLoad, Default: "1000", Kind: knob.Int, Usage: "fill the database up to N documents before the run, with the units that create (no cancellation), reusing those already there"},
		{Name: "separate-workers", Default: "true", Kind: knob.Switch, Usage: "the original's separate_workers: each client works on its own documents and FIFO rows (--separate-workers=false: all on all)"},
		{Name: "update-conflict-percent", Default: "0", Kind: knob.Int, Values: "0..100", Usage: "with separate workers, the share of units that take another client's documents (the original's update_conflict_percent)"},
		{Name: "halt-on-errors", Default: "/CK/", Values: "/CK/PK/FK/", Usage: "the original's halt_test_on_errors: stop the run at the first CHECK (CK), unique key (PK) or other constraint (FK) violation; \"\" never"},
		{Name: "actions-before-reconnect", Default: "300", Kind: knob.Int, Usage: "each client reconnects after this many units, between two of them (the original's actions_todo_before_reconnect; 0: never)"},
		{Name: "sleep-min", Default: "0s", Kind: knob.Duration, Usage: "the least pause after each unit, outside its latency (the original's sleep_min)"},
		{Name: "sleep-max", Default: "0s", Kind: knob.Duration, Usage: "the longest pause after each unit, drawn between sleep-min and it (the original's sleep_max; 0: none)"},
		{Name: "recalc-idx-min-interval", Default: "30m", Kind: knob.Duration, Usage: "srv_recalc_idx_stat refreshes the index statistics at most this often (the original's recalc_idx_min_interval; 0: never)"},
		{Name: "reserves-when-add-invoice", Default: "true", Kind: knob.Switch, Usage: "an invoice added to stock reserves it for the customer orders waiting for its wares (the original's ENABLE_RESERVES_WHEN_ADD_INVOICE)"},
		{Name: "our-firm-percent", Default: "25", Kind: knob.Int, Values: "0..100", Usage: "the share of customer orders placed by our own firm, which are never reserved (the original's ORDER_FOR_OUR_FIRM_PERCENT)"},
	},
	Defaults:  map[string]string{"duration": "60s", "warmup": "10s", "retries": "0"},
	New:       newEmul,
	PerMinute: true,
	Commits:   []workload.CommitMode{workload.PerUnit}, // a unit is one transaction
}

// mode is one of the original's working modes (oltp_main_filling.sql,
// "Definitions for workload modes").
type mode struct {
	name                                                string
	wares, custRows, suppRows, custQty, suppQty, agents int64
}

var modes = []mode{
	{"debug_01", 1, 1, 1, 2, 5, 1},
	{"debug_02", 2, 2, 3, 5, 5, 7},
	{"debug_03", 3, 3, 5, 4, 8, 10},
	{"debug_04", 10, 5, 30, 5, 30, 15},
	{"debug_1a", 1, 10, 50, 10, 50, 30},
	{"small_01", 100, 5, 20, 5, 20, 300},
	{"small_02", 300, 10, 30, 10, 30, 700},
	{"small_03", 400, 10, 50, 15, 50, 1000},
	{"medium_01", 700, 20, 60, 30, 100, 2000},
	{"medium_02", 1500, 30, 80, 50, 150, 3000},
	{"medium_03", 3000, 50, 100, 70, 200, 5000},
	{"large_01", 5000, 70, 200, 100, 300, 10000},
	{"large_02", 7000, 100, 300, 150, 450, 12000},
	{"large_03", 9000, 150, 400, 200, 600, 15000},
	{"heavy_01", 50000, 250, 500, 300, 900, 20000},
}

func modeNames() []string {
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = m.name
	}
	return out
}

// Config is oltp-emul's typed configuration.
type Config struct {
	WorkingMode            string        `json:"working_mode"`
	Wares                  int64         `json:"wares"`
	CustomerDocMaxRows     int64         `json:"customer_doc_max_rows"`
	SupplierDocMaxRows     int64         `json:"supplier_doc_max_rows"`
	CustomerDocMaxQty      int64         `json:"customer_doc_max_qty"`
	SupplierDocMaxQty      int64         `json:"supplier_doc_max_qty"`
	Agents                 int64         `json:"number_of_agents"`
	InitDocs               int64         `json:"init_docs"`
	SeparateWorkers        bool          `json:"separate_workers"`
	UpdateConflictPercent  int64         `json:"update_conflict_percent"`
	HaltOnErrors           string        `json:"halt_test_on_errors"`
	ActionsBeforeReconnect int64         `json:"actions_todo_before_reconnect"`
	SleepMin               time.Duration `json:"sleep_min"`
	SleepMax               time.Duration `json:"sleep_max"`
	RecalcIdxMinInterval   time.Duration `json:"recalc_idx_min_interval"`
	ReservesWhenAddInvoice bool          `json:"enable_reserves_when_add_invoice"`
	OurFirmPercent         int64         `json:"order_for_our_firm_percent"`
}

// The original's COMMON settings (oltp_main_filling.sql), in currency
// units: the purchase price of a ware, its margin, the payments with no
// realization or invoice to pay, and the cost above which a document's
// cost is split into C_ROWS_TO_MULTIPLY rows of the cost FIFO.
const (
	invoiceMinPurchase   = 1000
	invoiceMaxPurchase   = 2000
	invoiceMinProfitPrc  = 35
	invoiceMaxProfitPrc  = 80
	minCostToBeSplitted  = 1000
	rowsToMultiply       = 10
	paymentFromClientMin = 1000
	paymentFromClientMax = 5000
	paymentToSupplierMin = 2000
	paymentToSupplierMax = 15000
	cents                = 100 // money is kept in cents
	customerRatio        = 0.93
)

type emul struct {
	cfg      Config
	common   workload.Common
	progress func(done, total int64) // --init-docs' fill, when someone listens
	halt     map[dberr.Kind]bool
	dial     backend.Dialect
	st       *stmts
	ids      [nSeq]atomic.Int64 // next id per table
	// The catalogue, as Load found or made it.
	customers, suppliers [2]int64 // first and last id of each
	ourFirm              int64
	// lastRecalc is when srv_recalc_idx_stat last ran (unix nanoseconds):
	// the semaphore's dts, read at Load, kept by the clients.
	lastRecalc atomic.Int64
	txMode     atomic.Pointer[string] // what the engine made of SNAPSHOT NO WAIT
	// semHeld: where the engine's snapshot transactions wait for row locks
	// (Firebird), a semaphore a client of this run holds on a side
	// connection (client.takeSemaphore). Tried, never waited for, it keeps
	// the side connections to one per semaphore, within the pool's spare
	// connections.
	semHeld [semInvntSaldo + 1]sync.Mutex
}

func newEmul(c workload.Common, v *knob.Values) (workload.Workload, error) {
	if c.Commit.Mode != workload.PerUnit {
		return nil, knob.Bad("drop --commit: oltp-emul commits once per unit", "--commit %s: each unit of oltp-emul is one transaction", c.Commit)
	}
	cfg := Config{}
	var err error
	if cfg.WorkingMode, err = v.Choice("working-mode"); err != nil {
		return nil, err
	}
	for _, m := range modes {
		if m.name == cfg.WorkingMode {
			cfg.Wares, cfg.CustomerDocMaxRows, cfg.SupplierDocMaxRows = m.wares, m.custRows, m.suppRows
			cfg.CustomerDocMaxQty, cfg.SupplierDocMaxQty, cfg.Agents = m.custQty, m.suppQty, m.agents
		}
	}
	if cfg.InitDocs, err = v.Int("init-docs", 0, 100_000_000); err != nil {
		return nil, err
	}
	if cfg.SeparateWorkers, err = v.Bool("separate-workers"); err != nil {
		return nil, err
	}
	if cfg.UpdateConflictPercent, err = v.Int("update-conflict-percent", 0, 100); err != nil {
		return nil, err
	}
	if cfg.ActionsBeforeReconnect, err = v.Int("actions-before-reconnect", 0, 1_000_000_000); err != nil {
		return nil, err
	}
	if cfg.SleepMin, err = v.Duration("sleep-min"); err != nil {
		return nil, err
	}
	if cfg.SleepMax, err = v.Duration("sleep-max"); err != nil {
		return nil, err
	}
	if cfg.SleepMax > 0 && cfg.SleepMax < cfg.SleepMin {
		return nil, knob.Bad("give --sleep-max at least --sleep-min", "--sleep-max %s is below --sleep-min %s", cfg.SleepMax, cfg.SleepMin)
	}
	if cfg.RecalcIdxMinInterval, err = v.Duration("recalc-idx-min-interval"); err != nil {
		return nil, err
	}
	if cfg.ReservesWhenAddInvoice, err = v.Bool("reserves-when-add-invoice"); err != nil {
		return nil, err
	}
	if cfg.OurFirmPercent, err = v.Int("our-firm-percent", 0, 100); err != nil {
		return nil, err
	}
	cfg.HaltOnErrors = v.Get("halt-on-errors")
	halt, err := parseHalt(cfg.HaltOnErrors)
	if err != nil {
		return nil, err
	}
	return &emul{cfg: cfg, common: c, halt: halt}, nil
}

// parseHalt reads halt_test_on_errors: mnemonics between slashes, CK (a
// CHECK constraint or a column's validation), PK (a primary or unique
// key), FK (any other constraint: dbgauge's schema has no foreign keys,
// as the original's).
func parseHalt(s string) (map[dberr.Kind]bool, error) {
	out := map[dberr.Kind]bool{}
	for _, m := range strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool { return r == '/' || r == ' ' }) {
		switch m {
		case "CK":
			out[dberr.Check] = true
		case "PK":
			out[dberr.Unique] = true
		case "FK":
			out[dberr.Constraint] = true
		default:
			return nil, knob.Bad("write it as the original does, e.g. --halt-on-errors /CK/PK/, or \"\" to never stop",
				"--halt-on-errors %q: %q is none of CK, PK, FK", s, m)
		}
	}
	return out, nil
}

// SetProgress hears how far --init-docs' fill got, in documents
// (workload.Progresser).
func (w *emul) SetProgress(fn func(done, total int64)) { w.progress = fn }

func (w *emul) Shape() workload.Shape {
	return workload.Shape{Units: weighted(), Ops: []string{"begin", "pick", "lock", "fifo", "write", "log", "commit"}}
}

// The operations inside units.
const (
	opBegin = iota
	opPick
	opLock
	opFifo
	opWrite
	opLog
	opCommit
)

func (w *emul) Config() any { return w.cfg }

// workers is the number of separate workers: the clients, or 0 when they
// share everything (worker_id 0 on every row).
func (w *emul) workers() int64 {
	if !w.cfg.SeparateWorkers {
		return 0
	}
	return int64(max(1, w.common.Clients))
}

// Load creates the schema and the catalogue (wares with their prices, our
// firm, customers, suppliers, the semaphores), then fills the database up
// to --init-docs documents with the units that create documents or move
// them forward, as the original's init_pop does; a database that holds as
// many is reused.
func (w *emul) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	sdb, err := workload.SQLOf("oltp-emul", db)
	if err != nil {
		return workload.Dataset{}, err
	}
	w.dial = sdb.Dialect()
	w.st = newStmts(w.dial)
	c, err := sdb.Conn(ctx)
	if err != nil {
		return workload.Dataset{}, err
	}
	defer c.Close()
	if err := w.oldSchema(ctx, c); err != nil {
		return workload.Dataset{}, err
	}
	if err := createSchema(ctx, c, w.dial); err != nil {
		return workload.Dataset{}, err
	}
	var modeWas string
	err = c.QueryRow(ctx, w.st.getSetting, []any{"working_mode"}, &modeWas)
	reused := err == nil
	switch {
	case errors.Is(err, backend.ErrNoRows):
		if err := w.catalogue(ctx, c); err != nil {
			return workload.Dataset{}, err
		}
	case err != nil:
		return workload.Dataset{}, err
	case modeWas != w.cfg.WorkingMode:
		return workload.Dataset{}, knob.Bad("give --working-mode "+modeWas+", or another --db",
			"the database was filled for working mode %s, not %s", modeWas, w.cfg.WorkingMode)
	}
	if err := w.readCatalogue(ctx, c); err != nil {
		return workload.Dataset{}, err
	}
	if err := w.initIDs(ctx, c); err != nil {
		return workload.Dataset{}, err
	}
	var docs int64
	if err := c.QueryRow(ctx, w.st.countDocs, nil, &docs); err != nil {
		return workload.Dataset{}, err
	}
	before := docs
	t := time.Now()
	if docs < w.cfg.InitDocs {
		if docs, err = w.fill(ctx, c, docs); err != nil {
			return workload.Dataset{}, err
		}
	}
	facts := map[string]string{
		"working_mode": w.cfg.WorkingMode, "wares": strconv.FormatInt(w.cfg.Wares, 10),
		"customers": strconv.FormatInt(w.customers[1]-w.customers[0]+1, 10), "suppliers": strconv.FormatInt(w.suppliers[1]-w.suppliers[0]+1, 10),
		"documents": strconv.FormatInt(docs, 10), "documents_added": strconv.FormatInt(docs-before, 10),
		"fill_seconds": strconv.FormatFloat(time.Since(t).Seconds(), 'f', 1, 64),
	}
	if m := w.txMode.Load(); m != nil {
		facts["transactions"] = *m
	}
	return workload.Dataset{Reused: reused && before > 0, Facts: facts}, nil
}

// oldSchema refuses a database holding the tables of dbgauge's earlier
// oltp-emul (oe_wares without oe_settings), whose shapes differ.
func (w *emul) oldSchema(ctx context.Context, c backend.Conn) error {
	var old, now int64
	if err := c.QueryRow(ctx, &backend.Stmt{SQL: w.dial.HasTable}, []any{"oe_contractors"}, &old); err != nil {
		return err
	}
	if err := c.QueryRow(ctx, &backend.Stmt{SQL: w.dial.HasTable}, []any{"oe_settings"}, &now); err != nil {
		return err
	}
	if old > 0 && now == 0 {
		return knob.Bad("give another --db (or drop its oe_ tables)", "the database holds the tables of an earlier dbgauge's oltp-emul")
	}
	return nil
}

// catalogue inserts the settings, the operation types, the wares with
// their prices (oltp_data_filling.sql: a purchase price rounded to
// hundreds, a retail price 35–80 % above it), the agents (our firm, then
// 93 % customers and the rest suppliers, as the original) and the
// semaphores, in one transaction.
func (w *emul) catalogue(ctx context.Context, c backend.Conn) error {
	rng := workload.NewRand(w.common.Seed, 1)
	return workload.InSQLTx(ctx, c, func() error {
		for _, s := range [][2]string{{"working_mode", w.cfg.WorkingMode}, {"wares", strconv.FormatInt(w.cfg.Wares, 10)}} {
			if _, err := c.Exec(ctx, w.st.insSetting, s[0], s[1]); err != nil {
				return err
			}
		}
		for _, o := range optypes {
			if _, err := c.Exec(ctx, w.st.insOptype, o.id, o.mcode, o.name, o.clo, o.clr, o.ord, o.sup, o.avl, o.res,
				o.costInc, o.costOut, o.custDebt, o.suppDebt, o.acn); err != nil {
				return err
			}
		}
		var rows [][]any
		for i := int64(1); i <= w.cfg.Wares; i++ {
			purchase := roundTo(float64(invoiceMinPurchase)-0.5+rng.Float64()*float64(invoiceMaxPurchase-invoiceMinPurchase+1), 100)
			profit := float64(invoiceMinProfitPrc) - 0.5 + rng.Float64()*float64(invoiceMaxProfitPrc-invoiceMinProfitPrc+1)
			retail := roundTo(float64(purchase)*(1+profit/100), 100)
			rows = append(rows, []any{i, fmt.Sprintf("%016x", rng.Uint64()), "ware " + strconv.FormatInt(i, 10), purchase * cents, retail * cents})
		}
		if err := workload.InsertBatch(ctx, c, w.dial, "oe_wares", []string{"id", "numb", "name", "price_purchase", "price_retail"}, rows); err != nil {
			return err
		}
		customers, suppliers := customersAndSuppliers(w.cfg.Agents)
		rows = [][]any{{int64(1), "our firm", 0, 0, 1}}
		for i := int64(0); i < customers+suppliers; i++ {
			id, cust := 2+i, 1
			name := "customer " + strconv.FormatInt(id, 10)
			if i >= customers {
				cust, name = 0, "supplier "+strconv.FormatInt(id, 10)
			}
			rows = append(rows, []any{id, name, cust, 1 - cust, 0})
		}
		if err := workload.InsertBatch(ctx, c, w.dial, "oe_agents", []string{"id", "name", "is_customer", "is_supplier", "is_our_firm"}, rows); err != nil {
			return err
		}
		now := time.Now().UnixMicro()
		for _, s := range []struct {
			id   int
			task string
			dts  int64
		}{{semMoneySaldo, "srv_make_money_saldo", now}, {semRecalcIdx, "srv_recalc_idx_stat", now - 24*int64(time.Hour/time.Microsecond)}, {semInvntSaldo, "srv_make_invnt_saldo", now}} {
			if _, err := c.Exec(ctx, w.st.insSemaphore, s.id, s.task, s.dts); err != nil {
				return err
			}
		}
		return nil
	})
}

// customersAndSuppliers splits number_of_agents as oltp_data_filling.sql
// does: 93 % customers and the rest, our firm counted, suppliers, when
// that leaves more than ten suppliers; otherwise all but one customers and
// one supplier.
func customersAndSuppliers(agents int64) (int64, int64) {
	if float64(agents)*(1-customerRatio) > 10 {
		c := int64(customerRatio * float64(agents))
		return c, agents - c - 1
	}
	return max(1, agents-1), 1
}

// roundTo rounds x to the nearest multiple of unit, halves away from zero
// (Firebird's round(x, -2)).
func roundTo(x float64, unit int64) int64 {
	q := x / float64(unit)
	if q < 0 {
		return -int64(-q+0.5) * unit
	}
	return int64(q+0.5) * unit
}

// readCatalogue learns the agents' ranges and when the index statistics
// were last refreshed.
func (w *emul) readCatalogue(ctx context.Context, c backend.Conn) error {
	var n, lo, hi int64
	for _, a := range []struct {
		st  *backend.Stmt
		dst *[2]int64
	}{{w.st.customerRange, &w.customers}, {w.st.supplierRange, &w.suppliers}} {
		if err := c.QueryRow(ctx, a.st, nil, &n, &lo, &hi); err != nil {
			return err
		}
		*a.dst = [2]int64{lo, hi}
	}
	if err := c.QueryRow(ctx, w.st.ourFirm, nil, &n, &w.ourFirm); err != nil {
		return err
	}
	var dts int64
	err := c.QueryRow(ctx, w.st.semaphoreDts, []any{semRecalcIdx}, &dts)
	if err != nil && !errors.Is(err, backend.ErrNoRows) {
		return err
	}
	w.lastRecalc.Store(dts * int64(time.Microsecond))
	return nil
}

// fill runs the units that create documents or move them forward (no
// cancellation: the original's init_pop mode) with one client, each unit
// in its own transaction, for a worker drawn at random among the run's
// clients, until the database holds n documents.
func (w *emul) fill(ctx context.Context, c backend.Conn, docs int64) (int64, error) {
	rng := workload.NewRand(w.common.Seed, 2)
	draws := workload.NewRand(w.common.Seed, 3)
	cl := &client{w: w, c: c, rng: rng, worker: 0}
	if err := cl.txMode(ctx); err != nil {
		return docs, err
	}
	counted, idsAt := docs, w.ids[seqDoc].Load()
	for docs < w.cfg.InitDocs {
		if err := ctx.Err(); err != nil {
			return docs, err
		}
		k := draw(draws, true, false)
		if k == uAggregatePerfData {
			continue
		}
		if n := w.workers(); n > 0 {
			cl.worker = 1 + rng.Int64N(n)
		}
		err := cl.unit(ctx, k, noOps{}, cl.worker)
		switch {
		case errors.Is(err, workload.ErrNothing):
			continue
		case conflict(err):
			continue // one client: only SQLite's busy can come, from another process
		case err != nil:
			return docs, fmt.Errorf("filling the database, %s: %w", units[k].name, err)
		}
		// The fill deletes no document: the documents made since the last
		// count are at most the ids taken since; counted again only then
		// (count(*) reads every row).
		est := counted + w.ids[seqDoc].Load() - idsAt
		if est >= w.cfg.InitDocs {
			if err := c.QueryRow(ctx, w.st.countDocs, nil, &docs); err != nil {
				return docs, err
			}
			counted, idsAt = docs, w.ids[seqDoc].Load()
			est = docs
		}
		if w.progress != nil {
			w.progress(min(est, w.cfg.InitDocs), w.cfg.InitDocs)
		}
	}
	return docs, nil
}

// noOps runs operations untimed, for the fill and the checks.
type noOps struct{}

func (noOps) Time(_ int, fn func() error) error { return fn() }

// Client returns a client running units, each one transaction. Client id's
// worker is id+1 (0 when workers are not separate).
func (w *emul) Client(ctx context.Context, db backend.DB, id int, rng *rand.Rand) (workload.Client, error) {
	sdb, err := workload.SQLOf("oltp-emul", db)
	if err != nil {
		return nil, err
	}
	c, err := sdb.Conn(ctx)
	if err != nil {
		return nil, err
	}
	cl := &client{w: w, db: sdb, c: c, rng: rng}
	if w.workers() > 0 {
		cl.worker = int64(id) + 1
	}
	if err := cl.txMode(ctx); err != nil {
		_ = c.Close()
		return nil, err
	}
	return cl, nil
}
