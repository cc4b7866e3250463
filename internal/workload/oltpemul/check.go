package oltpemul

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Check totals the turnover logs a last time (both services), then proves
// the books: the saldos against the documents, the quantity FIFO against
// the documents' lines (srv_find_qd_qs_mism, for every line at once), the
// cost FIFO's rows against their documents, every document's cost against
// its lines. It runs the checks of the table checks, in their order; a
// failed check names the first rows it found wrong.
func (w *emul) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	sdb, err := workload.SQLOf("oltp-emul", db)
	if err != nil {
		return nil, err
	}
	c, err := sdb.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if w.st == nil {
		w.dial = sdb.Dialect()
		w.st = newStmts(w.dial)
	}
	cl := &client{w: w, c: c, rng: workload.NewRand(w.common.Seed, 4)}
	if err := cl.txMode(ctx); err != nil {
		return nil, err
	}
	for _, k := range []int{uMakeInvntSaldo, uMakeMoneySaldo} {
		if err := cl.unit(ctx, k, noOps{}, 0); err != nil {
			return nil, fmt.Errorf("the final %s: %w", units[k].name, err)
		}
	}
	b, err := readBooks(ctx, c)
	if err != nil {
		return nil, err
	}
	b.ourFirm = w.ourFirm
	out := make([]workload.Check, len(checks))
	for i, ch := range checks {
		p, passed := ch.run(b)
		out[i] = p.check(ch.name, passed)
	}
	return out, nil
}

// checks are oltp-emul's checks of the books, in the order results show
// them (docs/workloads/oltp-emul.md): each one's name, and the function
// that returns the rows it found wrong and what it says when it found none.
var checks = []struct {
	name string
	run  func(b *books) (p problems, passed string)
}{
	{"saldo_not_negative", saldoNotNegative},
	{"saldo_acn_zero", saldoACNZero},
	{"saldo_equals_documents", saldoEqualsDocuments},
	{"money_saldo_equals_documents", moneySaldoEqualsDocuments},
	{"turnover_logs_totalled", turnoverLogsTotalled},
	{"qty_fifo_matches_lines", qtyFIFOMatchesLines},
	{"qty_fifo_takers_match_lines", qtyFIFOTakersMatchLines},
	{"document_totals_equal_lines", documentTotalsEqualLines},
	{"cost_fifo_matches_documents", costFIFOMatchesDocuments},
}

// books are the rows the checks read, each query run once after the final
// totalling; every column is an integer.
type books struct {
	saldos    [][]int64 // ware, its ten remainders (saldoCols)
	byOp      [][]int64 // ware, operation, quantity and purchase cost of its lines
	money     [][]int64 // agent, purchase and retail saldo
	moneyDocs [][]int64 // agent, operation, purchase and retail cost of its documents
	logs      [][]int64 // log (0 inventory, 1 money), rows left in it
	lines     [][]int64 // line, quantity, operation, agent, document
	waiting   [][]int64 // line, its operation, the stage waited for, quantity
	taken     [][]int64 // line, its operation, the stage that took, quantity
	takers    [][]int64 // taking line, source operation, quantity
	totals    [][]int64 // document, purchase and retail cost, and its lines'
	pd        [][]int64 // cost FIFO row, document, operation, cost, the document's operation
	ps        [][]int64 // paid-off row, its two documents, how many of them exist
	ourFirm   int64
}

