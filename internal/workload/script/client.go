package script

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

// slot is a client's variable: a value, or the text -D, \gset or \aset put
// there (pgbench keeps those as text and reads them as numbers on use).
type slot struct {
	v      Value
	text   string
	isText bool
}

// arg is the variable as a statement's parameter, as pgbench passes it
// (pgbench.c's getVariable, and the SQL its default query mode writes):
// text as it was given (-D, \gset); an integer as an int64 and a boolean
// as a bool, which each engine binds as it reads the literal (PostgreSQL's
// backend as their text, as pgbench sends them; MariaDB and SQLite 1 or 0);
// a double as pgbench's text for it, %.15g (1.0 / 3 is 0.333333333333333,
// not the float64's 17 digits); NULL as SQL's NULL.
func (s slot) arg() any {
	if s.isText {
		return s.text
	}
	switch s.v.kind {
	case Int:
		return s.v.i
	case Double:
		return s.v.String()
	case Bool:
		return s.v.i != 0
	}
	return nil
}

// textSlot keeps s as text unless it is a number written as dbgauge
// would write it back (42, not 042 or 4.20), which binds as a number.
func textSlot(s string) slot {
	if v, err := ParseValue(s); err == nil && (v.kind == Int || v.kind == Double) && v.String() == s {
		return slot{v: v}
	}
	return slot{text: s, isText: true}
}

// Client runs a Program's scripts on one connection, one script per unit.
// It keeps its variables from one script to the next, as pgbench does.
type Client struct {
	p    *Program
	c    backend.Conn
	rng  *rand.Rand
	seed int64
	vars map[string]*slot
	// sets and params are the slots a \set command writes and an SQL
	// command's parameters read, per script and command, found in vars at
	// their first run: variables are never removed, so the slots stay.
	sets   [][]*slot
	params [][][]*slot
	g      workload.Group
	inTx   bool // the script's own BEGIN is open
	// What the operation being timed runs, set before Ops.Time: made once,
	// as closures made at each statement would escape to the heap.
	ctx   context.Context
	kind  int // the script running, and its command: debug()'s script= and command=
	pc    int
	st    *backend.Stmt
	cmd   *Command
	args  []any
	exec  func() error
	query func() error
	begin func() error
	end   func() error
	undo  func() error
	// A ledger (workload file's [ledger]): the unit kind whose commits
	// make the key in variable ledgerVar durable, the ledger told, and the
	// keys riding on the open transaction.
	ledgerKind int
	ledgerVar  string
	mark       func(m workload.Mark, ids []int64)
	pending    []int64
}

// SetLedger makes the commits of script kind tell mark the key the
// variable name holds when they commit.
func (cl *Client) SetLedger(kind int, name string, mark func(m workload.Mark, ids []int64)) {
	cl.ledgerKind, cl.ledgerVar, cl.mark = kind, name, mark
}

// collect adds the key of a unit of kind to those the next commit makes
// durable, when kind is the ledger's.
func (cl *Client) collect(kind int) error {
	if cl.mark == nil || kind != cl.ledgerKind {
		return nil
	}
	v, ok := cl.Var(cl.ledgerVar)
	if !ok {
		return fatal(fmt.Errorf("[ledger]: variable %q is not set when the transaction commits", cl.ledgerVar))
	}
	id, err := v.AsInt()
	if err != nil {
		return fatal(fmt.Errorf("[ledger]: variable %q: %w", cl.ledgerVar, err))
	}
	cl.pending = append(cl.pending, id)
	return nil
}

// committing tells the ledger the keys a commit about to be sent makes
// durable, the unit of kind's among them.
func (cl *Client) committing(kind int) error {
	if err := cl.collect(kind); err != nil {
		return err
	}
	if len(cl.pending) > 0 {
		cl.mark(workload.Committing, cl.pending)
	}
	return nil
}

