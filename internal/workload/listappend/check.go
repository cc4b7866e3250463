package listappend

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/elle"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// names says what each kind is, for the checks.
var names = map[elle.Kind]string{
	elle.G0: "dirty write", elle.G1a: "aborted read", elle.G1b: "intermediate read", elle.G1c: "circular information flow",
	elle.GSingle: "read skew", elle.G2Item: "write skew", elle.LostUpdate: "lost update", elle.Internal: "a transaction contradicts itself",
	elle.IncompatibleOrder: "reads disagree on a list's order", elle.Duplicates: "a value twice",
}

// Check reads every key's final list (as a last transaction of the
// history, which orders the lists' tails), checks the whole history, the
// warm-up's transactions included, and reports one check per kind of
// anomaly: passed when none was found.
func (w *listAppend) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	final, err := w.finalRead(ctx, db)
	if err != nil {
		return nil, err
	}
	var h []elle.Txn
	w.mu.Lock()
	for _, c := range w.clients {
		h = append(h, c.history...)
	}
	w.mu.Unlock()
	h = append(h, final)
	r := elle.Check(h, elle.Options{})
	w.mu.Lock()
	w.checked = &r
	w.mu.Unlock()
	checks := []workload.Check{{Name: "history", OK: true, Detail: fmt.Sprintf(
		"%d transactions (%d committed, %d aborted, %d of unknown outcome) and %d operations, the final read of %d keys included; %d ww, %d wr, %d rw dependencies; %d strongly connected components",
		r.Txns, r.Committed, r.Aborted, r.Unknown, r.Ops, len(final.Ops), r.Edges["ww"], r.Edges["wr"], r.Edges["rw"], r.Components)}}
	for _, k := range elle.Kinds {
		n := r.Counts[k]
		detail := "none"
		if n > 0 {
			detail = fmt.Sprintf("%d, e.g. %s", n, strings.ReplaceAll(r.Examples[k], "\n  ", " | "))
		}
		checks = append(checks, workload.Check{Name: string(k) + " (" + names[k] + ")", OK: n == 0, Detail: detail})
	}
	return checks, nil
}

// finalRead reads every list in one statement.
func (w *listAppend) finalRead(ctx context.Context, db backend.DB) (elle.Txn, error) {
	t := elle.Txn{Client: -1, Status: elle.Committed}
	c, err := workload.SQLConnOf(ctx, Spec.Name, db)
	if err != nil {
		return t, err
	}
	defer c.Close()
	err = workload.InSQLTx(ctx, c, func() error {
		return c.Query(ctx, allLists, nil, func(scan func(dest ...any) error) error {
			var k int64
			var text string
			if err := scan(&k, &text); err != nil {
				return err
			}
			l, err := parse(text)
			t.Ops = append(t.Ops, elle.Op{Key: k, List: l, Done: true})
			return err
		})
	})
	return t, err
}

// Figures are the anomalies found, by kind (after the checks), for the
// summary and for a matrix's comparison of isolation levels.
func (w *listAppend) Figures(workload.Measured) []workload.Figure {
	w.mu.Lock()
	r := w.checked
	w.mu.Unlock()
	if r == nil {
		return nil
	}
	figs := make([]workload.Figure, 0, len(elle.Kinds))
	for _, k := range elle.Kinds[:7] {
		none := r.Counts[k] == 0
		figs = append(figs, workload.Figure{Name: string(k), Value: float64(r.Counts[k]), Unit: "found", Detail: names[k], Pass: &none})
	}
	return figs
}
