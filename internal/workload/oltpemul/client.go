package oltpemul

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// client runs units on one connection, each in one transaction, as one of
// the original's ISQL sessions does.
type client struct {
	w      *emul
	db     backend.SQLDB // to reconnect; nil in the fill and the checks
	c      backend.Conn
	rng    *rand.Rand
	worker int64 // this client's worker (0: workers not separate)

	// The unit running now.
	wk   int64              // the worker whose documents it takes
	ops  workload.Ops       // times its operations
	sign int64              // +1 or -1: the direction in which it takes FIFO rows of one document
	now  int64              // its start, Unix microseconds: the dts of what it writes
	pend map[*table][][]any // rows to insert, sent together before the next statement
	// bounds are the sets' bounds read in this transaction (pickID).
	bounds map[boundsKey][2]int64

	actions int64 // units since the connection was opened
	lost    error // the reconnection between units failed: the next unit reports it

	// waits: the engine's snapshot transactions wait for a row lock
	// another holds (Firebird: see txMode). The services then take their
	// semaphore in a transaction of its own on side, read committed NO
	// WAIT, before the unit's snapshot begins, and keep it until the unit
	// has ended (held).
	waits bool
	side  backend.Conn
	held  int
}

// Do runs one unit as one transaction (SNAPSHOT NO WAIT where the engine
// has it: see txMode). A unit that finds nothing to do (the original
// raises a user exception: no document, an empty shopping cart, a
// semaphore another client holds) rolls back and returns
// workload.ErrNothing with the exception's name as its code. A conflict is
// a failed unit of its class: OLTP-EMUL never retries (--retries 0).
func (c *client) Do(ctx context.Context, kind int, ops workload.Ops) error {
	if err := c.lost; err != nil {
		c.lost = nil
		return err
	}
	if kind == uAggregatePerfData {
		// The original totals its own perf_log here; dbgauge keeps its
		// measurements outside the engine, so there is none to total.
		return workload.NothingUnasked("no_perf_log", "oltp-emul: dbgauge keeps no performance log in the database to aggregate")
	}
	wk := c.worker
	if n := c.w.workers(); n > 1 && c.w.cfg.UpdateConflictPercent > 0 && c.rng.Int64N(100) < c.w.cfg.UpdateConflictPercent {
		// update_conflict_percent: this unit takes another worker's documents.
		wk = 1 + c.rng.Int64N(n-1)
		if wk >= c.worker {
			wk++
		}
	}
	c.actions++
	return c.halt(c.unit(ctx, kind, ops, wk))
}

// halt makes a violation of a constraint named in --halt-on-errors fatal:
// the run stops, as the original's fn_halt_sign stops the test.
func (c *client) halt(err error) error {
	var e *dberr.Error
	if err == nil || !errors.As(err, &e) || !c.w.halt[e.Kind] {
		return err
	}
	return dberr.New(dberr.Fatal, e.Kind, e.Code, fmt.Errorf("halt_test_on_errors %s: %w", c.w.cfg.HaltOnErrors, err))
}

// unit runs unit kind for worker wk in a transaction of its own.
func (c *client) unit(ctx context.Context, kind int, ops workload.Ops, wk int64) error {
	c.wk, c.ops, c.now = wk, ops, time.Now().UnixMicro()
	c.sign = 1
	if c.rng.IntN(2) == 0 {
		c.sign = -1
	}
	clear(c.pend)
	clear(c.bounds)
	if sem := semaphoreOf(kind); sem != 0 && c.waits && c.db != nil {
		if err := c.takeSemaphore(ctx, sem); err != nil {
			return err
		}
		defer c.releaseSemaphore(ctx)
	}
	if err := ops.Time(opBegin, func() error { return c.c.Begin(ctx) }); err != nil {
		return err
	}
	err := c.body(ctx, kind)
	if err == nil {
		err = c.flush(ctx)
	}
	if err == nil {
		err = ops.Time(opCommit, func() error { return c.c.Commit(ctx) })
	}
	if err != nil {
		_ = c.c.Rollback(ctx)
		clear(c.pend)
		return err
	}
	if kind == uRecalcIdxStat {
		return c.recalcIdxStat(ctx)
	}
	return nil
}