// NewClient returns client id of a program on connection c; scale,
// randomSeed are pgbench's built-in variables.
func (p *Program) NewClient(c backend.Conn, commit workload.Commit, id int, scale, randomSeed int64, rng *rand.Rand) *Client {
	cl := &Client{p: p, c: c, rng: rng, vars: map[string]*slot{}, g: workload.Group{Commit: commit}}
	cl.sets, cl.params = make([][]*slot, len(p.Scripts)), make([][][]*slot, len(p.Scripts))
	for i, s := range p.Scripts {
		cl.sets[i], cl.params[i] = make([]*slot, len(s.Commands)), make([][]*slot, len(s.Commands))
	}
	for name, v := range p.Defines {
		cl.set(name, textSlot(v))
	}
	// pgbench: default_seed comes from the run's random seed, the same on
	// every client, so that hash(x) is the same function everywhere.
	cl.seed = int64(workload.NewRand(uint64(randomSeed), 0).Uint64())
	for name, v := range map[string]int64{"scale": scale, "client_id": int64(id), "random_seed": randomSeed, "default_seed": cl.seed} {
		if _, ok := cl.vars[name]; !ok {
			cl.set(name, slot{v: IntValue(v)})
		}
	}
	cl.exec = func() error { _, err := cl.c.Exec(cl.ctx, cl.st, cl.args...); return err }
	cl.query = cl.gset
	cl.begin = func() error { return cl.c.Begin(cl.ctx) }
	cl.end = func() error { return cl.c.Commit(cl.ctx) }
	cl.undo = func() error { return cl.c.Rollback(cl.ctx) }
	return cl
}

// ref returns the slot of variable name, made (unset) when it has none.
func (cl *Client) ref(name string) *slot {
	s, ok := cl.vars[name]
	if !ok {
		s = new(slot)
		cl.vars[name] = s
	}
	return s
}

// set sets variable name.
func (cl *Client) set(name string, s slot) { *cl.ref(name) = s }

// Var, Rand and DefaultSeed make the client an expression's Env.
func (cl *Client) Var(name string) (Value, bool) {
	s, ok := cl.vars[name]
	if !ok {
		return Value{}, false
	}
	if s.isText {
		v, err := ParseValue(s.text)
		if err != nil {
			return Value{}, false
		}
		return v, true
	}
	return s.v, true
}

// Rand is the client's PRNG.
func (cl *Client) Rand() *rand.Rand { return cl.rng }

// Debug prints debug()'s value as pgbench does, through the program's
// SetDebug: "debug(script=0,command=3): int 42", the script by its place
// in the mix from 0 (-f's order, a workload file's [[transaction]]s) and
// the command by its place in the script from 1, meta-commands counted.
func (cl *Client) Debug(_ Pos, v Value) {
	if cl.p.debug != nil {
		cl.p.debug(fmt.Sprintf("debug(script=%d,command=%d): %s", cl.kind, cl.pc+1, v.Debug()))
	}
}

// DefaultSeed is the seed of hash() and permute() without one.
func (cl *Client) DefaultSeed() int64 {
	if v, ok := cl.Var("default_seed"); ok {
		if i, err := v.AsInt(); err == nil {
			return i
		}
	}
	return cl.seed
}