// readBooks reads the rows the checks prove.
func readBooks(ctx context.Context, c backend.Conn) (*books, error) {
	r := &reader{ctx: ctx, c: c}
	b := &books{}
	b.saldos = r.rows(11, `SELECT id, qty_clo, qty_clr, qty_ord, qty_sup, qty_avl, qty_res, qty_inc, qty_out, cost_inc, cost_out FROM oe_invnt_saldo`)
	b.byOp = r.rows(4, `SELECT d.ware_id, h.optype_id, sum(d.qty), sum(d.cost_purchase) FROM oe_doc_data d JOIN oe_doc_list h ON h.id = d.doc_id GROUP BY d.ware_id, h.optype_id`)
	b.money = r.rows(3, `SELECT agent_id, cost_purchase, cost_retail FROM oe_money_saldo`)
	b.moneyDocs = r.rows(4, `SELECT agent_id, optype_id, sum(cost_purchase), sum(cost_retail) FROM oe_doc_list WHERE optype_id IN (2100, 3400, 4000, 5000) GROUP BY agent_id, optype_id`)
	b.logs = append(r.rows(2, `SELECT 0, count(*) FROM oe_invnt_turnover_log`), r.rows(2, `SELECT 1, count(*) FROM oe_money_turnover_log`)...)
	b.lines = r.rows(5, `SELECT d.id, d.qty, h.optype_id, h.agent_id, d.doc_id FROM oe_doc_data d JOIN oe_doc_list h ON h.id = d.doc_id`)
	b.waiting = r.rows(4, `SELECT snd_id, snd_optype_id, rcv_optype_id, sum(snd_qty) FROM oe_qdistr GROUP BY snd_id, snd_optype_id, rcv_optype_id`)
	b.taken = r.rows(4, `SELECT snd_id, snd_optype_id, rcv_optype_id, sum(snd_qty) FROM oe_qstorned GROUP BY snd_id, snd_optype_id, rcv_optype_id`)
	b.takers = r.rows(3, `SELECT rcv_id, snd_optype_id, sum(snd_qty) FROM oe_qstorned WHERE rcv_id <> 0 GROUP BY rcv_id, snd_optype_id`)
	b.totals = r.rows(5, `SELECT h.id, h.cost_purchase, h.cost_retail, coalesce(sum(d.cost_purchase), 0), coalesce(sum(d.cost_retail), 0) FROM oe_doc_list h LEFT JOIN oe_doc_data d ON d.doc_id = h.id WHERE h.optype_id NOT IN (4000, 5000) GROUP BY h.id, h.cost_purchase, h.cost_retail`)
	b.pd = r.rows(5, `SELECT p.id, p.snd_id, p.snd_optype_id, p.snd_cost, coalesce(h.optype_id, 0) FROM oe_pdistr p LEFT JOIN oe_doc_list h ON h.id = p.snd_id`)
	b.ps = r.rows(4, `SELECT p.id, p.snd_id, p.rcv_id, (SELECT count(*) FROM oe_doc_list h WHERE h.id = p.snd_id) + (SELECT count(*) FROM oe_doc_list h WHERE h.id = p.rcv_id) FROM oe_pstorned p`)
	return b, r.err
}

// saldoNotNegative: no ware's remainder below zero.
func saldoNotNegative(b *books) (p problems, passed string) {
	for _, x := range b.saldos {
		for i, v := range x[1:] {
			if v < 0 {
				p.add("ware %d: %s = %d", x[0], saldoCols[i], v)
			}
		}
	}
	return p, fmt.Sprintf("no remainder below zero in %d wares' saldos", len(b.saldos))
}

// saldoACNZero: a ware's stock on hand and its cost are zero together
// (invnt_saldo_acn_zero).
func saldoACNZero(b *books) (p problems, passed string) {
	for _, x := range b.saldos {
		var s saldo
		copy(s[:], x[1:])
		if (s[4]+s[5] == 0) != (s[8]-s[9] == 0) {
			p.add("ware %d: %d units on hand (avl %d + res %d) worth %d (cost_inc %d − cost_out %d)", x[0], s[4]+s[5], s[4], s[5], s[8]-s[9], s[8], s[9])
		}
	}
	return p, "stock on hand and its cost are zero together, for every ware (invnt_saldo_acn_zero)"
}

// saldoEqualsDocuments: each ware's saldo is what its documents' lines
// say, and a ware with documents that move it has a saldo.
func saldoEqualsDocuments(b *books) (p problems, passed string) {
	want := b.documentedSaldos()
	have := map[int64]bool{}
	for _, x := range b.saldos {
		ware := x[0]
		have[ware] = true
		var s, wnt saldo
		copy(s[:], x[1:])
		if want[ware] != nil {
			wnt = *want[ware]
		}
		for i := range s {
			if s[i] != wnt[i] {
				p.add("ware %d: %s saldo %d, documents %d", ware, saldoCols[i], s[i], wnt[i])
			}
		}
	}
	for _, ware := range slices.Sorted(maps.Keys(want)) {
		if !have[ware] && *want[ware] != (saldo{}) {
			p.add("ware %d: no saldo, documents %v", ware, *want[ware])
		}
	}
	return p, "every remainder of every ware equals what the documents' lines say, after the final totalling"
}

// documentedSaldos are each ware's remainders as its documents' lines make
// them, operation by operation.
func (b *books) documentedSaldos() map[int64]*saldo {
	want := map[int64]*saldo{}
	for _, x := range b.byOp {
		ware, op, q, p := x[0], x[1], x[2], x[3]
		if want[ware] == nil {
			want[ware] = &saldo{}
		}
		s := want[ware]
		switch op {
		case opCLO, opCLR:
			s[0] += q
			if op == opCLR {
				s[1] += q
			}
		case opORD:
			s[0] -= q
			s[2] += q
		case opSUP:
			s[2] -= q
			s[3] += q
		case opINC:
			s[2] -= q
			s[4] += q
			s[6] += q
			s[8] += p
		case opRES:
			s[4] -= q
			s[5] += q
		case opSAL:
			s[4] -= q
			s[7] += q
			s[9] += p
		}
	}
	return want
}

