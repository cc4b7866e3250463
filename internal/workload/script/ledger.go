package script

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// ledgered is a workload file with a [ledger]: its commits tell dbgauge
// crash, --backup … --restore-check and --failover which keys they made
// durable, as the built-in insert's do.
type ledgered struct {
	*scripts
	kind   int
	ledger workload.Ledger
}

// withLedger checks the file's [ledger] against the program and returns
// the workload that keeps it.
func withLedger(w *scripts) (workload.Workload, error) {
	l := w.file.Ledger
	kind := slices.IndexFunc(w.prog.Scripts, func(s *Script) bool { return s.Name == l.Transaction })
	if !w.prog.own[kind] && !w.prog.single[kind] && w.common.Commit.Mode == workload.PerOp {
		return nil, knob.Bad("run it with --commit unit (the default), or give the transaction its own BEGIN and COMMIT",
			"[ledger]: with --commit op each statement of %q commits alone, and none of them is the commit that makes the key durable", l.Transaction)
	}
	return &ledgered{scripts: w, kind: kind}, nil
}

// SetLedger makes the ledger transaction's commits tell l their keys.
func (w *ledgered) SetLedger(l workload.Ledger) { w.ledger = l }

// Client is a client whose ledger transaction's commits are marked.
func (w *ledgered) Client(ctx context.Context, db backend.DB, id int, rng *rand.Rand) (workload.Client, error) {
	c, err := w.scripts.Client(ctx, db, id, rng)
	if err != nil || w.ledger == nil {
		return c, err
	}
	c.(*Client).SetLedger(w.kind, w.file.Ledger.Variable, w.ledger.Mark)
	return c, nil
}

// Present returns the keys the ledger's table holds.
func (w *ledgered) Present(ctx context.Context, db backend.DB) (map[int64]bool, error) {
	c, err := workload.SQLConnOf(ctx, "script", db)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	l := w.file.Ledger
	out := map[int64]bool{}
	err = c.QueryAny(ctx, &backend.Stmt{SQL: "SELECT " + l.Key + " FROM " + l.Table}, nil, func(_ []string, vals []any) error {
		id, ok := vals[0].(int64)
		if !ok {
			return fmt.Errorf("[ledger]: %s.%s holds %v, not a whole number", l.Table, l.Key, vals[0])
		}
		out[id] = true
		return nil
	})
	return out, err
}
