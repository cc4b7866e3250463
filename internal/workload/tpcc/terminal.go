package tpcc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// stmts are the five transactions' statements in one engine's dialect,
// made once; each transaction's file declares its own.
type stmts struct {
	newOrderStmts
	paymentStmts
	orderStatusStmts
	deliveryStmts
	stockLevelStmts
}

// statements returns the statements for dialect d.
func (w *tpcc) statements(d backend.Dialect) *stmts {
	if s, ok := w.stmts.Load(d.Name); ok {
		return s.(*stmts)
	}
	s := &stmts{
		newOrderStmts:    newOrderStatements(d),
		paymentStmts:     paymentStatements(d),
		orderStatusStmts: orderStatusStatements(d),
		deliveryStmts:    deliveryStatements(d),
		stockLevelStmts:  stockLevelStatements(d),
	}
	got, _ := w.stmts.LoadOrStore(d.Name, s)
	return got.(*stmts)
}

// stmt is q in dialect d.
func stmt(d backend.Dialect, q string) *backend.Stmt { return &backend.Stmt{SQL: dialectSQL(d, q)} }

// client is one terminal (clause 2.1): its home warehouse, and the district
// its Stock-Levels ask about.
type client struct {
	w              *tpcc
	c              backend.Conn
	st             *stmts
	r              *Rand
	home, district int
	ctx            context.Context
	ops            workload.Ops
}

// Waits are the keying time before a transaction of kind and the think
// time after it (workload.Waiter): none without --wait.
func (c *client) Waits(kind int) (keying, think time.Duration) { return c.w.wait(kind, c.r) }

// Do runs one transaction of kind, in a transaction of its own.
func (c *client) Do(ctx context.Context, kind int, ops workload.Ops) error {
	c.ctx, c.ops = ctx, ops
	if err := ops.Time(opBegin, func() error { return c.c.Begin(ctx) }); err != nil {
		return err
	}
	var err error
	switch kind {
	case kindNewOrder, kindNewOrderRollback:
		err = c.newOrder(kind == kindNewOrderRollback)
	case kindPayment:
		err = c.payment()
	case kindOrderStatus:
		err = c.orderStatus()
	case kindDelivery:
		err = c.delivery()
	case kindStockLevel:
		err = c.stockLevel()
	default:
		err = fmt.Errorf("tpcc: no unit kind %d", kind)
	}
	if errors.Is(err, errRolledBack) {
		// The spec's rollback: done, and done right.
		return ops.Time(opRollback, func() error { return c.c.Rollback(ctx) })
	}
	if err != nil {
		_ = c.c.Rollback(ctx)
		return err
	}
	return ops.Time(opCommit, func() error { return c.c.Commit(ctx) })
}

// Close releases the terminal's connection.
func (c *client) Close(context.Context) error { return c.c.Close() }

// time runs fn as operation op.
func (c *client) time(op int, fn func() error) error { return c.ops.Time(op, fn) }

// exec runs a statement that must change exactly want rows.
func (c *client) exec(st *backend.Stmt, want int64, args ...any) error {
	n, err := c.c.Exec(c.ctx, st, args...)
	if err == nil && n != want {
		err = workload.Inconsistent("tpcc: %q changed %d rows, want %d", st.SQL, n, want)
	}
	return err
}

// otherWarehouse is a warehouse other than home, uniform, or home when it
// is the only one (clauses 2.4.1.5 and 2.5.1.2).
func (c *client) otherWarehouse() int {
	n := c.w.cfg.Warehouses
	if n == 1 {
		return c.home
	}
	o := c.r.Int(1, n-1)
	if o >= c.home {
		o++
	}
	return o
}

// customerByLast is the customer of (w, d) named last who is at position
// ceil(n/2) of the n so named sorted by first name (clauses 2.5.2.2 and
// 2.6.2.2).
func (c *client) customerByLast(st *backend.Stmt, w, d int, last string) (int, error) {
	var ids []int
	err := c.c.Query(c.ctx, st, []any{w, d, last}, func(scan func(...any) error) error {
		var id int
		if err := scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, workload.Inconsistent("tpcc: no customer of (%d, %d) is named %s", w, d, last)
	}
	return ids[(len(ids)+1)/2-1], nil
}

// customer picks the customer of a Payment or an Order-Status: by last
// name 60 % of the time, by number otherwise (clauses 2.5.1.2, 2.6.1.2).
func (c *client) customer(st *backend.Stmt, w, d int) (int, error) {
	if c.r.Int(1, 100) <= 60 {
		return c.customerByLast(st, w, d, c.r.LastName())
	}
	return c.r.CustomerID(), nil
}

// notFound makes a row the population must hold, missing, an inconsistency.
func notFound(err error, format string, args ...any) error {
	if errors.Is(err, backend.ErrNoRows) {
		return workload.Inconsistent("tpcc: %s not found", fmt.Sprintf(format, args...))
	}
	return err
}

// cents rounds an amount read as a number to exact cents.
func cents(v float64) Money { return Money(math.Round(v * 100)) }