// moneySaldoEqualsDocuments: what we owe each supplier (invoices in stock
// less payments), what each customer owes us (realizations less payments).
func moneySaldoEqualsDocuments(b *books) (p problems, passed string) {
	want := map[int64][2]int64{}
	for _, x := range b.moneyDocs {
		m := want[x[0]]
		switch x[1] {
		case opINC:
			m[0] += x[2]
		case opPSU:
			m[0] -= x[2]
		case opSAL:
			m[1] += x[3]
		case opPCU:
			m[1] -= x[3]
		}
		want[x[0]] = m
	}
	have := map[int64]bool{}
	for _, x := range b.money {
		have[x[0]] = true
		if m := want[x[0]]; x[1] != m[0] || x[2] != m[1] {
			p.add("agent %d: saldo %d purchase, %d retail; documents %d, %d", x[0], x[1], x[2], m[0], m[1])
		}
	}
	for _, a := range slices.Sorted(maps.Keys(want)) {
		if m := want[a]; !have[a] && m != [2]int64{} {
			p.add("agent %d: no saldo; documents %d purchase, %d retail", a, m[0], m[1])
		}
	}
	return p, fmt.Sprintf("%d agents' saldos equal their invoices, realizations and payments (below zero: an advance)", len(b.money))
}

// turnoverLogsTotalled: the final totalling left no row in either log.
func turnoverLogsTotalled(b *books) (p problems, passed string) {
	for _, x := range b.logs {
		if x[1] != 0 {
			p.add("%d rows left in the %s turnover log", x[1], map[int64]string{0: "inventory", 1: "money"}[x[0]])
		}
	}
	return p, "the final totalling left no row in either turnover log (each totalling deletes what it totalled)"
}

// qtyFIFOMatchesLines: each line's units wait for, or were taken by, each
// stage after it (srv_find_qd_qs_mism), and no row is of a line that sends
// nothing there.
func qtyFIFOMatchesLines(b *books) (p problems, passed string) {
	wait, tk := map[key]int64{}, map[key]int64{}
	waitOp := map[key]int64{}
	for _, x := range b.waiting {
		k := key{x[0], x[2]}
		wait[k] += x[3]
		if waitOp[k] != 0 && waitOp[k] != x[1] {
			p.add("line %d: rows waiting for %d from operations %d and %d", x[0], x[2], waitOp[k], x[1])
		}
		waitOp[k] = x[1]
	}
	for _, x := range b.taken {
		tk[key{x[0], x[2]}] += x[3]
	}
	expected := map[key]bool{}
	for _, l := range b.lines {
		id, q, op := l[0], l[1], l[2]
		for _, rcv := range b.stagesAfter(op, l[3]) {
			k := key{id, rcv}
			expected[k] = true
			if n := wait[k] + tk[k]; n != q {
				p.add("line %d of operation %d: qty %d, %d rows waiting for %d and %d taken", id, op, q, wait[k], rcv, tk[k])
			}
			if wop := waitOp[k]; wait[k] > 0 && wop != op && (op != opSAL || wop != opRES) {
				p.add("line %d of operation %d: its rows wait as from operation %d", id, op, wop)
			}
		}
		if op == opRES || op == opSAL {
			if wait[key{id, opSAL}] > 0 && op == opSAL || tk[key{id, opSAL}] > 0 && op == opRES {
				p.add("line %d of operation %d: %d rows waiting for the write-off, %d written off", id, op, wait[key{id, opSAL}], tk[key{id, opSAL}])
			}
		}
	}
	for _, k := range sortedKeys(wait, tk) {
		if !expected[k] {
			p.add("rows of line %d for %d, which is no line of an operation sending there (%d waiting, %d taken)", k.line, k.rcv, wait[k], tk[k])
		}
	}
	return p, fmt.Sprintf("each of %d lines' units waits for, or was taken by, every stage after it (srv_find_qd_qs_mism)", len(b.lines))
}

// stagesAfter are the operations a line of operation op of agent sends its
// units to: a customer order's go to a reserve too unless it is our firm's.
func (b *books) stagesAfter(op, agent int64) []int64 {
	switch op {
	case opCLO:
		if agent != b.ourFirm {
			return []int64{opORD, opRES}
		}
		return []int64{opORD}
	case opORD:
		return []int64{opSUP}
	case opSUP, opINC:
		return []int64{opRES}
	case opRES, opSAL:
		return []int64{opSAL}
	}
	return nil
}

