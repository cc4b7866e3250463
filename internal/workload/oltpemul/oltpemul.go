// Package oltpemul is Firebird QA's OLTP-EMUL (seed 001) made portable: a
// trading firm's document flow — customer orders gathered into supplier
// orders, supplier invoices accepted into stock, reserves, sales, payments
// both ways, cancellations — over insert-only turnover logs aggregated by one
// client at a time, with FIFO distribution of stock as producer and
// consumers. The headline is P, successful business actions per minute; the
// checks prove that no balance went below zero and every balance equals what
// the documents say.
package oltpemul

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers oltp-emul in the catalog.
var Spec = workload.Spec{
	Name:    "oltp-emul",
	Summary: "a trading firm's document flow: orders, supplier orders and invoices, reserves, sales, payments, FIFO stock, serialized aggregation",
	Source:  "Firebird QA's OLTP-EMUL (P = business actions per minute, 25–150 attachments, runs of hours)",
	Unit:    "action",
	Units:   "actions",
	APIs:    []backend.API{backend.SQL},
	Knobs: []knob.Spec{
		{Name: "init-docs", Default: "2000", Kind: knob.Int, Uses: knob.ForLoad, Usage: "fill the database up to N documents before the run, reusing those already there (OLTP-EMUL's own: 30000)"},
		{Name: "mode", Default: "medium", Kind: knob.Choice, Choices: []string{"small", "medium", "heavy"}, Uses: knob.ForLoad, Usage: "document sizes: lines per document and quantity per line"},
		{Name: "wares", Default: "400", Kind: knob.Int, Uses: knob.ForLoad, Usage: "wares in the catalogue (fewer wares, more contention)"},
		{Name: "contractors", Default: "100", Kind: knob.Int, Uses: knob.ForLoad, Usage: "contractors: a fifth are suppliers, the rest customers"},
	},
	Defaults:  map[string]string{"duration": "60s", "warmup": "10s"},
	New:       newEmul,
	PerMinute: true,
	Commits:   []workload.CommitMode{workload.PerUnit}, // a business action is one transaction
}

// Config is oltp-emul's typed configuration.
type Config struct {
	InitDocs    int64  `json:"init_docs"`
	Mode        string `json:"mode"`
	Wares       int64  `json:"wares"`
	Contractors int64  `json:"contractors"`
	MinLines    int    `json:"min_lines"`
	MaxLines    int    `json:"max_lines"`
	MaxQty      int    `json:"max_qty"`
}

// The business operations: the unit kinds, with their weights in the mix.
const (
	kOrder = iota
	kCancel
	kSupplierOrder
	kInvoice
	kAccept
	kReserve
	kSale
	kPayIn
	kPayOut
	kAggregate
)

var kinds = []workload.Weighted{
	{Name: "customer_order", Weight: 30},
	{Name: "cancel_order", Weight: 3},
	{Name: "supplier_order", Weight: 8},
	{Name: "supplier_invoice", Weight: 8},
	{Name: "invoice_accepted", Weight: 8},
	{Name: "reserve", Weight: 15},
	{Name: "sale", Weight: 14},
	{Name: "payment_in", Weight: 6},
	{Name: "payment_out", Weight: 5},
	{Name: "aggregate", Weight: 3},
}

// The operations inside actions.
const (
	opBegin = iota
	opPick
	opWrite
	opLog
	opCommit
)

type emul struct {
	cfg      Config
	common   workload.Common
	progress func(done, total int64) // --init-docs' fill, when someone listens
	st       *stmts
	ids      [nSeq]atomic.Int64 // next id per table
	dial     string
}

func newEmul(c workload.Common, v *knob.Values) (workload.Workload, error) {
	if c.Commit.Mode != workload.PerUnit {
		return nil, knob.Bad("drop --commit: oltp-emul commits once per business action", "--commit %s: each business action of oltp-emul is one transaction", c.Commit)
	}
	cfg := Config{}
	var err error
	if cfg.InitDocs, err = v.Int("init-docs", 0, 100_000_000); err != nil {
		return nil, err
	}
	if cfg.Wares, err = v.Int("wares", 1, 10_000_000); err != nil {
		return nil, err
	}
	if cfg.Contractors, err = v.Int("contractors", 2, 10_000_000); err != nil {
		return nil, err
	}
	if cfg.Mode, err = v.Choice("mode"); err != nil {
		return nil, err
	}
	switch cfg.Mode {
	case "small":
		cfg.MinLines, cfg.MaxLines, cfg.MaxQty = 1, 3, 3
	case "medium":
		cfg.MinLines, cfg.MaxLines, cfg.MaxQty = 3, 8, 5
	case "heavy":
		cfg.MinLines, cfg.MaxLines, cfg.MaxQty = 10, 25, 10
	}
	return &emul{cfg: cfg, common: c}, nil
}

// SetProgress hears how far --init-docs' fill got, in documents
// (workload.Progresser).
func (w *emul) SetProgress(fn func(done, total int64)) { w.progress = fn }

func (w *emul) Shape() workload.Shape {
	return workload.Shape{Units: kinds, Ops: []string{"begin", "pick", "write", "log", "commit"}}
}

func (w *emul) Config() any { return w.cfg }

// suppliers are contractors 1…n/5; customers the rest.
func (w *emul) suppliers() int64 { return max(1, w.cfg.Contractors/5) }