// body runs the unit's work inside the open transaction.
func (c *client) body(ctx context.Context, kind int) error {
	switch kind {
	case uClientOrder:
		return c.clientOrder(ctx)
	case uCancelClientOrder:
		return c.cancelClientOrder(ctx)
	case uSupplierOrder:
		return c.supplierDoc(ctx, opORD)
	case uCancelSupplierOrder:
		return c.cancelSupplierOrder(ctx)
	case uSupplierInvoice:
		return c.supplierDoc(ctx, opSUP)
	case uCancelSupplierInvoice:
		return c.cancelSupplierInvoice(ctx)
	case uAddInvoiceToStock:
		return c.addInvoiceToStock(ctx)
	case uCancelAddingInvoice:
		return c.cancelAddingInvoice(ctx)
	case uCustomerReserve:
		return c.customerReserve(ctx)
	case uCancelCustomerReserve:
		return c.cancelCustomerReserve(ctx)
	case uReserveWriteOff:
		return c.reserveWriteOff(ctx)
	case uCancelWriteOff:
		return c.cancelWriteOff(ctx)
	case uPayFromCustomer:
		return c.payment(ctx, opPCU)
	case uCancelPayFromCustomer:
		return c.cancelPayment(ctx, opPCU)
	case uPayToSupplier:
		return c.payment(ctx, opPSU)
	case uCancelPayToSupplier:
		return c.cancelPayment(ctx, opPSU)
	case uMakeInvntSaldo:
		return c.makeInvntSaldo(ctx)
	case uMakeMoneySaldo:
		return c.makeMoneySaldo(ctx)
	case uRecalcIdxStat:
		return c.lockSemaphore(ctx, semRecalcIdx)
	}
	return fmt.Errorf("oltp-emul: unit %d unknown", kind)
}

// txMode asks the engine for OLTP-EMUL's SNAPSHOT NO WAIT (backend.TxModer)
// and remembers what it made of it, for the result.
func (c *client) txMode(ctx context.Context) error {
	tm, ok := c.c.(backend.TxModer)
	if !ok {
		s := "the engine's own (writers one at a time; no row locks to wait for)"
		c.w.txMode.CompareAndSwap(nil, &s)
		return nil
	}
	set, err := tm.SetTxMode(ctx, backend.TxMode{Snapshot: true, NoWait: true})
	if err != nil {
		return err
	}
	c.waits = !set.NoWait
	s := set.Words
	if c.waits {
		s += "; the services' semaphores in a read committed no wait transaction of their own, taken before the unit's snapshot begins"
	}
	c.w.txMode.CompareAndSwap(nil, &s)
	return nil
}

// semaphoreOf is the semaphore a service unit takes; 0 for the others.
func semaphoreOf(kind int) int {
	switch kind {
	case uMakeInvntSaldo:
		return semInvntSaldo
	case uMakeMoneySaldo:
		return semMoneySaldo
	case uRecalcIdxStat:
		return semRecalcIdx
	}
	return 0
}

