// Package insert is seed 004's test: single-row INSERTs into
// mytab (f1 integer, f2 varchar(100)), each committed. It is the workload the
// durability check was made for: in sync mode, one client cannot commit faster
// than the disk can flush.
package insert

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers insert in the catalog.
var Spec = workload.Spec{
	Name:     "insert",
	Summary:  "single-row INSERTs into mytab (f1 integer, f2 varchar(100)), committed per --commit",
	Source:   "the SAP DB against Oracle commit test: 10,000 INSERTs, each committed, against the disk's flush ceiling",
	Unit:     "insert",
	Units:    "inserts",
	APIs:     []backend.API{backend.SQL, backend.KV},
	Knobs:    []knob.Spec{{Name: "text-bytes", Default: "100", Kind: knob.Int, Values: "0..100", Usage: "length of f2 in each row (the commit test's varchar(100))"}},
	Defaults: map[string]string{"units": "10000"},
	New:      newInsert,
}

// Config is insert's typed configuration.
type Config struct {
	TextBytes int    `json:"text_bytes"`
	Commit    string `json:"commit"`
}

const (
	opBegin = iota
	opInsert
	opCommit
)

type insert struct {
	cfg    Config
	common workload.Common
	next   atomic.Int64
	acked  atomic.Int64
	// unknown counts inserts whose commit failed with its connection: the
	// engine may have made them (a failover, a server killed).
	unknown atomic.Int64
	base    int64
	text    string
	ledger  workload.Ledger // dbgauge crash: told of every commit
}

// SetLedger makes every commit tell l the f1 values it makes durable.
func (w *insert) SetLedger(l workload.Ledger) { w.ledger = l }

// Present returns the f1 values the database holds.
func (w *insert) Present(ctx context.Context, db backend.DB) (map[int64]bool, error) {
	out := map[int64]bool{}
	switch d := db.(type) {
	case backend.SQLDB:
		c, err := d.Conn(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		err = c.Query(ctx, allF1, nil, func(scan func(dest ...any) error) error {
			var f1 int64
			if err := scan(&f1); err != nil {
				return err
			}
			out[f1] = true
			return nil
		})
		return out, err
	case backend.KVDB:
		c, err := d.KVConn(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		if err := c.Begin(ctx, false); err != nil {
			return nil, err
		}
		defer c.Rollback(ctx)
		err = c.Scan(ctx, table, func(k, _ []byte) error {
			out[int64(binary.BigEndian.Uint64(k))] = true
			return nil
		})
		return out, err
	}
	return nil, fmt.Errorf("insert: backend %T is neither SQL nor key-value", db)
}

func newInsert(c workload.Common, v *knob.Values) (workload.Workload, error) {
	n, err := v.Int("text-bytes", 0, 100)
	if err != nil {
		return nil, err
	}
	text := make([]byte, n)
	for i := range text {
		text[i] = 'a' + byte(i%26)
	}
	return &insert{cfg: Config{TextBytes: int(n), Commit: c.Commit.String()}, common: c, text: string(text)}, nil
}

func (w *insert) Shape() workload.Shape {
	return workload.Shape{Units: []workload.Weighted{{Name: "insert", Weight: 1}}, Ops: []string{"begin", "insert", "commit"}}
}

func (w *insert) Config() any { return w.cfg }

// Statements in the seed's own words.
var (
	createTable = `CREATE TABLE IF NOT EXISTS mytab (f1 integer, f2 varchar(100))`
	insRow      = &backend.Stmt{SQL: `INSERT INTO mytab (f1, f2) VALUES (?, ?)`}
	tallyRows   = &backend.Stmt{SQL: `SELECT count(*), count(DISTINCT f1), coalesce(max(f1), 0) FROM mytab`}
	allF1       = &backend.Stmt{SQL: `SELECT f1 FROM mytab`}
)

const table = "mytab"

// Load creates mytab if missing; existing rows stay and are counted.
func (w *insert) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	rows, distinct, maxF1, err := w.tally(ctx, db)
	if err != nil {
		return workload.Dataset{}, err
	}
	if rows != distinct {
		return workload.Dataset{}, fmt.Errorf("insert: mytab holds %d rows but %d distinct f1: not a table dbgauge filled; drop it or use another --db", rows, distinct)
	}
	w.base = rows
	w.next.Store(maxF1 + 1)
	return workload.Dataset{Reused: rows > 0, Facts: map[string]string{"rows": strconv.FormatInt(rows, 10)}}, nil
}

func (w *insert) tally(ctx context.Context, db backend.DB) (rows, distinct, maxF1 int64, err error) {
	switch d := db.(type) {
	case backend.SQLDB:
		c, err := d.Conn(ctx)
		if err != nil {
			return 0, 0, 0, err
		}
		defer c.Close()
		if err := c.ExecScript(ctx, createTable); err != nil {
			return 0, 0, 0, err
		}
		err = c.QueryRow(ctx, tallyRows, nil, &rows, &distinct, &maxF1)
		return rows, distinct, maxF1, err
	case backend.KVDB:
		c, err := d.KVConn(ctx)
		if err != nil {
			return 0, 0, 0, err
		}
		defer c.Close()
		if err := c.CreateTable(ctx, table); err != nil {
			return 0, 0, 0, err
		}
		if err := c.Begin(ctx, false); err != nil {
			return 0, 0, 0, err
		}
		defer c.Rollback(ctx)
		err = c.Scan(ctx, table, func(k, _ []byte) error {
			rows++
			maxF1 = max(maxF1, int64(binary.BigEndian.Uint64(k)))
			return nil
		})
		return rows, rows, maxF1, err // keys are unique by construction
	}
	return 0, 0, 0, fmt.Errorf("insert: backend %T is neither SQL nor key-value", db)
}

// Check compares the rows in mytab with the inserts acknowledged.
func (w *insert) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	rows, distinct, _, err := w.tally(ctx, db)
	if err != nil {
		return nil, err
	}
	want, unknown := w.base+w.acked.Load(), w.unknown.Load()
	detail := fmt.Sprintf("%d rows; %d before + %d inserts acknowledged = %d", rows, w.base, w.acked.Load(), want)
	if unknown > 0 {
		// Commits whose connection died under them may have been made.
		detail += fmt.Sprintf(", and up to %d more whose commit's outcome is unknown (the connection died during it)", unknown)
	}
	return []workload.Check{
		{Name: "rows_match_acknowledged", OK: rows >= want && rows <= want+unknown, Detail: detail},
		{Name: "f1_unique", OK: rows == distinct, Detail: fmt.Sprintf("%d rows, %d distinct f1", rows, distinct)},
	}, nil
}

