package oltpemul

import (
	"context"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// The tables, in portable SQL. Money is in cents (BIGINT), quantities are
// whole units. Ids come from the workload (see initIDs), so no dialect's
// identity columns are needed.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS oe_wares (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL, price BIGINT NOT NULL)`,
	// kind S supplier, C customer
	`CREATE TABLE IF NOT EXISTS oe_contractors (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL, kind CHAR(1) NOT NULL)`,
	// kind CO customer order (state N new, O ordered from a supplier, R reserved, S sold, X cancelled),
	// SO supplier order (N new, I invoiced), SI supplier invoice (N new, A accepted);
	// parent is the document that gathered this one.
	`CREATE TABLE IF NOT EXISTS oe_docs (id BIGINT PRIMARY KEY, kind CHAR(2) NOT NULL, state CHAR(1) NOT NULL,
		contractor BIGINT NOT NULL, parent BIGINT NOT NULL, total BIGINT NOT NULL, created BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS oe_docs_pick ON oe_docs (kind, state, id)`,
	`CREATE INDEX IF NOT EXISTS oe_docs_parent ON oe_docs (parent)`,
	`CREATE TABLE IF NOT EXISTS oe_lines (id BIGINT PRIMARY KEY, doc BIGINT NOT NULL, ware BIGINT NOT NULL,
		qty BIGINT NOT NULL, price BIGINT NOT NULL, amount BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS oe_lines_doc ON oe_lines (doc)`,
	// The insert-only quantity turnover log; agg = 1 once aggregated.
	`CREATE TABLE IF NOT EXISTS oe_qty_log (id BIGINT PRIMARY KEY, ware BIGINT NOT NULL, doc BIGINT NOT NULL,
		clo BIGINT NOT NULL, ord BIGINT NOT NULL, sup BIGINT NOT NULL, avl BIGINT NOT NULL, res BIGINT NOT NULL,
		inc BIGINT NOT NULL, outq BIGINT NOT NULL, agg SMALLINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS oe_qty_log_agg ON oe_qty_log (agg, id)`,
	`CREATE TABLE IF NOT EXISTS oe_balances (ware BIGINT PRIMARY KEY, clo BIGINT NOT NULL, ord BIGINT NOT NULL,
		sup BIGINT NOT NULL, avl BIGINT NOT NULL, res BIGINT NOT NULL, inc BIGINT NOT NULL, outq BIGINT NOT NULL)`,
	// The insert-only money turnover log: what a contractor owes us (customer)
	// or we owe it (supplier) goes up with a sale or an accepted invoice, down
	// with a payment.
	`CREATE TABLE IF NOT EXISTS oe_money_log (id BIGINT PRIMARY KEY, contractor BIGINT NOT NULL, doc BIGINT NOT NULL,
		delta BIGINT NOT NULL, agg SMALLINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS oe_money_log_agg ON oe_money_log (agg, id)`,
	`CREATE INDEX IF NOT EXISTS oe_money_log_contractor ON oe_money_log (contractor, agg)`,
	`CREATE TABLE IF NOT EXISTS oe_money (contractor BIGINT PRIMARY KEY, balance BIGINT NOT NULL)`,
	// FIFO distribution: one source row per unit of stock an accepted invoice
	// brought (taken = 0 while free, else the customer order it is reserved
	// for); consumers are the customer orders' claims on them.
	`CREATE TABLE IF NOT EXISTS oe_fifo_src (id BIGINT PRIMARY KEY, ware BIGINT NOT NULL, src_doc BIGINT NOT NULL, taken BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS oe_fifo_src_free ON oe_fifo_src (ware, taken, id)`,
	`CREATE INDEX IF NOT EXISTS oe_fifo_src_taken ON oe_fifo_src (taken)`,
	`CREATE TABLE IF NOT EXISTS oe_fifo_use (src BIGINT PRIMARY KEY, doc BIGINT NOT NULL, ware BIGINT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS oe_fifo_use_doc ON oe_fifo_use (doc)`,
	// One row: whoever holds it aggregates; the others skip.
	`CREATE TABLE IF NOT EXISTS oe_agg (id INTEGER PRIMARY KEY, runs BIGINT NOT NULL)`,
}