func (w *emul) supplier(rng *rand.Rand) int64 { return 1 + rng.Int64N(w.suppliers()) }
func (w *emul) customer(rng *rand.Rand) int64 {
	return w.suppliers() + 1 + rng.Int64N(w.cfg.Contractors-w.suppliers())
}

// Load creates the schema, the catalogue and the contractors, then fills the
// database up to --init-docs documents by running the business actions
// themselves, many to a transaction, with one client: a realistic mix of
// document states, in minutes for the seed's 30,000.
func (w *emul) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	sdb, err := workload.SQLOf("oltp-emul", db)
	if err != nil {
		return workload.Dataset{}, err
	}
	w.st = newStmts(sdb.Dialect())
	w.dial = sdb.Dialect().Name
	c, err := sdb.Conn(ctx)
	if err != nil {
		return workload.Dataset{}, err
	}
	defer c.Close()
	if err := createSchema(ctx, c, sdb.Dialect()); err != nil {
		return workload.Dataset{}, err
	}
	var wares, contractors int64
	if err := c.QueryRow(ctx, w.st.countWares, nil, &wares); err != nil {
		return workload.Dataset{}, err
	}
	if err := c.QueryRow(ctx, w.st.countContractors, nil, &contractors); err != nil {
		return workload.Dataset{}, err
	}
	reused := wares > 0
	if reused && (wares != w.cfg.Wares || contractors != w.cfg.Contractors) {
		return workload.Dataset{}, knob.Bad("give the same --wares and --contractors, or another --db",
			"the database holds %d wares and %d contractors, not the %d and %d asked", wares, contractors, w.cfg.Wares, w.cfg.Contractors)
	}
	if !reused {
		if err := w.catalogue(ctx, c); err != nil {
			return workload.Dataset{}, err
		}
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
	return workload.Dataset{Reused: reused && before > 0, Facts: map[string]string{
		"wares": strconv.FormatInt(w.cfg.Wares, 10), "contractors": strconv.FormatInt(w.cfg.Contractors, 10),
		"documents": strconv.FormatInt(docs, 10), "documents_added": strconv.FormatInt(docs-before, 10),
		"fill_seconds": strconv.FormatFloat(time.Since(t).Seconds(), 'f', 1, 64),
	}}, nil
}

// catalogue inserts the wares, the contractors, their zero balances and the
// aggregation's lock row, in one transaction.
func (w *emul) catalogue(ctx context.Context, c backend.Conn) error {
	rng := workload.NewRand(w.common.Seed, 1)
	if err := c.Begin(ctx); err != nil {
		return err
	}
	for i := int64(1); i <= w.cfg.Wares; i++ {
		if _, err := c.Exec(ctx, w.st.insWare, i, "ware "+strconv.FormatInt(i, 10), 100+rng.Int64N(99_900)); err != nil {
			return rollback(ctx, c, err)
		}
		if _, err := c.Exec(ctx, w.st.insBalance, i); err != nil {
			return rollback(ctx, c, err)
		}
	}
	for i := int64(1); i <= w.cfg.Contractors; i++ {
		kind := "C"
		if i <= w.suppliers() {
			kind = "S"
		}
		if _, err := c.Exec(ctx, w.st.insContractor, i, "contractor "+strconv.FormatInt(i, 10), kind); err != nil {
			return rollback(ctx, c, err)
		}
		if _, err := c.Exec(ctx, w.st.insMoney, i); err != nil {
			return rollback(ctx, c, err)
		}
	}
	if _, err := c.Exec(ctx, w.st.insAgg); err != nil {
		return rollback(ctx, c, err)
	}
	return c.Commit(ctx)
}

func rollback(ctx context.Context, c backend.Conn, err error) error {
	_ = c.Rollback(ctx)
	return err
}

// fill runs the business actions with one client, 100 to a transaction,
// until the database holds n documents.
func (w *emul) fill(ctx context.Context, c backend.Conn, docs int64) (int64, error) {
	rng := workload.NewRand(w.common.Seed, 2)
	cl := &client{w: w, c: c, rng: rng}
	deck := workload.NewDeck(kinds, rng)
	for docs < w.cfg.InitDocs {
		if err := ctx.Err(); err != nil {
			return docs, err
		}
		if err := c.Begin(ctx); err != nil {
			return docs, err
		}
		for i := 0; i < 100; i++ {
			k := deck.Deal()
			if k == kAggregate {
				continue // once, below
			}
			added, err := cl.action(ctx, k, noOps{})
			if errors.Is(err, workload.ErrNothing) {
				continue // said "no" before writing anything
			}
			if err != nil {
				return docs, rollback(ctx, c, err)
			}
			docs += added
		}
		if _, err := cl.action(ctx, kAggregate, noOps{}); err != nil {
			return docs, rollback(ctx, c, err)
		}
		if err := c.Commit(ctx); err != nil {
			return docs, err
		}
		if w.progress != nil {
			w.progress(docs, w.cfg.InitDocs)
		}
	}
	return docs, nil
}

// noOps runs operations untimed, for the fill.
type noOps struct{}

func (noOps) Time(_ int, fn func() error) error { return fn() }

// Client returns a client running business actions, each one transaction.
func (w *emul) Client(ctx context.Context, db backend.DB, _ int, rng *rand.Rand) (workload.Client, error) {
	c, err := workload.SQLConnOf(ctx, "oltp-emul", db)
	if err != nil {
		return nil, err
	}
	return &client{w: w, c: c, rng: rng}, nil
}