// takeSemaphore takes semaphore sem in a read committed NO WAIT
// transaction of its own on a side connection, which holds it until
// releaseSemaphore: another client holding it, nothing to do, at once, as
// in the original. It is taken before the unit's snapshot begins, so that
// the snapshot sees what the last holder committed. A semaphore another
// client of this run holds is not asked of the engine (emul.semHeld), so
// that at most one side connection per semaphore is out of the pool; the
// engine's row lock still keeps out other processes.
func (c *client) takeSemaphore(ctx context.Context, sem int) error {
	mu := &c.w.semHeld[sem]
	if !mu.TryLock() {
		// Decided here, before the engine was asked anything.
		return workload.NothingUnasked("ex_cant_lock_semaphore_record", "oltp-emul: another client holds semaphore %d", sem)
	}
	err := c.ops.Time(opLock, func() error {
		side, err := c.db.Conn(ctx)
		if err != nil {
			return err
		}
		c.side = side
		if tm, ok := side.(backend.TxModer); ok {
			if _, err := tm.SetTxMode(ctx, backend.TxMode{NoWait: true}); err != nil {
				return err
			}
		}
		if err := side.Begin(ctx); err != nil {
			return err
		}
		var id int64
		if err := side.QueryRow(ctx, c.w.st.lockSemaphore, []any{sem}, &id); err != nil {
			return err
		}
		_, err = side.Exec(ctx, c.w.st.semaphore, c.now, sem)
		return err
	})
	if err == nil {
		c.held = sem
		return nil
	}
	switch {
	case conflict(err):
		err = workload.NothingAs("ex_cant_lock_semaphore_record", "oltp-emul: another client holds semaphore %d: %v", sem, err)
	case errors.Is(err, backend.ErrNoRows):
		err = workload.NothingAs("ex_record_not_found", "oltp-emul: no semaphore %d", sem)
	}
	c.dropSide(ctx, false)
	mu.Unlock()
	return err
}

// releaseSemaphore ends the side transaction that holds a semaphore and
// gives its connection back to the pool.
func (c *client) releaseSemaphore(ctx context.Context) {
	if c.held == 0 {
		return
	}
	sem := c.held
	c.held = 0
	c.dropSide(ctx, true)
	c.w.semHeld[sem].Unlock()
}

// dropSide ends the side connection's transaction (commit or roll back)
// and gives the connection back.
func (c *client) dropSide(ctx context.Context, commit bool) {
	if c.side == nil {
		return
	}
	if !commit || c.side.Commit(ctx) != nil {
		_ = c.side.Rollback(ctx)
	}
	_ = c.side.Close()
	c.side = nil
}

// BetweenUnits reconnects after actions_todo_before_reconnect units, as
// the original's ISQL sessions do, outside any unit's latency.
func (c *client) BetweenUnits(ctx context.Context) {
	n := c.w.cfg.ActionsBeforeReconnect
	if n <= 0 || c.actions < n || c.db == nil {
		return
	}
	c.actions = 0
	_ = c.c.Close()
	nc, err := c.db.Conn(ctx)
	if err == nil {
		c.c = nc
		if err = c.txMode(ctx); err != nil {
			_ = nc.Close() // back to the pool's count, not held by a broken client
		}
	}
	if err != nil {
		c.lost = err
		c.c = brokenConn{err}
	}
}

// Waits is the original's sleep_min … sleep_max after each unit.
func (c *client) Waits(int) (time.Duration, time.Duration) {
	lo, hi := c.w.cfg.SleepMin, c.w.cfg.SleepMax
	if hi <= 0 {
		return 0, 0
	}
	return 0, lo + time.Duration(c.rng.Int64N(int64(hi-lo)+1))
}

// Choose draws the next unit as srv_random_unit_choice does.
func (c *client) Choose(rng *rand.Rand, warmup bool) int {
	last := time.Unix(0, c.w.lastRecalc.Load())
	return draw(rng, warmup, recalcDue(c.w.cfg.RecalcIdxMinInterval, last, time.Now()))
}

// Close releases the connection.
func (c *client) Close(context.Context) error { return c.c.Close() }

// brokenConn stands for a connection that could not be opened again: every
// call fails with its error, so that the run engine reopens the client.
type brokenConn struct{ err error }

func (b brokenConn) Begin(context.Context) error    { return b.err }
func (b brokenConn) Commit(context.Context) error   { return b.err }
func (b brokenConn) Rollback(context.Context) error { return nil }
func (b brokenConn) Exec(context.Context, *backend.Stmt, ...any) (int64, error) {
	return 0, b.err
}
func (b brokenConn) QueryRow(context.Context, *backend.Stmt, []any, ...any) error { return b.err }
func (b brokenConn) Query(context.Context, *backend.Stmt, []any, func(func(...any) error) error) error {
	return b.err
}
func (b brokenConn) QueryAny(context.Context, *backend.Stmt, []any, func([]string, []any) error) error {
	return b.err
}
func (b brokenConn) ExecScript(context.Context, string) error { return b.err }
func (b brokenConn) Close() error                             { return nil }

