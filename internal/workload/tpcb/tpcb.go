// Package tpcb is pgbench's TPC-B-like transaction, on pgbench's own schema
// and data, so that dbgauge and pgbench can be measured on the same server in
// the same run. A dataset pgbench -i made is reused as it is.
package tpcb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers tpcb in the catalog.
var Spec = workload.Spec{
	Name:    "tpcb",
	Summary: "pgbench's TPC-B-like transaction (or its select-only variant) on pgbench's schema",
	Source:  "pgbench, the yardstick every PostgreSQL engineer knows",
	Unit:    "transaction",
	Units:   "transactions",
	APIs:    []backend.API{backend.SQL},
	Knobs: []knob.Spec{
		{Name: "scale", Short: "s", Default: "1", Kind: knob.Int, Uses: knob.ForLoad | knob.ForCheck, Usage: "pgbench's scale factor: N branches, 10·N tellers, 100,000·N accounts"},
		{Name: "select-only", Short: "S", Kind: knob.Switch, Usage: "pgbench -S: one SELECT of an account's balance per transaction"},
	},
	New: newTPCB,
}

// Config is tpcb's typed configuration.
type Config struct {
	Scale      int    `json:"scale"`
	SelectOnly bool   `json:"select_only"`
	Commit     string `json:"commit"`
}

// pgbench's constants (pgbench.c: naccounts, ntellers, nbranches).
const (
	accountsPerBranch = 100000
	tellersPerBranch  = 10
)

const (
	opBegin = iota
	opUpdateAccount
	opSelectAccount
	opUpdateTeller
	opUpdateBranch
	opInsertHistory
	opCommit
)

var opNames = []string{"begin", "update_account", "select_account", "update_teller", "update_branch", "insert_history", "commit"}

type tpcb struct {
	cfg     Config
	common  workload.Common
	acked   atomic.Int64 // TPC-B transactions whose commit returned
	history int64        // history rows before the run
	// With --commit op each statement commits alone, and a unit that fails
	// halfway leaves its first statements committed: the check then holds
	// each table to its own acknowledged deltas, from the sums at load.
	base     [4]int64        // sums of accounts, tellers, branches, history deltas at load
	opDeltas [4]atomic.Int64 // deltas of the statements acknowledged, per table
	progress func(done, total int64)
}

// SetProgress hears the load's progress in accounts (workload.Progresser).
func (w *tpcb) SetProgress(fn func(done, total int64)) { w.progress = fn }

// loaded tells the progress of the load, when someone listens.
func (w *tpcb) loaded(done, total int) {
	if w.progress != nil {
		w.progress(int64(done), int64(total))
	}
}

// The tables whose sums the check compares.
const (
	sumAccounts = iota
	sumTellers
	sumBranches
	sumHistory
)

func newTPCB(c workload.Common, v *knob.Values) (workload.Workload, error) {
	scale, err := v.Int("scale", 1, 100_000)
	if err != nil {
		return nil, err
	}
	so, err := v.Bool("select-only")
	if err != nil {
		return nil, err
	}
	return &tpcb{cfg: Config{Scale: int(scale), SelectOnly: so, Commit: c.Commit.String()}, common: c}, nil
}

func (w *tpcb) Shape() workload.Shape {
	if w.cfg.SelectOnly {
		// The unit is its SELECT: timed once, as pgbench -S times it.
		return workload.Shape{Units: []workload.Weighted{{Name: "select-only", Weight: 1, Sole: opNames[opSelectAccount]}}, Ops: opNames}
	}
	return workload.Shape{Units: []workload.Weighted{{Name: "tpcb", Weight: 1}}, Ops: opNames}
}

func (w *tpcb) Config() any { return w.cfg }

// ReadOnly reports whether the run only reads: --select-only.
func (w *tpcb) ReadOnly() bool { return w.cfg.SelectOnly }