// qtyFIFOTakersMatchLines: each line took its quantity from the stage
// before it, and no row was taken by a line that is gone.
func qtyFIFOTakersMatchLines(b *books) (p problems, passed string) {
	got := map[key]int64{} // by taking line and source operation
	for _, x := range b.takers {
		got[key{x[0], x[1]}] += x[2]
	}
	lineOp := map[int64]int64{}
	for _, l := range b.lines {
		id, q, op := l[0], l[1], l[2]
		lineOp[id] = op
		switch op {
		case opRES, opSAL:
			if n := got[key{id, opINC}]; n != q {
				p.add("reserve line %d: qty %d, took %d units of stock", id, q, n)
			}
			if n := got[key{id, opCLO}]; n > q {
				p.add("reserve line %d: qty %d, took %d units of its customer order", id, q, n)
			}
		case opSUP, opINC:
			if n := got[key{id, opORD}]; n != q {
				p.add("invoice line %d: qty %d, took %d units of supplier orders", id, q, n)
			}
		case opORD:
			if n := got[key{id, opCLO}]; n > q {
				p.add("supplier order line %d: qty %d, took %d units of customer orders", id, q, n)
			}
		}
	}
	for k := range got {
		if _, ok := lineOp[k.line]; !ok {
			p.add("rows taken by line %d, which is gone", k.line)
		}
	}
	return p, "each line took its quantity from the stage before it; no row taken by a line that is gone"
}

// documentTotalsEqualLines: every document's costs are its lines' sums.
func documentTotalsEqualLines(b *books) (p problems, passed string) {
	for _, x := range b.totals {
		if x[1] != x[3] || x[2] != x[4] {
			p.add("document %d: total %d purchase, %d retail; lines %d, %d", x[0], x[1], x[2], x[3], x[4])
		}
	}
	return p, fmt.Sprintf("all %d documents' costs equal their lines'", len(b.totals))
}

// costFIFOMatchesDocuments: the cost FIFO's rows belong to documents of
// their operation, and its paid-off records name documents that exist.
// (How much waits is not the document's cost less what paid it: the
// original's second pass takes the payer's oldest rows, not the payment's
// own, and a cancellation gives back to the payment; its cost FIFO is
// approximate, the money saldos exact.)
func costFIFOMatchesDocuments(b *books) (p problems, passed string) {
	for _, x := range b.pd {
		if x[4] != x[2] {
			p.add("cost row %d: document %d is of operation %d, not %d", x[0], x[1], x[4], x[2])
		}
	}
	for _, x := range b.ps {
		if x[3] != 2 {
			p.add("paid-off row %d: documents %d and %d, %d of them exist", x[0], x[1], x[2], x[3])
		}
	}
	return p, fmt.Sprintf("%d rows of the cost FIFO belong to documents of their operation; every paid-off record names documents that exist", len(b.pd))
}

// reader runs the checks' queries, keeping the first error.
type reader struct {
	ctx context.Context
	c   backend.Conn
	err error
}

// rows returns the rows of q, whose n columns are integers.
func (r *reader) rows(n int, q string) [][]int64 {
	if r.err != nil {
		return nil
	}
	var out [][]int64
	r.err = r.c.Query(r.ctx, &backend.Stmt{SQL: strings.Join(strings.Fields(q), " ")}, nil, func(scan func(dest ...any) error) error {
		vals := make([]int64, n)
		dest := make([]any, n)
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := scan(dest...); err != nil {
			return err
		}
		out = append(out, vals)
		return nil
	})
	return out
}

// key is a line and the operation its rows wait for (or were taken by).
type key struct{ line, rcv int64 }

// sortedKeys returns the keys of a and b, in order.
func sortedKeys(a, b map[key]int64) []key {
	var out []key
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].line < out[j].line || out[i].line == out[j].line && out[i].rcv < out[j].rcv
	})
	return out
}

// problems collects the rows a check found wrong, naming the first few.
type problems struct {
	n     int
	first []string
}

func (p *problems) add(format string, args ...any) {
	p.n++
	if len(p.first) < 5 {
		p.first = append(p.first, fmt.Sprintf(format, args...))
	}
}

func (p *problems) check(name, okDetail string) workload.Check {
	if p.n == 0 {
		return workload.Check{Name: name, OK: true, Detail: okDetail}
	}
	more := ""
	if p.n > len(p.first) {
		more = fmt.Sprintf("; and %d more", p.n-len(p.first))
	}
	return workload.Check{Name: name, OK: false, Detail: fmt.Sprintf("%d wrong: %s%s", p.n, strings.Join(p.first, "; "), more)}
}