// table is a table the units insert into, rows batched until the unit's
// next statement (workload.InsertBatch).
type table struct {
	name string
	cols []string
}

var (
	tDocList   = &table{"oe_doc_list", []string{"id", "optype_id", "agent_id", "state_id", "base_doc_id", "cost_purchase", "cost_retail", "acn_type", "dts_open", "dts_fix", "dts_clos", "worker_id"}}
	tDocData   = &table{"oe_doc_data", []string{"id", "doc_id", "ware_id", "qty", "cost_purchase", "cost_retail", "dts_edit"}}
	tQdistr    = &table{"oe_qdistr", []string{"id", "doc_id", "worker_id", "ware_id", "snd_optype_id", "snd_id", "snd_qty", "rcv_optype_id", "snd_purchase", "snd_retail"}}
	tQstorned  = &table{"oe_qstorned", []string{"id", "doc_id", "worker_id", "ware_id", "snd_optype_id", "snd_id", "snd_qty", "rcv_doc_id", "rcv_optype_id", "rcv_id", "snd_purchase", "snd_retail"}}
	tPdistr    = &table{"oe_pdistr", []string{"id", "agent_id", "snd_optype_id", "snd_id", "worker_id", "snd_cost", "rcv_optype_id"}}
	tPstorned  = &table{"oe_pstorned", []string{"id", "agent_id", "snd_optype_id", "snd_id", "worker_id", "snd_cost", "rcv_optype_id", "rcv_id", "rcv_cost"}}
	tInvntLog  = &table{"oe_invnt_turnover_log", []string{"id", "ware_id", "qty_diff", "cost_diff", "doc_list_id", "doc_pref", "doc_data_id", "optype_id", "dts_edit"}}
	tMoneyLog  = &table{"oe_money_turnover_log", []string{"id", "doc_id", "agent_id", "optype_id", "cost_purchase", "cost_retail", "dts"}}
	flushOrder = []*table{tDocList, tDocData, tQdistr, tQstorned, tPdistr, tPstorned, tInvntLog, tMoneyLog}
)

// insert queues a row for t.
func (c *client) insert(t *table, row ...any) {
	if c.pend == nil {
		c.pend = map[*table][][]any{}
	}
	c.pend[t] = append(c.pend[t], row)
}

// flush sends the rows queued, a few statements per table.
func (c *client) flush(ctx context.Context) error {
	for _, t := range flushOrder {
		rows := c.pend[t]
		if len(rows) == 0 {
			continue
		}
		op := opWrite
		if t == tInvntLog || t == tMoneyLog {
			op = opLog
		}
		if err := c.ops.Time(op, func() error { return workload.InsertBatch(ctx, c.c, c.w.dial, t.name, t.cols, rows) }); err != nil {
			return err
		}
		delete(c.pend, t)
	}
	return nil
}

// exec runs st as operation op, the queued rows sent first.
func (c *client) exec(ctx context.Context, op int, st *backend.Stmt, args ...any) (int64, error) {
	if err := c.flush(ctx); err != nil {
		return 0, err
	}
	var n int64
	err := c.ops.Time(op, func() error {
		var err error
		n, err = c.c.Exec(ctx, st, args...)
		return err
	})
	return n, err
}

// row reads st's one row as operation op, the queued rows sent first.
func (c *client) row(ctx context.Context, op int, st *backend.Stmt, args []any, dest ...any) error {
	if err := c.flush(ctx); err != nil {
		return err
	}
	return c.ops.Time(op, func() error { return c.c.QueryRow(ctx, st, args, dest...) })
}

// rows reads st's rows as operation op, the queued rows sent first.
func (c *client) rows(ctx context.Context, op int, st *backend.Stmt, args []any, each func(scan func(dest ...any) error) error) error {
	if err := c.flush(ctx); err != nil {
		return err
	}
	return c.ops.Time(op, func() error { return c.c.Query(ctx, st, args, each) })
}