func createSchema(ctx context.Context, c backend.Conn, _ backend.Dialect) error {
	for _, s := range schema {
		if err := c.ExecScript(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// Id sequences, kept by the workload: seeded from the tables' maxima at load.
const (
	seqDoc = iota
	seqLine
	seqQtyLog
	seqMoneyLog
	seqFifo
	nSeq
)

var seqTables = [nSeq]string{"oe_docs", "oe_lines", "oe_qty_log", "oe_money_log", "oe_fifo_src"}

func (w *emul) initIDs(ctx context.Context, c backend.Conn) error {
	for i, t := range seqTables {
		var n int64
		if err := c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT coalesce(max(id), 0) FROM " + t}, nil, &n); err != nil {
			return err
		}
		w.ids[i].Store(n)
	}
	return nil
}

func (w *emul) id(seq int) int64 { return w.ids[seq].Add(1) }

// stmts are the statements, some of them shaped by the dialect: where the
// engine has row locks, picks take rows FOR UPDATE SKIP LOCKED, so that
// consumers never wait on each other; SQLite serialises writers (BEGIN
// IMMEDIATE) and needs no clause; Firebird 3 picks without a lock and the
// conditional update that follows decides (a lost race is retried).
type stmts struct {
	countWares, countContractors, countDocs                    *backend.Stmt
	insWare, insBalance, insContractor, insMoney, insAgg       *backend.Stmt
	insDoc, insLine, insQty, insMoneyLog, insFifo              *backend.Stmt
	pickDoc, pickDocs, setState, setParent, docLines, docTotal *backend.Stmt
	sumChildren, wareQty                                       *backend.Stmt
	freeFifo, takeFifo, useFifo, untakeFifo, delUse, delSrc    *backend.Stmt
	lockMoney, owed                                            *backend.Stmt
	lockAgg, bumpAgg, markQty, qtySums, doneQty, addBalance    *backend.Stmt
	markMoney, moneySums, doneMoney, addMoney                  *backend.Stmt
	// optimistic: picks hold no lock (Dialect.OptimisticPicks)
	optimistic bool
}

// taken is the error for a picked document that is no longer in the state
// the pick saw: a lost race where picks hold no lock, else an inconsistency.
func (s *stmts) taken(doc int64, state string) error {
	if s.optimistic {
		return workload.LostRace("oltp-emul: document %d left state %s before this transaction changed it", doc, state)
	}
	return workload.Inconsistent("oltp-emul: document %d left state %s under a lock held", doc, state)
}

func newStmts(d backend.Dialect) *stmts {
	lock := d.LockSkip
	s := func(q string) *backend.Stmt { return &backend.Stmt{SQL: strings.Join(strings.Fields(q), " ")} }
	return &stmts{
		countWares:       s(`SELECT count(*) FROM oe_wares`),
		countContractors: s(`SELECT count(*) FROM oe_contractors`),
		countDocs:        s(`SELECT count(*) FROM oe_docs`),
		insWare:          s(`INSERT INTO oe_wares (id, name, price) VALUES (?, ?, ?)`),
		insBalance:       s(`INSERT INTO oe_balances (ware, clo, ord, sup, avl, res, inc, outq) VALUES (?, 0, 0, 0, 0, 0, 0, 0)`),
		insContractor:    s(`INSERT INTO oe_contractors (id, name, kind) VALUES (?, ?, ?)`),
		insMoney:         s(`INSERT INTO oe_money (contractor, balance) VALUES (?, 0)`),
		insAgg:           s(`INSERT INTO oe_agg (id, runs) VALUES (1, 0)`),

		insDoc:      s(`INSERT INTO oe_docs (id, kind, state, contractor, parent, total, created) VALUES (?, ?, ?, ?, 0, ?, ?)`),
		insLine:     s(`INSERT INTO oe_lines (id, doc, ware, qty, price, amount) VALUES (?, ?, ?, ?, ?, ?)`),
		insQty:      s(`INSERT INTO oe_qty_log (id, ware, doc, clo, ord, sup, avl, res, inc, outq, agg) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`),
		insMoneyLog: s(`INSERT INTO oe_money_log (id, contractor, doc, delta, agg) VALUES (?, ?, ?, ?, 0)`),
		insFifo:     s(`INSERT INTO oe_fifo_src (id, ware, src_doc, taken) VALUES (?, ?, ?, 0)`),

		// The oldest document of a kind in a state that nobody else holds.
		pickDoc:  s(`SELECT id, contractor, total FROM oe_docs WHERE kind = ? AND state = ? ORDER BY id LIMIT 1` + lock),
		pickDocs: s(`SELECT id FROM oe_docs WHERE kind = ? AND state = ? ORDER BY id LIMIT ?` + lock),
		setState: s(`UPDATE oe_docs SET state = ? WHERE id = ? AND state = ?`),
		// setParent marks a gathered document with the one that gathered it.
		setParent:   s(`UPDATE oe_docs SET state = ?, parent = ? WHERE id = ? AND state = ?`),
		docLines:    s(`SELECT ware, qty, price FROM oe_lines WHERE doc = ? ORDER BY id`),
		docTotal:    s(`UPDATE oe_docs SET total = ? WHERE id = ?`),
		sumChildren: s(`SELECT l.ware, sum(l.qty) FROM oe_lines l JOIN oe_docs d ON d.id = l.doc WHERE d.parent = ? GROUP BY l.ware ORDER BY l.ware`),
		wareQty:     s(`SELECT price FROM oe_wares WHERE id = ?`),

		// FIFO: reserve the oldest free units of a ware; release them; ship them.
		freeFifo:   s(`SELECT count(*) FROM oe_fifo_src WHERE ware = ? AND taken = 0`),
		takeFifo:   s(takeFifo(d)),
		useFifo:    s(`INSERT INTO oe_fifo_use (src, doc, ware) SELECT id, taken, ware FROM oe_fifo_src WHERE taken = ?`),
		untakeFifo: s(`UPDATE oe_fifo_src SET taken = 0 WHERE taken = ?`),
		delUse:     s(`DELETE FROM oe_fifo_use WHERE doc = ?`),
		delSrc:     s(`DELETE FROM oe_fifo_src WHERE taken = ?`),

		// Payments: lock the contractor's balance row, then read what is owed.
		lockMoney: s(`UPDATE oe_money SET balance = balance WHERE contractor = ?`),
		owed:      s(`SELECT m.balance + coalesce((SELECT sum(delta) FROM oe_money_log l WHERE l.contractor = m.contractor AND l.agg = 0), 0) FROM oe_money m WHERE m.contractor = ?`),

		// Aggregation, one client at a time: the one holding oe_agg's row.
		lockAgg: s(`SELECT runs FROM oe_agg WHERE id = 1` + lock),
		bumpAgg: s(`UPDATE oe_agg SET runs = runs + 1 WHERE id = 1`),
		// Mark the rows committed so far (2), sum exactly those, then call
		// them aggregated (1): a row committed meanwhile waits for next time.
		markQty:    s(`UPDATE oe_qty_log SET agg = 2 WHERE agg = 0`),
		qtySums:    s(`SELECT ware, sum(clo), sum(ord), sum(sup), sum(avl), sum(res), sum(inc), sum(outq) FROM oe_qty_log WHERE agg = 2 GROUP BY ware ORDER BY ware`),
		doneQty:    s(`UPDATE oe_qty_log SET agg = 1 WHERE agg = 2`),
		addBalance: s(`UPDATE oe_balances SET clo = clo + ?, ord = ord + ?, sup = sup + ?, avl = avl + ?, res = res + ?, inc = inc + ?, outq = outq + ? WHERE ware = ?`),
		markMoney:  s(`UPDATE oe_money_log SET agg = 2 WHERE agg = 0`),
		moneySums:  s(`SELECT contractor, sum(delta) FROM oe_money_log WHERE agg = 2 GROUP BY contractor ORDER BY contractor`),
		doneMoney:  s(`UPDATE oe_money_log SET agg = 1 WHERE agg = 2`),
		addMoney:   s(`UPDATE oe_money SET balance = balance + ? WHERE contractor = ?`),
		optimistic: d.OptimisticPicks,
	}
}

// takeFifo reserves the oldest free units of a ware. MariaDB and MySQL refuse
// LIMIT in an IN subquery and a subquery on the table being updated, and
// Firebird 3 has no SKIP LOCKED; both take ORDER BY and LIMIT (Firebird:
// ROWS) on the UPDATE itself, which waits on rows other consumers hold
// instead of skipping them.
func takeFifo(d backend.Dialect) string {
	if d.Name == "mysql" || d.Name == "firebird" {
		return `UPDATE oe_fifo_src SET taken = ? WHERE ware = ? AND taken = 0 ORDER BY id LIMIT ?`
	}
	return `UPDATE oe_fifo_src SET taken = ? WHERE id IN (SELECT id FROM oe_fifo_src WHERE ware = ? AND taken = 0 ORDER BY id LIMIT ?` + d.LockSkip + `)`
}