// Do runs script kind once. A unit that fails rolls back what it began.
func (cl *Client) Do(ctx context.Context, kind int, ops workload.Ops) error {
	p, s := cl.p, cl.p.Scripts[kind]
	cl.ctx, cl.kind = ctx, kind
	wrap := !p.own[kind] && !p.single[kind] && cl.g.Commit.Mode != workload.PerOp
	if wrap && cl.g.UnitBegins() {
		if err := ops.Time(p.beginOp, cl.begin); err != nil {
			return cl.fail(ctx, err)
		}
		cl.g.Open = true
	}
	for pc := 0; pc < len(s.Commands); {
		c := &s.Commands[pc]
		switch c.Kind {
		case SQL:
			if err := cl.sql(kind, pc, c, ops); err != nil {
				return cl.fail(ctx, err)
			}
			pc++
		case Set:
			cl.pc = pc
			v, err := c.Expr.Eval(cl)
			if err != nil {
				return cl.fail(ctx, fatal(err))
			}
			ref := cl.sets[kind][pc]
			if ref == nil {
				ref = cl.ref(c.Var)
				cl.sets[kind][pc] = ref
			}
			*ref = slot{v: v}
			pc++
		case Sleep:
			if err := cl.sleep(ctx, c, ops, p.op[kind][pc]); err != nil {
				return cl.fail(ctx, err)
			}
			pc++
		case If, Elif:
			if c.Kind == Elif { // the branch before it was taken and is done
				pc = c.End + 1
				continue
			}
			next, err := cl.branch(s, pc)
			if err != nil {
				return cl.fail(ctx, err)
			}
			pc = next
		case Else:
			pc = c.End + 1
		case Endif:
			pc++
		}
	}
	if cl.inTx {
		return cl.fail(ctx, fatal(fmt.Errorf("%s: the script ended inside its transaction", s.Name)))
	}
	if !wrap {
		return nil
	}
	if !cl.g.UnitEnds() {
		if err := cl.collect(kind); err != nil { // rides on the group's commit
			return cl.fail(ctx, err)
		}
		return nil
	}
	if err := cl.committing(kind); err != nil {
		return cl.fail(ctx, err)
	}
	if err := ops.Time(p.commitOp, cl.end); err != nil {
		return cl.fail(ctx, err)
	}
	cl.acked()
	return nil
}

// branch evaluates the \if at pc, and the \elif after it while their
// conditions are false, and returns the first command to run.
func (cl *Client) branch(s *Script, pc int) (int, error) {
	for {
		c := &s.Commands[pc]
		cl.pc = pc
		v, err := c.Expr.Eval(cl)
		if err != nil {
			return 0, fatal(err)
		}
		if v.Truth() {
			return pc + 1, nil
		}
		pc = c.Next
		if s.Commands[pc].Kind != Elif {
			return pc + 1, nil // into the \else, or past the \endif
		}
	}
}

// sql runs the SQL command c, command pc of script kind, as its operation.
func (cl *Client) sql(kind, pc int, c *Command, ops workload.Ops) error {
	p, op := cl.p, cl.p.op[kind][pc]
	switch p.ctl[kind][pc] {
	case BeginTx:
		if err := ops.Time(op, cl.begin); err != nil {
			return err
		}
		cl.inTx = true
		return nil
	case CommitTx:
		cl.inTx = false
		if err := cl.committing(kind); err != nil {
			return err
		}
		if err := ops.Time(op, cl.end); err != nil {
			return err
		}
		cl.acked()
		return nil
	case RollbackTx:
		cl.inTx = false
		return ops.Time(op, cl.undo)
	}
	cl.args = cl.args[:0]
	refs := cl.params[kind][pc]
	if refs == nil && len(c.Params) > 0 {
		for _, name := range c.Params {
			s, ok := cl.vars[name]
			if !ok {
				return fatal(&Error{Pos: c.Pos, Msg: fmt.Sprintf("variable %q is not set", name),
					Hint: "set it before this command with \\set, \\gset or -D " + name + "=VALUE"})
			}
			refs = append(refs, s)
		}
		cl.params[kind][pc] = refs
	}
	for _, s := range refs {
		cl.args = append(cl.args, s.arg())
	}
	cl.st, cl.cmd = p.stmt[kind][pc], c
	run := cl.exec
	if c.Gset || c.Aset {
		run = cl.query
	}
	if !cl.inTx && !cl.g.Open && p.single[kind] {
		if err := cl.committing(kind); err != nil {
			return err
		}
	}
	if err := ops.Time(op, run); err != nil {
		return fmt.Errorf("%s: %w", c.Pos, err) // which statement failed, its class kept
	}
	if !cl.inTx && !cl.g.Open && p.single[kind] {
		cl.acked() // a command alone in autocommit is its own transaction
	}
	return nil
}