// The builtin scripts of pgbench (pgbench.c, "tpcb-like" and "select-only").
var (
	updAccount = &backend.Stmt{SQL: "UPDATE pgbench_accounts SET abalance = abalance + ? WHERE aid = ?"}
	selAccount = &backend.Stmt{SQL: "SELECT abalance FROM pgbench_accounts WHERE aid = ?"}
	updTeller  = &backend.Stmt{SQL: "UPDATE pgbench_tellers SET tbalance = tbalance + ? WHERE tid = ?"}
	updBranch  = &backend.Stmt{SQL: "UPDATE pgbench_branches SET bbalance = bbalance + ? WHERE bid = ?"}
	insHistory = &backend.Stmt{SQL: "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)"}
	insBranch  = &backend.Stmt{SQL: "INSERT INTO pgbench_branches (bid, bbalance) VALUES (?, 0)"}
	insTeller  = &backend.Stmt{SQL: "INSERT INTO pgbench_tellers (tid, bid, tbalance) VALUES (?, ?, 0)"}
	// genAccounts makes the accounts inside Firebird (which has no
	// multi-row VALUES): one statement instead of one round trip a row.
	genAccounts = &backend.Stmt{SQL: `EXECUTE BLOCK (n INTEGER = ?) AS
DECLARE i INTEGER = 1;
BEGIN
  WHILE (i <= n) DO
  BEGIN
    INSERT INTO pgbench_accounts (aid, bid, abalance, filler) VALUES (:i, (:i - 1) / ` + strconv.Itoa(accountsPerBranch) + ` + 1, 0, '');
    i = i + 1;
  END
END`}
	countRows = &backend.Stmt{SQL: "SELECT (SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_history)"}
	sums      = &backend.Stmt{SQL: "SELECT (SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts), (SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers), (SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches), (SELECT coalesce(sum(delta), 0) FROM pgbench_history), (SELECT count(*) FROM pgbench_history)"}
)

var tables = []string{"pgbench_history", "pgbench_tellers", "pgbench_accounts", "pgbench_branches"}

// pgbench -i's tables, fillfactor 100.
var ddl = []string{
	"CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))",
	"CREATE TABLE pgbench_tellers (tid int not null, bid int, tbalance int, filler char(84))",
	"CREATE TABLE pgbench_accounts (aid int not null, bid int, abalance int, filler char(84))",
	"CREATE TABLE pgbench_branches (bid int not null, bbalance int, filler char(88))",
}

// Load reuses a dataset of the same scale (one pgbench -i made, too) or
// builds one as pgbench -i does: tables, data (COPY where the engine has it),
// VACUUM, then primary keys.
func (w *tpcb) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	sdb, err := workload.SQLOf("tpcb", db)
	if err != nil {
		return workload.Dataset{}, err
	}
	c, err := sdb.Conn(ctx)
	if err != nil {
		return workload.Dataset{}, err
	}
	defer c.Close()
	d := sdb.Dialect()
	ds := workload.Dataset{Facts: map[string]string{"scale": strconv.Itoa(w.cfg.Scale)}}
	var n int64
	if err := c.QueryRow(ctx, &backend.Stmt{SQL: d.HasTable}, []any{"pgbench_accounts"}, &n); err != nil {
		return ds, err
	}
	var branches, accounts int64
	if n > 0 {
		if err := c.QueryRow(ctx, countRows, nil, &branches, &accounts, &w.history); err != nil {
			return ds, err
		}
	}
	if branches == int64(w.cfg.Scale) && accounts == int64(w.cfg.Scale)*accountsPerBranch {
		ds.Reused = true
	} else {
		if err := w.build(ctx, c, d); err != nil {
			return ds, fmt.Errorf("tpcb: load scale %d: %w", w.cfg.Scale, err)
		}
		// What was built is counted as a reuse would count it.
		if err := c.QueryRow(ctx, countRows, nil, &branches, &accounts, &w.history); err != nil {
			return ds, err
		}
		if branches != int64(w.cfg.Scale) || accounts != int64(w.cfg.Scale)*accountsPerBranch {
			return ds, fmt.Errorf("tpcb: load scale %d made %d branches and %d accounts, want %d and %d",
				w.cfg.Scale, branches, accounts, w.cfg.Scale, int64(w.cfg.Scale)*accountsPerBranch)
		}
	}
	if err := c.QueryRow(ctx, sums, nil, &w.base[0], &w.base[1], &w.base[2], &w.base[3], &n); err != nil {
		return ds, err
	}
	ds.Facts["accounts"] = strconv.Itoa(w.cfg.Scale * accountsPerBranch)
	ds.Facts["history"] = strconv.FormatInt(w.history, 10)
	return ds, nil
}

