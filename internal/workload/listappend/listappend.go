// Package listappend is the append workload: Jepsen's Elle list-append test
// on a SQL engine. Each unit is one transaction of a few reads and appends
// to keyed lists (a row per key, its list as comma-separated text); every
// operation's result is recorded, and after the run internal/elle infers
// the dependencies between the transactions from the lists, searches their
// cycles and reports each anomaly by kind, with one small example, as the
// run's checks. Throughput and latency are measured as for any workload.
package listappend

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/elle"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers append in the catalog.
var Spec = workload.Spec{
	Name:    "append",
	Summary: "Elle's list-append: transactions of random reads and appends to keyed lists, every result recorded, then checked for isolation anomalies (G0, G1a, G1b, G1c, G-single, G2-item, lost update)",
	Source:  "Jepsen's Elle (Kingsbury and Alvaro, VLDB 2020): the list-append workload and its checker; run it with --isolation",
	Unit:    "transaction",
	Units:   "transactions",
	APIs:    []backend.API{backend.SQL},
	Knobs: []knob.Spec{
		{Name: "keys", Default: "8", Kind: knob.Int, Usage: "keys in play at a time: few keys make transactions meet, which is what finds anomalies"},
		{Name: "ops", Default: "1-4", Values: "MIN-MAX", Usage: "operations per transaction, each a read or an append, drawn uniformly"},
		{Name: "reads", Default: "50", Kind: knob.Int, Values: "0..100", Usage: "percent of operations that read a key's list (the rest append to it)"},
		{Name: "appends-per-key", Default: "32", Kind: knob.Int, Usage: "about how many appends a key gets before newer keys take its place (Elle's max-writes-per-key): it bounds the lists, and with them the reads' size and the checker's work"},
	},
	Commits: []workload.CommitMode{workload.PerUnit},
	New:     newAppend,
}

// Config is append's typed configuration.
type Config struct {
	Keys          int `json:"keys"`
	MinOps        int `json:"min_ops"`
	MaxOps        int `json:"max_ops"`
	ReadPct       int `json:"read_pct"`
	AppendsPerKey int `json:"appends_per_key"`
	// Rotate is how many transactions begin before the window of keys in
	// play moves on by one key.
	Rotate int64 `json:"rotate"`
}

type listAppend struct {
	cfg     Config
	started atomic.Int64 // transactions begun, which move the window of keys
	values  atomic.Int64 // the last value appended: each is unique
	// The statements for the engine Load found, which every client uses.
	appendSt, createSt *backend.Stmt

	mu      sync.Mutex
	clients []*client
	checked *elle.Result
}

func newAppend(_ workload.Common, v *knob.Values) (workload.Workload, error) {
	keys, err := v.Int("keys", 1, 1_000_000)
	if err != nil {
		return nil, err
	}
	lo, hi, err := opsRange(v.Get("ops"))
	if err != nil {
		return nil, err
	}
	reads, err := v.Int("reads", 0, 100)
	if err != nil {
		return nil, err
	}
	per, err := v.Int("appends-per-key", 1, 1_000_000)
	if err != nil {
		return nil, err
	}
	cfg := Config{Keys: int(keys), MinOps: lo, MaxOps: hi, ReadPct: int(reads), AppendsPerKey: int(per)}
	// A key stays in play for Keys × Rotate transactions and gets 1/Keys
	// of their appends: Rotate × the appends per transaction.
	appendsPerTxn := float64(lo+hi) / 2 * float64(100-reads) / 100
	cfg.Rotate = 1 << 62 // reads only: the keys never move on
	if appendsPerTxn > 0 {
		cfg.Rotate = max(1, int64(float64(per)/appendsPerTxn))
	}
	return &listAppend{cfg: cfg}, nil
}

// opsRange parses --ops "1-4" (or "3").
func opsRange(s string) (int, int, error) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		b = a
	}
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || lo < 1 || hi < lo || hi > 100 {
		return 0, 0, knob.Bad("give MIN-MAX with 1 ≤ MIN ≤ MAX ≤ 100, e.g. --ops 1-4", "--ops %q is not a range of operations", s)
	}
	return lo, hi, nil
}

func (w *listAppend) Shape() workload.Shape {
	return workload.Shape{Units: []workload.Weighted{{Name: "transaction", Weight: 1}}, Ops: []string{"create", "begin", "read", "append", "commit"}}
}

func (w *listAppend) Config() any { return w.cfg }

const (
	opCreate = iota
	opBegin
	opRead
	opAppend
	opCommit
)

