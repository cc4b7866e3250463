package tpcc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers tpcc in the catalog.
var Spec = workload.Spec{
	Name:    "tpcc",
	Summary: "TPC-C 5.11: New-Order, Payment, Order-Status, Delivery and Stock-Level on the spec's nine tables; tpmC, NOPM and the consistency conditions",
	Source:  "TPC Benchmark C, revision 5.11 (the benchmark go-tpc, HammerDB and BenchBase run)",
	Unit:    "transaction",
	Units:   "transactions",
	APIs:    []backend.API{backend.SQL},
	Knobs: []knob.Spec{
		{Name: "warehouses", Default: "1", Kind: knob.Int, Values: "1..100000", Uses: knob.ForLoad | knob.ForCheck,
			Usage: "W: the spec's scale; each warehouse is 10 districts, 30,000 customers and orders, 100,000 stock rows (about 70 MB)"},
		{Name: "wait", Kind: knob.Switch,
			Usage: "keying and think times of clause 5.2.5 around every transaction (at most 10 clients per warehouse); without it, none, as go-tpc and HammerDB run by default"},
		{Name: "check", Default: "audited", Kind: knob.Choice, Choices: []string{"audited", "all", "load"}, Uses: knob.ForCheck,
			Usage: "consistency conditions after the load and the run: audited (1-4, clause 3.3.3), all (every one transactions keep: all but 11), load (all twelve: a database nothing ran on since its load)"},
	},
	Commits:    []workload.CommitMode{workload.PerUnit},
	ChecksAsIs: true,
	New:        newTPCC,
}

// Config is tpcc's typed configuration, for the result.
type Config struct {
	Warehouses int    `json:"warehouses"`
	Wait       bool   `json:"wait"`
	Check      string `json:"check"`
	// The NURand constants of the load (read back from a reused database's
	// customers where dbgauge did not load it) and of the run (clause 2.1.6).
	LoadC *Constants `json:"load_constants,omitempty"`
	RunC  *Constants `json:"run_constants,omitempty"`
	// LoadSeconds is how long the initial population took; 0 when reused.
	LoadSeconds float64 `json:"load_seconds,omitempty"`
	// Loaders is how many warehouses were loaded at once.
	Loaders int `json:"loaders,omitempty"`
}

// The unit kinds, in the order of the mix. A rolled-back New-Order is a kind
// of its own: the spec's 1 % of New-Orders that name an unused item and
// must roll back (clause 2.4.1.4, 2.4.2.3), done when they rolled back, not
// failed and not hidden among the committed ones.
const (
	kindNewOrder = iota
	kindNewOrderRollback
	kindPayment
	kindOrderStatus
	kindDelivery
	kindStockLevel
)

// mix is the deck (clause 5.2.3: at least 43 % Payment, 4 % each of
// Order-Status, Delivery and Stock-Level; New-Order the rest, 45 %, as go-tpc,
// HammerDB and every published result run it), in 2,000 cards so that the
// rolled-back New-Orders are exactly 1 % of the New-Orders (9 of 900).
var mix = []workload.Weighted{
	{Name: "new-order", Weight: 891},
	{Name: "new-order-rollback", Weight: 9},
	{Name: "payment", Weight: 860},
	{Name: "order-status", Weight: 80},
	{Name: "delivery", Weight: 80},
	{Name: "stock-level", Weight: 80},
}

// The operations timed inside the transactions.
const (
	opBegin = iota
	opCommit
	opRollback
	opNOCustomer
	opNODistrict
	opNOOrder
	opNOItems
	opNOStock
	opNOLines
	opPWarehouse
	opPDistrict
	opPCustomer
	opPHistory
	opOSCustomer
	opOSOrder
	opOSLines
	opDNewOrder
	opDOrder
	opDLines
	opDCustomer
	opSLDistrict
	opSLCount
)

var opNames = []string{"begin", "commit", "rollback",
	"no_customer", "no_district", "no_order", "no_items", "no_stock", "no_lines",
	"p_warehouse", "p_district", "p_customer", "p_history",
	"os_customer", "os_order", "os_lines",
	"d_new_order", "d_order", "d_lines", "d_customer",
	"sl_district", "sl_count"}

type tpcc struct {
	cfg      Config
	common   workload.Common
	progress func(done, total int64)
	// loadChecks are the conditions checked right after the load.
	loadChecks []workload.Check
	stmts      sync.Map
	mu         sync.Mutex // guards cfg.RunC, chosen by the first client
	// Deliveries' districts found with no new order to deliver (clause
	// 2.7.4.2 asks them reported when over 1 %), and districts delivered.
	skipped, delivered atomic.Int64
}

