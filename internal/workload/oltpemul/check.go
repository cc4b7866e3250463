package oltpemul

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// names of the balance columns, in delta's order.
var cols = [7]string{"clo", "ord", "sup", "avl", "res", "inc", "out"}

// Check aggregates the logs a last time, then proves the books: no balance
// below zero, AVL + RES = INC − OUT per ware, balances equal to the sums of
// their logs and to what the documents and the FIFO say, every document's
// total equal to the sum of its lines. A failed check names its rows.
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
		w.st = newStmts(sdb.Dialect())
	}
	cl := &client{w: w, c: c}
	if err := c.Begin(ctx); err != nil {
		return nil, err
	}
	if err := cl.aggregate(ctx, noOps{}); err != nil {
		return nil, rollback(ctx, c, fmt.Errorf("final aggregation: %w", err))
	}
	if err := c.Commit(ctx); err != nil {
		return nil, err
	}

	bal, err := int64Rows(ctx, c, 8, `SELECT ware, clo, ord, sup, avl, res, inc, outq FROM oe_balances`)
	if err != nil {
		return nil, err
	}
	logs, err := int64Rows(ctx, c, 8, `SELECT ware, sum(clo), sum(ord), sum(sup), sum(avl), sum(res), sum(inc), sum(outq) FROM oe_qty_log GROUP BY ware`)
	if err != nil {
		return nil, err
	}
	docs := map[int64][]int64{}
	for i, q := range []string{
		`SELECT l.ware, sum(l.qty) FROM oe_lines l JOIN oe_docs d ON d.id = l.doc WHERE d.kind = 'CO' AND d.state = 'N' GROUP BY l.ware`,
		`SELECT l.ware, sum(l.qty) FROM oe_lines l JOIN oe_docs d ON d.id = l.doc WHERE d.kind = 'SO' AND d.state = 'N' GROUP BY l.ware`,
		`SELECT l.ware, sum(l.qty) FROM oe_lines l JOIN oe_docs d ON d.id = l.doc WHERE d.kind = 'SI' AND d.state = 'N' GROUP BY l.ware`,
		`SELECT ware, count(*) FROM oe_fifo_src WHERE taken = 0 GROUP BY ware`,
		`SELECT ware, count(*) FROM oe_fifo_src WHERE taken <> 0 GROUP BY ware`,
	} {
		rows, err := int64Rows(ctx, c, 2, q)
		if err != nil {
			return nil, err
		}
		for ware, v := range rows {
			if docs[ware] == nil {
				docs[ware] = make([]int64, 5)
			}
			docs[ware][i] = v[0]
		}
	}
	money, err := int64Rows(ctx, c, 2, `SELECT contractor, balance FROM oe_money`)
	if err != nil {
		return nil, err
	}
	moneyLogs, err := int64Rows(ctx, c, 2, `SELECT contractor, sum(delta) FROM oe_money_log GROUP BY contractor`)
	if err != nil {
		return nil, err
	}
	badTotals, err := int64Rows(ctx, c, 3, `SELECT d.id, d.total, coalesce(sum(l.amount), 0) FROM oe_docs d LEFT JOIN oe_lines l ON l.doc = d.id GROUP BY d.id, d.total HAVING d.total <> coalesce(sum(l.amount), 0)`)
	if err != nil {
		return nil, err
	}
	pending, err := int64Rows(ctx, c, 5, `SELECT 0, (SELECT count(*) FROM oe_qty_log WHERE agg <> 1), (SELECT count(*) FROM oe_money_log WHERE agg <> 1), (SELECT count(*) FROM oe_fifo_use), (SELECT count(*) FROM oe_fifo_src WHERE taken <> 0)`)
	if err != nil {
		return nil, err
	}
	p := pending[0]

	var negative, equation, vsLogs, vsDocs, vsMoney, totals problems
	for _, ware := range keys(bal) {
		b := bal[ware]
		for i, v := range b {
			if v < 0 {
				negative.add("ware %d: %s = %d", ware, cols[i], v)
			}
		}
		if b[3]+b[4] != b[5]-b[6] {
			equation.add("ware %d: avl %d + res %d ≠ inc %d − out %d", ware, b[3], b[4], b[5], b[6])
		}
		l := logs[ware]
		if l == nil {
			l = make([]int64, 7)
		}
		for i := range cols {
			if b[i] != l[i] {
				vsLogs.add("ware %d: %s balance %d, log sum %d", ware, cols[i], b[i], l[i])
			}
		}
		d := docs[ware]
		if d == nil {
			d = make([]int64, 5)
		}
		for i, what := range []string{"clo (new customer orders)", "ord (new supplier orders)", "sup (new invoices)", "avl (free FIFO units)", "res (reserved FIFO units)"} {
			if b[i] != d[i] {
				vsDocs.add("ware %d: %s: balance %d, documents %d", ware, what, b[i], d[i])
			}
		}
	}
	for _, k := range keys(money) {
		m := money[k][0]
		if m < 0 {
			negative.add("contractor %d: balance %d", k, m)
		}
		var l int64
		if ml := moneyLogs[k]; ml != nil {
			l = ml[0]
		}
		if m != l {
			vsMoney.add("contractor %d: balance %d, log sum %d", k, m, l)
		}
	}
	for _, id := range keys(badTotals) {
		totals.add("document %d: total %d, lines %d", id, badTotals[id][0], badTotals[id][1])
	}
	return []workload.Check{
		negative.check("balances_not_negative", fmt.Sprintf("%d wares and %d contractors, none below zero", len(bal), len(money))),
		equation.check("avl_plus_res_is_inc_minus_out", fmt.Sprintf("AVL + RES = INC − OUT for all %d wares", len(bal))),
		vsLogs.check("ware_balances_equal_logs", "every ware balance equals the sum of its turnover log after the final aggregation"),
		vsMoney.check("money_balances_equal_logs", "every contractor balance equals the sum of its money log"),
		vsDocs.check("ware_balances_equal_documents", "CLO, ORD, SUP equal the new documents' lines; AVL and RES equal the free and reserved FIFO units"),
		totals.check("document_totals_equal_lines", "every document's total equals the sum of its lines"),
		{Name: "logs_aggregated_and_fifo_consumed", OK: p[0] == 0 && p[1] == 0 && p[2] == p[3],
			Detail: fmt.Sprintf("%d quantity and %d money log rows left unaggregated; %d consumer rows for %d reserved units", p[0], p[1], p[2], p[3])},
	}, nil
}

// int64Rows runs q, whose rows have n integer columns, and maps each row's
// first column to the others.
func int64Rows(ctx context.Context, c backend.Conn, n int, q string) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	err := c.Query(ctx, &backend.Stmt{SQL: strings.Join(strings.Fields(q), " ")}, nil, func(scan func(dest ...any) error) error {
		vals := make([]int64, n)
		dest := make([]any, n)
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := scan(dest...); err != nil {
			return err
		}
		out[vals[0]] = vals[1:]
		return nil
	})
	return out, err
}

func keys(m map[int64][]int64) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
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