const table = "append_lists"

// Statements, in the portable SQL each engine rewrites its placeholders of.
var (
	readList = &backend.Stmt{SQL: "SELECT v FROM append_lists WHERE k = ?"}
	allLists = &backend.Stmt{SQL: "SELECT k, v FROM append_lists"}
	clearAll = &backend.Stmt{SQL: "DELETE FROM append_lists"}
)

// A key's row is made, with an empty list, before the first transaction
// that appends to it, in a statement of its own: a transaction's append is
// then an UPDATE of an existing row on every engine, and two transactions
// creating the same key cannot fail each other with a key violation
// (Firebird's MERGE and InnoDB's gap locks would).
//
//	postgres, sqlite: INSERT INTO append_lists (k, v) VALUES (?, '') ON CONFLICT (k) DO NOTHING
//	mysql:            INSERT IGNORE INTO append_lists (k, v) VALUES (?, '')
//	firebird:         INSERT INTO append_lists (k, v) VALUES (?, ''), its key violation ignored
func createStmt(dialect string) *backend.Stmt {
	switch dialect {
	case "postgres", "sqlite":
		return &backend.Stmt{SQL: "INSERT INTO append_lists (k, v) VALUES (?, '') ON CONFLICT (k) DO NOTHING"}
	case "mysql":
		return &backend.Stmt{SQL: "INSERT IGNORE INTO append_lists (k, v) VALUES (?, '')"}
	}
	return &backend.Stmt{SQL: "INSERT INTO append_lists (k, v) VALUES (?, '')"}
}

// appendStmt returns the statement appending a value (its text) to a
// key's list, whose row exists:
//
//	UPDATE append_lists SET v = v || ',' || CAST(? AS VARCHAR(20)) WHERE k = ?
//	mysql: UPDATE append_lists SET v = CONCAT(v, ',', ?) WHERE k = ?
func appendStmt(dialect string) (*backend.Stmt, error) {
	switch dialect {
	case "postgres", "sqlite", "firebird":
		return &backend.Stmt{SQL: "UPDATE append_lists SET v = v || ',' || CAST(? AS VARCHAR(20)) WHERE k = ?"}, nil
	case "mysql":
		return &backend.Stmt{SQL: "UPDATE append_lists SET v = CONCAT(v, ',', ?) WHERE k = ?"}, nil
	}
	return nil, fmt.Errorf("append: no append statement for dialect %q", dialect)
}

// createTable is the table of lists: text grows by a value of up to 20
// characters per append (Firebird: a VARCHAR in one-byte characters).
func createTable(dialect string) string {
	text := "TEXT"
	if dialect == "firebird" {
		text = "VARCHAR(16000) CHARACTER SET ASCII"
	}
	return "CREATE TABLE append_lists (k BIGINT NOT NULL PRIMARY KEY, v " + text + " NOT NULL)"
}

// Load creates the table, or empties the one an earlier run left: a
// history must start from empty lists, its values being unique to it.
func (w *listAppend) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	sq, err := workload.SQLOf(Spec.Name, db)
	if err != nil {
		return workload.Dataset{}, err
	}
	dialect := sq.Dialect().Name
	if w.appendSt, err = appendStmt(dialect); err != nil {
		return workload.Dataset{}, err
	}
	w.createSt = createStmt(dialect)
	c, err := sq.Conn(ctx)
	if err != nil {
		return workload.Dataset{}, err
	}
	defer c.Close()
	var n int64
	if err := c.QueryRow(ctx, &backend.Stmt{SQL: sq.Dialect().HasTable}, []any{table}, &n); err != nil {
		return workload.Dataset{}, err
	}
	if n == 0 {
		if err := c.ExecScript(ctx, createTable(dialect)); err != nil {
			return workload.Dataset{}, err
		}
	} else if err := workload.InSQLTx(ctx, c, func() error { _, err := c.Exec(ctx, clearAll); return err }); err != nil {
		return workload.Dataset{}, err
	}
	return workload.Dataset{Facts: map[string]string{"keys in play": strconv.Itoa(w.cfg.Keys), "rotate every": strconv.FormatInt(w.cfg.Rotate, 10) + " transactions"}}, nil
}