func newTPCC(c workload.Common, v *knob.Values) (workload.Workload, error) {
	w, err := v.Int("warehouses", 1, 100_000)
	if err != nil {
		return nil, err
	}
	wait, err := v.Bool("wait")
	if err != nil {
		return nil, err
	}
	check, err := v.Choice("check")
	if err != nil {
		return nil, err
	}
	if wait && c.Clients > 10*int(w) {
		return nil, knob.Bad(fmt.Sprintf("use --clients %d or fewer, or more --warehouses", 10*w),
			"tpcc --wait with %d clients on %d warehouses: clause 5.2.5 emulates at most 10 terminals per warehouse", c.Clients, w)
	}
	return &tpcc{cfg: Config{Warehouses: int(w), Wait: wait, Check: check}, common: c}, nil
}

func (w *tpcc) Shape() workload.Shape { return workload.Shape{Units: mix, Ops: opNames} }

func (w *tpcc) Config() any { return w.cfg }

// SetProgress hears the load's progress in rows.
func (w *tpcc) SetProgress(fn func(done, total int64)) { w.progress = fn }

// Client returns terminal id: bound to a home warehouse and, for Stock-Level,
// a district (clause 2.8.1.1), the terminals spread over the warehouses
// first, then over their districts.
func (w *tpcc) Client(ctx context.Context, db backend.DB, id int, rng *rand.Rand) (workload.Client, error) {
	c, err := workload.SQLConnOf(ctx, "tpcc", db)
	if err != nil {
		return nil, err
	}
	sdb := db.(backend.SQLDB)
	run := w.runConstants()
	cl := &client{w: w, c: c, st: w.statements(sdb.Dialect()), r: NewRand(rng, run),
		home: id%w.cfg.Warehouses + 1, district: (id/w.cfg.Warehouses)%DistrictsPerWarehouse + 1}
	return cl, nil
}

// Shardable: terminals are bound to warehouses by their run-wide number,
// order numbers come from the district rows, and the consistency
// conditions are the database's, not one process's.
func (w *tpcc) Shardable() error { return nil }

// runConstants chooses the run's constants once, against the load's.
func (w *tpcc) runConstants() Constants {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cfg.RunC == nil {
		load := Constants{}
		if w.cfg.LoadC != nil {
			load = *w.cfg.LoadC
		}
		c := RunConstants(workload.NewRand(w.common.Seed, 0x7c), load)
		w.cfg.RunC = &c
	}
	return *w.cfg.RunC
}

// Wait returns the keying time before a transaction of kind and the think
// time after it (clause 5.2.5.7), with --wait; none without.
func (w *tpcc) wait(kind int, r *Rand) (keying, think time.Duration) {
	if !w.cfg.Wait {
		return 0, 0
	}
	// Clause 5.2.5.7: minimum keying times and mean think times.
	var k, t float64
	switch kind {
	case kindNewOrder, kindNewOrderRollback:
		k, t = 18, 12
	case kindPayment:
		k, t = 3, 12
	case kindOrderStatus:
		k, t = 2, 10
	default: // Delivery, Stock-Level
		k, t = 2, 5
	}
	// Clause 5.2.5.4: Tt = −log(r) × μ, r uniform in (0, 1], each
	// distribution truncated at 10 times its mean.
	u := 1 - r.src.Float64()
	think = time.Duration(math.Min(-math.Log(u)*t, 10*t) * float64(time.Second))
	return time.Duration(k * float64(time.Second)), think
}