// Client returns a client inserting rows with unique f1 values.
func (w *insert) Client(ctx context.Context, db backend.DB, _ int, _ *rand.Rand) (workload.Client, error) {
	c := &client{w: w, g: workload.Group{Commit: w.common.Commit}}
	switch d := db.(type) {
	case backend.SQLDB:
		conn, err := d.Conn(ctx)
		if err != nil {
			return nil, err
		}
		c.sql = conn
	case backend.KVDB:
		conn, err := d.KVConn(ctx)
		if err != nil {
			return nil, err
		}
		c.kv = conn
	default:
		return nil, fmt.Errorf("insert: backend %T is neither SQL nor key-value", db)
	}
	return c, nil
}

type client struct {
	w       *insert
	sql     backend.Conn
	kv      backend.KVConn
	g       workload.Group
	pending int64
	ids     []int64 // the f1 values of the open transaction, for the ledger
}

func (c *client) begin(ctx context.Context) error {
	if c.sql != nil {
		return c.sql.Begin(ctx)
	}
	return c.kv.Begin(ctx, true)
}

func (c *client) commit(ctx context.Context) error {
	if l := c.w.ledger; l != nil {
		l.Mark(workload.Committing, c.ids)
	}
	var err error
	if c.sql != nil {
		err = c.sql.Commit(ctx)
	} else {
		err = c.kv.Commit(ctx)
	}
	if workload.Ambiguous(err) {
		c.w.unknown.Add(c.pending)
	}
	if err == nil {
		if l := c.w.ledger; l != nil {
			l.Mark(workload.Acked, c.ids)
		}
		c.ids = c.ids[:0]
		c.w.acked.Add(c.pending)
		c.pending = 0
		c.g.Committed()
	}
	return err
}

func (c *client) rollback(ctx context.Context) {
	if c.sql != nil {
		_ = c.sql.Rollback(ctx)
	} else {
		_ = c.kv.Rollback(ctx)
	}
}

// Do inserts one row. Under --commit op and unit alike it commits at once:
// one operation makes the unit.
func (c *client) Do(ctx context.Context, _ int, ops workload.Ops) error {
	if !c.g.Open {
		if err := ops.Time(opBegin, func() error { return c.begin(ctx) }); err != nil {
			return c.fail(ctx, err)
		}
		c.g.Open = true
	}
	f1 := c.w.next.Add(1) - 1
	err := ops.Time(opInsert, func() error {
		if c.sql != nil {
			_, err := c.sql.Exec(ctx, insRow, f1, c.w.text)
			return err
		}
		return c.kv.Put(ctx, table, binary.BigEndian.AppendUint64(nil, uint64(f1)), []byte(c.w.text))
	})
	if err != nil {
		return c.fail(ctx, err)
	}
	c.pending++
	if c.w.ledger != nil {
		c.ids = append(c.ids, f1)
	}
	if c.g.Commit.Mode == workload.PerOp || c.g.UnitEnds() {
		if err := ops.Time(opCommit, func() error { return c.commit(ctx) }); err != nil {
			return c.fail(ctx, err)
		}
	}
	return nil
}

func (c *client) fail(ctx context.Context, err error) error {
	c.pending = 0
	c.ids = c.ids[:0]
	return c.g.Abort(err, func() { c.rollback(ctx) })
}

// Pending says how many finished units ride on the open transaction
// (--commit every:N): the run engine holds them until it commits.
func (c *client) Pending() int64 { return c.g.Held() }

var _ workload.Pender = (*client)(nil)

// Close commits a group left open by --commit every:N.
func (c *client) Close(ctx context.Context) error {
	var err error
	if c.g.Open {
		if cerr := c.commit(ctx); cerr != nil {
			err = c.fail(ctx, cerr)
		}
	}
	if c.sql != nil {
		_ = c.sql.Close()
	} else {
		_ = c.kv.Close()
	}
	return err
}