// Client returns a client recording every transaction it runs.
func (w *listAppend) Client(ctx context.Context, db backend.DB, id int, rng *rand.Rand) (workload.Client, error) {
	conn, err := workload.SQLConnOf(ctx, Spec.Name, db)
	if err != nil {
		return nil, err
	}
	c := &client{w: w, id: id, rng: rng, conn: conn, appendSt: w.appendSt, createSt: w.createSt, made: map[int64]bool{}}
	w.mu.Lock()
	w.clients = append(w.clients, c)
	w.mu.Unlock()
	return c, nil
}

type client struct {
	w                  *listAppend
	id                 int
	rng                *rand.Rand
	conn               backend.Conn
	appendSt, createSt *backend.Stmt
	made               map[int64]bool // keys whose row this client knows exists
	history            []elle.Txn
	plan               []planned
}

// planned is an operation drawn before its transaction begins.
type planned struct {
	read bool
	key  int64
}

// Do runs one transaction of random reads and appends and records it,
// whatever its end: committed, aborted, or unknown when its commit got no
// answer. The rows of the keys it will append to are made first.
func (c *client) Do(ctx context.Context, _ int, ops workload.Ops) error {
	w := c.w
	base := (w.started.Add(1) - 1) / w.cfg.Rotate
	n := w.cfg.MinOps + c.rng.IntN(w.cfg.MaxOps-w.cfg.MinOps+1)
	c.plan = c.plan[:0]
	for range n {
		c.plan = append(c.plan, planned{read: c.rng.IntN(100) < w.cfg.ReadPct, key: base + c.rng.Int64N(int64(w.cfg.Keys))})
	}
	for _, p := range c.plan {
		if !p.read && !c.made[p.key] {
			if err := ops.Time(opCreate, func() error { return c.create(ctx, p.key) }); err != nil {
				return err
			}
			c.made[p.key] = true
		}
	}
	txn := elle.Txn{Client: c.id, Status: elle.Aborted, Ops: make([]elle.Op, 0, n)}
	err := c.run(ctx, ops, &txn)
	c.history = append(c.history, txn)
	return err
}

// create makes key's row with an empty list unless it exists, in a
// statement of its own; a key violation says another client made it.
func (c *client) create(ctx context.Context, key int64) error {
	_, err := c.conn.Exec(ctx, c.createSt, key)
	if _, kind, _ := dberr.Describe(err); kind == dberr.Unique {
		return nil
	}
	return err
}

func (c *client) run(ctx context.Context, ops workload.Ops, txn *elle.Txn) error {
	if err := ops.Time(opBegin, func() error { return c.conn.Begin(ctx) }); err != nil {
		return err
	}
	for _, p := range c.plan {
		k := p.key
		var err error
		if p.read {
			op := elle.Op{Key: k}
			err = ops.Time(opRead, func() error {
				var text string
				switch err := c.conn.QueryRow(ctx, readList, []any{k}, &text); {
				case errors.Is(err, backend.ErrNoRows):
					return nil
				case err != nil:
					return err
				}
				var perr error
				op.List, perr = parse(text)
				return perr
			})
			op.Done = err == nil
			txn.Ops = append(txn.Ops, op)
		} else {
			v := c.w.values.Add(1)
			txn.Ops = append(txn.Ops, elle.Op{Append: true, Key: k, Value: v})
			err = ops.Time(opAppend, func() error {
				n, err := c.conn.Exec(ctx, c.appendSt, strconv.FormatInt(v, 10), k)
				if err == nil && n != 1 {
					return workload.Inconsistent("append: key %d's row, made before, is gone (%d rows updated)", k, n)
				}
				return err
			})
		}
		if err != nil {
			_ = c.conn.Rollback(ctx)
			return err
		}
	}
	err := ops.Time(opCommit, func() error { return c.conn.Commit(ctx) })
	switch {
	case err == nil:
		txn.Status = elle.Committed
	case workload.Ambiguous(err):
		txn.Status = elle.Unknown
	default:
		_ = c.conn.Rollback(ctx) // ended already where a failed commit ends it
	}
	return err
}

// parse reads a list's text, ",3,17,42" (a new row's list is empty).
func parse(s string) ([]int64, error) {
	out := make([]int64, 0, strings.Count(s, ","))
	for s != "" {
		part, rest, _ := strings.Cut(s, ",")
		s = rest
		if part == "" {
			continue
		}
		v, err := strconv.ParseInt(part, 10, 64)
		if err != nil {
			return nil, workload.Inconsistent("append: a list holds %q, which dbgauge never appended", part)
		}
		out = append(out, v)
	}
	return out, nil
}

// Close releases the client's connection; its history stays for the check.
func (c *client) Close(context.Context) error { return c.conn.Close() }