// Figures are TPC-C's own: tpmC (New-Orders per minute, the rolled-back
// ones included, as clause 5.4.2 counts every New-Order completed), NOPM
// (committed New-Orders per minute, HammerDB's figure, which only the
// committed ones advance), efficiency against the spec's ceiling of 12.86
// tpmC per warehouse (clause 4.2: a terminal can do no more with its
// keying and think times, so without --wait there is no ceiling and the
// figure is n/a), the 90th-percentile response time limits of clause
// 5.2.5.4 as verdicts, and the deliveries' skipped districts.
func (w *tpcc) Figures(m workload.Measured) []workload.Figure {
	if m.Seconds <= 0 || len(m.Units) != len(mix) {
		return nil
	}
	minutes := m.Seconds / 60
	no := m.Units[kindNewOrder].OK
	rb := m.Units[kindNewOrderRollback].OK
	tpmC := float64(no+rb) / minutes
	ceiling := maxTpmCPerWarehouse * float64(w.cfg.Warehouses)
	newOrders := []string{mix[kindNewOrder].Name, mix[kindNewOrderRollback].Name}
	figs := []workload.Figure{
		{Name: "tpmC", Value: tpmC, Unit: "New-Orders/min",
			Detail: "New-Order transactions completed per minute, the 1 % rolled back by the spec included (clause 5.4.2)",
			Kinds:  newOrders},
		{Name: "NOPM", Value: float64(no) / minutes, Unit: "New-Orders/min",
			Detail: "committed New-Orders per minute (HammerDB's NOPM)", Kinds: []string{mix[kindNewOrder].Name}},
	}
	efficiency := workload.Figure{Name: "efficiency", Value: 100 * tpmC / ceiling, Unit: "%",
		Detail: fmt.Sprintf("tpmC against the spec's maximum of %.2f per warehouse × %d", maxTpmCPerWarehouse, w.cfg.Warehouses),
		Kinds:  newOrders, Of: ceiling}
	if !w.cfg.Wait {
		// The maximum is what keying and think times allow a terminal:
		// without them a share of it is no share of anything ("69714 %").
		efficiency = workload.Figure{Name: "efficiency", Unit: "%", NA: "no keying or think times (--wait)",
			Detail: efficiency.Detail + ", which keying and think times make"}
	}
	figs = append(figs, efficiency)
	for i, u := range m.Units {
		limit := responseLimits[i]
		if u.OK == 0 {
			continue
		}
		pass := time.Duration(u.P90Us)*time.Microsecond <= limit
		figs = append(figs, workload.Figure{Name: u.Name + " p90", Value: float64(u.P90Us) / 1000, Unit: "ms", Pass: &pass,
			Detail: fmt.Sprintf("90th percentile response time within %v (clause 5.2.5.4)", limit),
			P90Of:  u.Name, Limit: float64(limit.Milliseconds())})
	}
	if d, s := w.delivered.Load(), w.skipped.Load(); d+s > 0 {
		pct := 100 * float64(s) / float64(d+s)
		pass := pct <= 1
		figs = append(figs, workload.Figure{Name: "delivery skipped", Value: pct, Unit: "%", Pass: &pass,
			Detail: "districts that found no new order to deliver (clause 2.7.4.2: at most 1 %)",
			Part:   s, Whole: d + s, Limit: 1})
	}
	return figs
}

// maxTpmCPerWarehouse is the most a warehouse's ten terminals can do with
// the keying and think times of clause 5.2.5.7 (clause 4.2's 12.86).
const maxTpmCPerWarehouse = 12.86

// responseLimits are the 90th-percentile response time limits of clause
// 5.2.5.4, per unit kind: 5 s, but 20 s for Stock-Level; Delivery's 5 s is
// its deferred mode's queueing, and dbgauge runs the whole delivery (the
// spec's 80 s completion limit would be the fair one), so 5 s is strict.
var responseLimits = []time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second, 20 * time.Second}

// Check runs the consistency conditions of clause 3.3.2 that --check asks
// for, on the database as it is; after a load in this session, the
// conditions checked right after it come first.
func (w *tpcc) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	c, err := workload.SQLConnOf(ctx, "tpcc", db)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	out := append([]workload.Check(nil), w.loadChecks...)
	checks, err := w.conditions(ctx, c, false)
	return append(out, checks...), err
}

// conditions runs the conditions --check asks for: afterLoad, right after
// this session's own load (where 11 holds with --check load).
func (w *tpcc) conditions(ctx context.Context, c backend.Conn, afterLoad bool) ([]workload.Check, error) {
	var out []workload.Check
	for _, cond := range Conditions {
		switch {
		case w.cfg.Check == "audited" && !cond.Audited:
			continue
		case cond.LoadOnly && w.cfg.Check != "load":
			continue
		case cond.LoadOnly && !afterLoad && w.delivered.Load() > 0:
			// Condition 11 holds on the initial population only: after
			// this session's Deliveries it is no condition of the
			// database (it was checked right after the load, as "load: …").
			continue
		}
		bad, sample, err := violations(ctx, c, cond)
		if err != nil {
			return out, fmt.Errorf("tpcc: condition %s: %w", cond.Clause(), err)
		}
		name := "condition " + cond.Clause()
		if afterLoad {
			name = "load: " + name
		}
		detail := cond.Text
		if bad > 0 {
			rows := "rows violate"
			if bad == 1 {
				rows = "row violates"
			}
			detail = fmt.Sprintf("%d %s it, e.g. %s; %s", bad, rows, sample, cond.Text)
		}
		out = append(out, workload.Check{Name: name, OK: bad == 0, Detail: detail})
	}
	return out, nil
}

// violations runs a condition's query: the rows violating it, and the
// first one as text.
func violations(ctx context.Context, c backend.Conn, cond Condition) (int, string, error) {
	n, sample := 0, ""
	err := c.QueryAny(ctx, &backend.Stmt{SQL: cond.Query}, nil, func(cols []string, vals []any) error {
		if n == 0 {
			for i, col := range cols {
				if i > 0 {
					sample += ", "
				}
				sample += col + " " + plain(vals[i])
			}
		}
		n++
		return nil
	})
	return n, sample, err
}

func plain(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v) // QueryAny's int64, float64, bool, string
}