func (w *tpcb) build(ctx context.Context, c backend.Conn, d backend.Dialect) error {
	w.history = 0
	for _, t := range tables {
		if err := c.ExecScript(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	for _, q := range ddl {
		if d.Name == "postgres" {
			q += " WITH (fillfactor = 100)"
		}
		if err := c.ExecScript(ctx, q); err != nil {
			return err
		}
	}
	scale := w.cfg.Scale
	err := workload.InSQLTx(ctx, c, func() error {
		for b := 1; b <= scale; b++ {
			if _, err := c.Exec(ctx, insBranch, b); err != nil {
				return err
			}
		}
		for t := 1; t <= scale*tellersPerBranch; t++ {
			if _, err := c.Exec(ctx, insTeller, t, (t-1)/tellersPerBranch+1); err != nil {
				return err
			}
		}
		naccounts := scale * accountsPerBranch
		// Firebird makes the accounts itself (genAccounts), faster than
		// any copy can send them.
		if cp, ok := c.(backend.Copier); ok && d.Name != "firebird" {
			aid := 0
			_, err := cp.CopyFrom(ctx, "pgbench_accounts", []string{"aid", "bid", "abalance", "filler"}, func() ([]any, bool) {
				if aid == naccounts {
					return nil, false
				}
				aid++
				if aid%10000 == 0 {
					w.loaded(aid, naccounts)
				}
				return []any{aid, (aid-1)/accountsPerBranch + 1, 0, ""}, true
			})
			w.loaded(aid, naccounts)
			return err
		}
		return loadAccounts(ctx, c, d, naccounts, w.loaded)
	})
	if err != nil {
		return err
	}
	// pgbench -i: vacuum, then primary keys; elsewhere unique indexes.
	finish := []string{
		"CREATE UNIQUE INDEX pgbench_branches_pkey ON pgbench_branches (bid)",
		"CREATE UNIQUE INDEX pgbench_tellers_pkey ON pgbench_tellers (tid)",
		"CREATE UNIQUE INDEX pgbench_accounts_pkey ON pgbench_accounts (aid)",
	}
	if d.Name == "postgres" {
		finish = []string{
			"VACUUM ANALYZE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history",
			"ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)",
			"ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)",
			"ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)",
		}
	}
	for _, q := range finish {
		if err := c.ExecScript(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// Client returns a client running pgbench's transaction.
func (w *tpcb) Client(ctx context.Context, db backend.DB, _ int, rng *rand.Rand) (workload.Client, error) {
	c, err := workload.SQLConnOf(ctx, "tpcb", db)
	if err != nil {
		return nil, err
	}
	cl := &client{w: w, c: c, rng: rng, g: workload.Group{Commit: w.common.Commit},
		naccounts: w.cfg.Scale * accountsPerBranch, ntellers: w.cfg.Scale * tellersPerBranch}
	for op := range cl.steps {
		cl.steps[op] = func() error { return cl.step(op) }
	}
	cl.dest[0] = &cl.abalance
	cl.begin = func() error { return cl.c.Begin(cl.ctx) }
	cl.commit = func() error { return cl.c.Commit(cl.ctx) }
	return cl, nil
}

type client struct {
	w                   *tpcb
	c                   backend.Conn
	rng                 *rand.Rand
	g                   workload.Group
	naccounts, ntellers int
	pending             int64
	abalance            int64
	// The draw, as int64: the statements' arguments are bound as is
	// (database/sql's drivers take an int64 without converting it to a new
	// one, an allocation per argument).
	aid, bid, tid int64
	delta         int64
	// The operations as Ops.Time takes them, made once: closures made in
	// Do escape to the heap, an allocation per statement. ctx is Do's.
	ctx           context.Context
	steps         [opInsertHistory + 1]func() error
	begin, commit func() error
	// A statement's arguments and QueryRow's destination, reused: a
	// variadic list handed to an interface's method escapes to the heap.
	args [4]any
	dest [1]any
}

// Do runs one transaction: pgbench's \\set lines draw aid, bid, tid and delta
// uniformly, as here.
func (c *client) Do(ctx context.Context, _ int, ops workload.Ops) error {
	aid := 1 + c.rng.IntN(c.naccounts)
	c.aid, c.ctx = int64(aid), ctx
	if c.w.cfg.SelectOnly {
		return ops.Time(opSelectAccount, c.steps[opSelectAccount])
	}
	bid := 1 + c.rng.IntN(c.w.cfg.Scale)
	tid := 1 + c.rng.IntN(c.ntellers)
	delta := c.rng.IntN(10001) - 5000
	if c.g.UnitBegins() {
		if err := ops.Time(opBegin, c.begin); err != nil {
			return c.fail(ctx, err)
		}
		c.g.Open = true
	}
	c.bid, c.tid, c.delta = int64(bid), int64(tid), int64(delta)
	for op := opUpdateAccount; op <= opInsertHistory; op++ {
		if err := ops.Time(op, c.steps[op]); err != nil {
			return c.fail(ctx, err)
		}
	}
	c.pending++
	if c.g.Commit.Mode == workload.PerOp {
		c.acknowledge()
		return nil
	}
	if c.g.UnitEnds() {
		if err := ops.Time(opCommit, c.commit); err != nil {
			return c.fail(ctx, err)
		}
		c.acknowledge()
	}
	return nil
}

// step runs operation op of pgbench's transaction with the current draw,
// in Do's context.
func (c *client) step(op int) error {
	ctx, a := c.ctx, &c.args
	switch op {
	case opUpdateAccount:
		a[0], a[1] = c.delta, c.aid
		return c.write(ctx, sumAccounts, updAccount, a[:2])
	case opSelectAccount:
		a[0] = c.aid
		return c.c.QueryRow(ctx, selAccount, a[:1], c.dest[:]...)
	case opUpdateTeller:
		a[0], a[1] = c.delta, c.tid
		return c.write(ctx, sumTellers, updTeller, a[:2])
	case opUpdateBranch:
		a[0], a[1] = c.delta, c.bid
		return c.write(ctx, sumBranches, updBranch, a[:2])
	case opInsertHistory:
		a[0], a[1], a[2], a[3] = c.tid, c.bid, c.aid, c.delta
		return c.write(ctx, sumHistory, insHistory, a[:4])
	}
	return fmt.Errorf("tpcb: no operation %d", op)
}

// write runs a statement moving table's sum by the draw's delta; with
// --commit op, its success is an acknowledged commit of that delta.
func (c *client) write(ctx context.Context, table int, st *backend.Stmt, args []any) error {
	n, err := c.c.Exec(ctx, st, args...)
	if err == nil && n != 1 {
		err = workload.Inconsistent("tpcb: %q changed %d rows, want 1", st.SQL, n)
	}
	if err == nil && c.g.Commit.Mode == workload.PerOp {
		c.w.opDeltas[table].Add(c.delta)
	}
	return err
}

func (c *client) acknowledge() {
	c.w.acked.Add(c.pending)
	c.pending = 0
	c.g.Committed()
}

func (c *client) fail(ctx context.Context, err error) error {
	c.pending = 0
	return c.g.Abort(err, func() { _ = c.c.Rollback(ctx) })
}

// Pending says how many finished units ride on the open transaction
// (--commit every:N): the run engine holds them until it commits.
func (c *client) Pending() int64 { return c.g.Held() }

var _ workload.Pender = (*client)(nil)

// Close commits a group left open by --commit every:N.
func (c *client) Close(ctx context.Context) error {
	defer c.c.Close()
	if !c.g.Open {
		return nil
	}
	if err := c.c.Commit(ctx); err != nil {
		return c.fail(ctx, err)
	}
	c.acknowledge()
	return nil
}

// Check verifies what pgbench's transaction keeps true: every balance moved
// by the same deltas, and one history row per acknowledged transaction.
func (w *tpcb) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	c, err := workload.SQLConnOf(ctx, "tpcb", db)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var a, t, b, h, rows int64
	if err := c.QueryRow(ctx, sums, nil, &a, &t, &b, &h, &rows); err != nil {
		return nil, err
	}
	want := w.history + w.acked.Load()
	// Each transaction moves the four sums by its delta: they moved by as
	// much since the load, whatever they were then (a dataset another tool
	// ran on, its history emptied, as pgbench does before a run, agrees too).
	da, dt, dbr, dh := a-w.base[sumAccounts], t-w.base[sumTellers], b-w.base[sumBranches], h-w.base[sumHistory]
	checks := []workload.Check{
		{Name: "balances_agree", OK: da == dt && dt == dbr && dbr == dh,
			Detail: fmt.Sprintf("sums moved since the load: accounts %+d, tellers %+d, branches %+d, history deltas %+d", da, dt, dbr, dh)},
	}
	if w.common.Commit.Mode == workload.PerOp {
		// Units that failed halfway left their first statements committed:
		// the tables need not agree, but each must hold what was acknowledged.
		got := [4]int64{a, t, b, h}
		ok := true
		var parts []string
		for i, name := range []string{"accounts", "tellers", "branches", "history"} {
			exp := w.base[i] + w.opDeltas[i].Load()
			ok = ok && got[i] == exp
			parts = append(parts, fmt.Sprintf("%s %d (want %d)", name, got[i], exp))
		}
		checks[0] = workload.Check{Name: "balances_match_acknowledged", OK: ok,
			Detail: "--commit op: each table's sum against its load sum plus its acknowledged statements: " + strings.Join(parts, ", ")}
	}
	if !w.cfg.SelectOnly {
		checks = append(checks, workload.Check{Name: "history_matches_acknowledged", OK: rows == want,
			Detail: fmt.Sprintf("%d history rows; %d before + %d transactions acknowledged = %d", rows, w.history, w.acked.Load(), want)})
	}
	return checks, nil
}

// accountsPerInsert is how many accounts one multi-row INSERT carries: 800
// parameters, within every engine's limit (SQLite's was 999 before 3.32).
const accountsPerInsert = 400

// accountInserts are the multi-row INSERTs of the accounts, by row count
// (a full batch and the last one), made once.
var accountInserts sync.Map

func accountInsert(rows int) *backend.Stmt {
	if st, ok := accountInserts.Load(rows); ok {
		return st.(*backend.Stmt)
	}
	var b strings.Builder
	b.WriteString("INSERT INTO pgbench_accounts (aid, bid, abalance, filler) VALUES ")
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?, ?, 0, '')")
	}
	st, _ := accountInserts.LoadOrStore(rows, &backend.Stmt{SQL: b.String()})
	return st.(*backend.Stmt)
}

// loadAccounts inserts accounts 1..n where the engine has no COPY: made by
// the server in Firebird, in multi-row INSERTs elsewhere (pgbench -i's
// client-side generation, a batch a round trip instead of a row).
func loadAccounts(ctx context.Context, c backend.Conn, d backend.Dialect, n int, progress func(done, total int)) error {
	if d.Name == "firebird" {
		_, err := c.Exec(ctx, genAccounts, n)
		progress(n, n)
		return err
	}
	args := make([]any, 0, 2*accountsPerInsert)
	for from := 1; from <= n; from += accountsPerInsert {
		rows := min(accountsPerInsert, n-from+1)
		args = args[:0]
		for aid := from; aid < from+rows; aid++ {
			args = append(args, aid, (aid-1)/accountsPerBranch+1)
		}
		if _, err := c.Exec(ctx, accountInsert(rows), args...); err != nil {
			return err
		}
		progress(from+rows-1, n)
	}
	return nil
}