// gset runs a query ending in \gset (exactly one row) or \aset (each row's
// columns, the last row's winning) and stores the columns as variables.
func (cl *Client) gset() error {
	c, rows := cl.cmd, 0
	err := cl.c.QueryAny(cl.ctx, cl.st, cl.args, func(cols []string, vals []any) error {
		rows++
		if c.Gset && rows > 1 {
			return nil
		}
		for i, col := range cols {
			cl.set(c.Prefix+col, slotOf(vals[i]))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.Gset && rows != 1 {
		return dberr.New(dberr.Rollback, "gset", "", fmt.Errorf("%s: \\gset expects one row, got %d", c.Pos, rows))
	}
	return nil
}

// slotOf is a column's value as a variable.
func slotOf(v any) slot {
	switch x := v.(type) {
	case nil:
		return slot{}
	case int64:
		return slot{v: IntValue(x)}
	case float64:
		return slot{v: DoubleValue(x)}
	case bool:
		return slot{v: BoolValue(x)}
	case string:
		return textSlot(x)
	case []byte:
		return slot{text: string(x), isText: true}
	case time.Time:
		return slot{text: x.Format(time.RFC3339Nano), isText: true}
	}
	return slot{text: fmt.Sprint(v), isText: true}
}

// sleep runs \sleep, timed as its operation.
func (cl *Client) sleep(ctx context.Context, c *Command, ops workload.Ops, op int) error {
	n := c.SleepN
	if c.SleepVar != "" {
		v, ok := cl.Var(c.SleepVar)
		if !ok {
			return fatal(&Error{Pos: c.Pos, Msg: fmt.Sprintf("\\sleep: variable %q is not set", c.SleepVar), Hint: "set it with \\set " + c.SleepVar + " EXPR"})
		}
		i, err := v.AsInt()
		if err != nil {
			return fatal(&Error{Pos: c.Pos, Msg: "\\sleep: " + err.Error(), Hint: "give it a whole number"})
		}
		n = i
	}
	d := time.Duration(n) * c.Unit
	return ops.Time(op, func() error {
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return dberr.New(dberr.Canceled, "canceled", "", ctx.Err())
		}
	})
}

// acked counts an acknowledged commit, and tells the ledger.
func (cl *Client) acked() {
	if len(cl.pending) > 0 {
		cl.mark(workload.Acked, cl.pending)
		cl.pending = cl.pending[:0]
	}
	cl.g.Committed()
}

// fail rolls back what the unit began and returns err: the script's own
// transaction, or the group dbgauge opened around it.
func (cl *Client) fail(ctx context.Context, err error) error {
	cl.pending = cl.pending[:0] // in flight: the ledger knows them as committing, never acknowledged
	if cl.inTx {
		cl.inTx, cl.g.Open = false, true
	}
	return cl.g.Abort(err, func() { _ = cl.c.Rollback(ctx) })
}

// Pending says how many finished units ride on the open transaction
// (--commit every:N): the run engine holds them until it commits.
func (cl *Client) Pending() int64 { return cl.g.Held() }

var _ workload.Pender = (*Client)(nil)

// Close commits a group left open by --commit every:N, and closes the
// connection.
func (cl *Client) Close(ctx context.Context) error {
	defer cl.c.Close()
	if !cl.g.Open {
		return nil
	}
	if len(cl.pending) > 0 {
		cl.mark(workload.Committing, cl.pending)
	}
	if err := cl.c.Commit(ctx); err != nil {
		return cl.fail(ctx, err)
	}
	cl.acked()
	return nil
}

// fatal makes a script's own error (an expression that fails, a variable
// missing) fatal: pgbench aborts the client; dbgauge stops the run, which
// cannot be what the user meant to measure.
func fatal(err error) error {
	var e *dberr.Error
	if errors.As(err, &e) {
		return err
	}
	return dberr.New(dberr.Fatal, "script", "", err)
}
