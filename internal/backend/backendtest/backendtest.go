// Package backendtest is the conformance suite every backend passes, against
// the real engine. The catalog's tests run it for every registered backend,
// and for every SQL backend again as key-value through sqlkv.
package backendtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// Opener opens a fresh instance of the engine with o (o.Dir is a new folder).
type Opener func(t *testing.T, o backend.Options) backend.DB

// Open opens a fresh instance of spec's engine with o, whose empty fields
// default to a new folder, the throwaway --db, Prepare once and Durability
// sync; the test's cleanup closes it.
func Open(t *testing.T, spec backend.Spec, o backend.Options) backend.DB {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.DB == "" {
		o.DB = spec.Throwaway
	}
	if o.Prepare == "" {
		o.Prepare = backend.Once
	}
	if o.Durability == "" {
		o.Durability = backend.Sync
	}
	db, err := spec.Open(context.Background(), o)
	if err != nil {
		t.Fatalf("open %s: %v", spec.Name, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// KVConn opens a key-value connection on db, a backend.KVDB; the test's
// cleanup closes it.
func KVConn(t *testing.T, db backend.DB) backend.KVConn {
	t.Helper()
	kv, ok := db.(backend.KVDB)
	if !ok {
		t.Fatalf("%T is no key-value DB", db)
	}
	c, err := kv.KVConn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Put commits key=value in table on c, in a transaction of its own.
func Put(t *testing.T, c backend.KVConn, table, key, value string) {
	t.Helper()
	ctx := context.Background()
	Must(t, c.Begin(ctx, true))
	Must(t, c.Put(ctx, table, []byte(key), []byte(value)))
	Must(t, c.Commit(ctx))
}

// WriteWrite sets up the conflict every engine's optimistic transactions
// must catch: table's key k holds "0"; a and b each begin a write
// transaction, read it and write "1"; a commits. It returns what b's commit
// says, for the engine's test to judge (a conflict to retry, with its own
// error).
func WriteWrite(t *testing.T, a, b backend.KVConn, table string) error {
	t.Helper()
	ctx := context.Background()
	Must(t, a.CreateTable(ctx, table))
	Put(t, a, table, "k", "0")
	for _, c := range []backend.KVConn{a, b} {
		Must(t, c.Begin(ctx, true))
		if v, ok, err := c.Get(ctx, table, []byte("k")); err != nil || !ok || string(v) != "0" {
			t.Fatalf("get k: %q %v %v", v, ok, err)
		}
		Must(t, c.Put(ctx, table, []byte("k"), []byte("1")))
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatalf("the first commit: %v", err)
	}
	return b.Commit(ctx)
}

// Sample reads s's counters (Sampler), failing the test at once when it
// cannot.
func Sample(t *testing.T, s backend.Sampler) map[string]int64 {
	t.Helper()
	m, err := s.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Must fails the test at once when err is not nil.
func Must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// OpenSQL opens a database/sql pool through driver on dsn (a managed
// server's), runs stmts on it and returns it; the test's cleanup closes it.
func OpenSQL(t *testing.T, driver, dsn string, stmts ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// Conn opens a connection of db with ctx (a connection keeps the context
// it was opened with, as a run's do) and runs stmts on it; the test's
// cleanup closes it, before the db that Open gave (cleanups run last first).
func Conn(t *testing.T, ctx context.Context, db backend.SQLDB, stmts ...string) backend.Conn {
	t.Helper()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	for _, q := range stmts {
		if err := c.ExecScript(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// Rows fails the test at once unless table holds want rows in db; when
// names the moment ("after the restart") in what the failure says.
func Rows(t *testing.T, db *sql.DB, table string, want int, when string) {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil || n != want {
		t.Fatalf("%s: %d rows (%v), want %d", when, n, err, want)
	}
}

// TimedBackup runs backup (of a running server, whose pool is db) and
// returns how long it took, then commits late on db: a row written after
// the backup, which its restore must not hold. A failure of either ends the
// test.
func TimedBackup(t *testing.T, backup func() error, db *sql.DB, late string) time.Duration {
	t.Helper()
	t0 := time.Now()
	if err := backup(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	if _, err := db.Exec(late); err != nil {
		t.Fatal(err)
	}
	return took
}

// Run runs the suite for spec. kvOverSQL wraps a SQL engine as key-value
// (sqlkv.Wrap), so that the KV part runs on SQL engines too; nil skips it.
func Run(t *testing.T, spec backend.Spec, kvOverSQL func(backend.SQLDB) backend.KVDB) {
	open := func(t *testing.T, o backend.Options) backend.DB {
		t.Helper()
		return Open(t, spec, o)
	}
	t.Run("managed_is_a_server", func(t *testing.T) {
		// What Spec.Manages promises, the DB its throwaway form opens keeps:
		// the session finds a server (its log, its death) and can crash it.
		db := open(t, backend.Options{Durability: backend.Sync})
		_, server := db.(backend.Server)
		_, recoverer := db.(backend.Recoverer)
		if server != spec.Serves() || recoverer != spec.Serves() {
			t.Fatalf("%s (manages %v) opens a DB that is a backend.Server: %v, a Recoverer: %v", spec.Throwaway, spec.Manages, server, recoverer)
		}
	})
	t.Run("durability_read_back", func(t *testing.T) { durability(t, spec, open) })
	t.Run("isolation_read_back", func(t *testing.T) { isolation(t, spec, open) })
	t.Run("unknown_setting_refused", func(t *testing.T) {
		_, err := spec.Open(context.Background(), backend.Options{
			DB: spec.Throwaway, Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once,
			Set: []backend.KeyValue{{Key: "no_such_setting_here", Value: "1"}},
		})
		if err == nil {
			t.Fatal("an unknown --set key was accepted")
		}
	})
	switch spec.API {
	case backend.SQL:
		for _, p := range []backend.Prepare{backend.Once, backend.Each} {
			t.Run("sql/prepare="+string(p), func(t *testing.T) {
				sqlSuite(t, open(t, backend.Options{Prepare: p}).(backend.SQLDB))
			})
		}
		if kvOverSQL != nil {
			t.Run("kv_over_sql", func(t *testing.T) {
				kvSuite(t, kvOverSQL(open(t, backend.Options{}).(backend.SQLDB)), spec.Has(backend.RangeScans))
			})
		}
	case backend.KV:
		t.Run("kv", func(t *testing.T) {
			kvSuite(t, open(t, backend.Options{}).(backend.KVDB), spec.Has(backend.RangeScans))
		})
	}
}

// durability opens the engine at each level and checks that what the engine
// reads back matches what the spec says the level sets: read from the
// engine, never a setting that is dbgauge's own (Engine.NotReadBack),
// which would compare dbgauge's variables with themselves. Where the engine
// keeps nothing to read, DurabilityVerdict holds the level to what the
// engine counts.
func durability(t *testing.T, spec backend.Spec, open Opener) {
	levels := []backend.Durability{backend.Sync, backend.Lazy, backend.Off}
	if !slices.ContainsFunc(levels, func(d backend.Durability) bool { return len(spec.Expected(d)) > 0 }) {
		t.Fatalf("%s: neither Spec.Owns nor Spec.Expect says what a durability level must read back", spec.Name)
	}
	for _, d := range levels {
		if !spec.HasLevel(d) {
			// A level the engine does not have is refused, as bad input.
			db, err := spec.Open(context.Background(), backend.Options{DB: spec.Throwaway, Dir: t.TempDir(), Durability: d, Prepare: backend.Once})
			var bad *knob.Error
			if !errors.As(err, &bad) {
				if db != nil {
					_ = db.Close()
				}
				t.Errorf("durability=%s: the engine has no such level, but Open gave %v, want a clear refusal", d, err)
			}
			continue
		}
		e, err := open(t, backend.Options{Durability: d}).Engine(context.Background())
		if err != nil {
			t.Fatalf("durability=%s: Engine: %v", d, err)
		}
		if e.Name == "" || e.Version == "" {
			t.Errorf("durability=%s: engine name %q version %q", d, e.Name, e.Version)
		}
		for k, want := range spec.Expected(d) {
			if slices.Contains(e.NotReadBack, k) {
				t.Errorf("durability=%s: Spec.Owns or Spec.Expect holds %s, which is dbgauge's own, not read back from the engine", d, k)
			}
			if got := e.Settings[k]; got != want {
				t.Errorf("durability=%s: %s read back %q, want %q", d, k, got, want)
			}
		}
		for _, k := range e.NotReadBack {
			if _, ok := e.Settings[k]; !ok {
				t.Errorf("durability=%s: NotReadBack names %s, which Settings lacks", d, k)
			}
		}
		// What was read back amounts to the level asked for.
		if fit, known := spec.LevelsOf(e.Settings); known && !slices.Contains(fit, d) {
			t.Errorf("durability=%s: the owned settings read back (%v) amount to %v", d, spec.Unlike(d, e.Settings), fit)
		}
	}
}

// isolation checks that a SQL engine says what every level does, refuses
// the levels it lacks as bad input, and reads back the strongest level it
// takes (one more instance: a server's start is the cost).
func isolation(t *testing.T, spec backend.Spec, open Opener) {
	if spec.API != backend.SQL {
		if spec.Isolation != nil {
			t.Errorf("%s is key-value but declares isolation levels", spec.Name)
		}
		return
	}
	levels := spec.Levels()
	if len(levels) == 0 || spec.Isolation[backend.DefaultIsolation] == "" {
		t.Fatalf("%s: Spec.Isolation must say what the default is and take at least one level", spec.Name)
	}
	for _, l := range backend.Isolations {
		if spec.Isolation[l] == "" {
			t.Errorf("isolation=%s: Spec.Isolation says nothing (what it sets, or refused: why)", l)
		}
		if spec.Accepts(l) {
			continue
		}
		db, err := spec.Open(context.Background(), backend.Options{DB: spec.Throwaway, Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once, Isolation: l})
		var bad *knob.Error
		if !errors.As(err, &bad) {
			if db != nil {
				_ = db.Close()
			}
			t.Errorf("isolation=%s: the engine refuses it, but Open gave %v, want a clear refusal", l, err)
		}
	}
	strongest := levels[len(levels)-1]
	e, err := open(t, backend.Options{Isolation: strongest}).Engine(context.Background())
	if err != nil {
		t.Fatalf("isolation=%s: Engine: %v", strongest, err)
	}
	if e.Isolation != string(strongest) {
		t.Errorf("isolation=%s: read back %q", strongest, e.Isolation)
	}
}

var (
	create   = "CREATE TABLE conf (id BIGINT PRIMARY KEY, v VARCHAR(20) NOT NULL)"
	ins      = &backend.Stmt{SQL: "INSERT INTO conf (id, v) VALUES (?, ?)"}
	get      = &backend.Stmt{SQL: "SELECT v FROM conf WHERE id = ?"}
	all      = &backend.Stmt{SQL: "SELECT id FROM conf ORDER BY id"}
	bad      = &backend.Stmt{SQL: "SELEKT nonsense"}
	countAll = &backend.Stmt{SQL: "SELECT count(*) FROM conf"}
)

func sqlSuite(t *testing.T, db backend.SQLDB) {
	ctx := context.Background()
	c := Conn(t, ctx, db)
	must := func(err error) { t.Helper(); noError(t, err) }
	// Writing transactions as the engine counts them at once: PostgreSQL
	// publishes xact_commit late (at most once a second per backend).
	commits := counter(t, db, "write_xacts")
	if commits() < 0 {
		commits = counter(t, db, "commits")
	}
	must(c.ExecScript(ctx, create))
	d := db.Dialect()
	if d.Name == "" || d.Blob == "" || d.Upsert == nil || d.HasTable == "" {
		t.Fatalf("the dialect is incomplete: %+v", d)
	}
	var tables int64
	must(c.QueryRow(ctx, &backend.Stmt{SQL: d.HasTable}, []any{"conf"}, &tables))
	if tables != 1 {
		t.Errorf("HasTable found %d tables named conf, want 1", tables)
	}

	must(c.Begin(ctx))
	if _, err := c.Exec(ctx, ins, 1, "rolled back"); err != nil {
		t.Fatal(err)
	}
	must(c.Rollback(ctx))
	var v string
	if err := c.QueryRow(ctx, get, []any{1}, &v); !errors.Is(err, backend.ErrNoRows) {
		t.Fatalf("a rolled-back row is visible (err %v, v %q)", err, v)
	}

	c0 := commits()
	for i := 1; i <= 3; i++ {
		must(c.Begin(ctx))
		if n, err := c.Exec(ctx, ins, i, fmt.Sprint("row ", i)); err != nil || n != 1 {
			t.Fatalf("insert %d: n=%d err=%v", i, n, err)
		}
		must(c.Commit(ctx))
	}
	if c0 >= 0 {
		if got := commits() - c0; got != 3 {
			t.Errorf("the engine counted %d commits for 3", got)
		}
	}
	must(c.QueryRow(ctx, get, []any{2}, &v))
	if v != "row 2" {
		t.Errorf("read %q, want %q", v, "row 2")
	}
	var ids []int64
	must(c.Query(ctx, all, nil, func(scan func(...any) error) error {
		var id int64
		if err := scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
		return nil
	}))
	if !slices.Equal(ids, []int64{1, 2, 3}) {
		t.Errorf("query returned %v, want [1 2 3]", ids)
	}

	// A duplicate key rolls the unit back; it is not retried.
	must(c.Begin(ctx))
	_, err := c.Exec(ctx, ins, 1, "dup")
	if cl := dberr.ClassOf(err); cl != dberr.Rollback {
		t.Errorf("duplicate key: class %v (err %v), want rollback", cl, err)
	}
	must(c.Rollback(ctx))
	// Nonsense is a bug: fatal.
	if _, err := c.Exec(ctx, bad); dberr.ClassOf(err) != dberr.Fatal {
		t.Errorf("syntax error: class %v (err %v), want fatal", dberr.ClassOf(err), err)
	}

	// Two connections write one after the other; the second sees the first.
	c2 := Conn(t, ctx, db)
	must(c2.Begin(ctx))
	if _, err := c2.Exec(ctx, ins, 4, "other conn"); err != nil {
		t.Fatal(err)
	}
	must(c2.Commit(ctx))
	var n int64
	must(c.QueryRow(ctx, countAll, nil, &n))
	if n != 4 {
		t.Errorf("count %d after a commit on another connection, want 4", n)
	}
	queryAny(t, c, d)
	snapshot(t, c, c2)
	noWait(t, c, c2, d)
}

// snapshot checks a TxModer's snapshot transactions: a row another
// connection commits after one began is not seen by it, and is once it
// has ended.
func snapshot(t *testing.T, c, other backend.Conn) {
	tm, ok := c.(backend.TxModer)
	if !ok {
		return
	}
	ctx := context.Background()
	set, err := tm.SetTxMode(ctx, backend.TxMode{Snapshot: true, NoWait: true})
	noError(t, err)
	words := set.Words
	if words == "" {
		t.Error("SetTxMode says nothing of what the engine does")
	}
	var before, during, after int64
	noError(t, c.Begin(ctx))
	noError(t, c.QueryRow(ctx, countAll, nil, &before))
	noError(t, other.Begin(ctx))
	if _, err := other.Exec(ctx, ins, 99, "after the snapshot"); err != nil {
		t.Fatal(err)
	}
	noError(t, other.Commit(ctx))
	noError(t, c.QueryRow(ctx, countAll, nil, &during))
	noError(t, c.Rollback(ctx))
	noError(t, c.QueryRow(ctx, countAll, nil, &after))
	if during != before || after != before+1 {
		t.Errorf("a snapshot (%s) counted %d rows, then %d after another connection committed one, then %d once it ended; want %d, %d, %d",
			words, before, during, after, before, before, before+1)
	}
}

// noWait checks what SetTxMode says of row locks: in a read committed
// transaction asked not to wait, a row lock a statement asks for (FOR
// UPDATE NOWAIT; Firebird's WITH LOCK) on a row another connection holds
// is refused at once, as a conflict to retry, not waited for. It runs
// after snapshot, whose row 99 it locks.
func noWait(t *testing.T, c, other backend.Conn, d backend.Dialect) {
	tm, ok := c.(backend.TxModer)
	if !ok {
		return
	}
	ctx := context.Background()
	set, err := tm.SetTxMode(ctx, backend.TxMode{NoWait: true})
	noError(t, err)
	if !set.NoWait {
		t.Fatalf("SetTxMode(read committed, no wait) made %q, whose row locks wait", set.Words)
	}
	lock := " FOR UPDATE NOWAIT"
	if d.Name == "firebird" {
		lock = " FOR UPDATE WITH LOCK"
	}
	noError(t, other.Begin(ctx))
	if _, err := other.Exec(ctx, &backend.Stmt{SQL: "UPDATE conf SET v = 'held' WHERE id = 99"}); err != nil {
		t.Fatal(err)
	}
	noError(t, c.Begin(ctx))
	qctx, cancel := context.WithTimeout(ctx, 20*time.Second) // a lock waited for ends here, not with the test binary
	start := time.Now()
	var id int64
	err = c.QueryRow(qctx, &backend.Stmt{SQL: "SELECT id FROM conf WHERE id = 99" + lock}, nil, &id)
	waited := time.Since(start)
	cancel()
	_ = c.Rollback(ctx)
	noError(t, other.Rollback(ctx))
	if dberr.ClassOf(err) != dberr.Retryable || waited > 5*time.Second {
		t.Errorf("%s: a row lock on a row another holds: %v after %v (class %v); want a conflict to retry at once", set.Words, err, waited.Round(time.Millisecond), dberr.ClassOf(err))
	}
}

// queryAny checks QueryAny: names in lower case, values as plain Go
// values (a decimal and a date as their text), one call per row, the
// errors returned.
func queryAny(t *testing.T, c backend.Conn, d backend.Dialect) {
	ctx := context.Background()
	noError(t, c.ExecScript(ctx, "CREATE TABLE conf_any (id BIGINT PRIMARY KEY, qty INTEGER, price DOUBLE PRECISION, label VARCHAR(20), note VARCHAR(20), amount DECIMAL(10,2), since DATE)"))
	insAny := &backend.Stmt{SQL: "INSERT INTO conf_any (id, qty, price, label, amount, since) VALUES (?, ?, ?, ?, 1.50, ?)"}
	noError(t, c.Begin(ctx))
	for _, r := range [][]any{{1, 42, 1.5, "one", "2024-01-02"}, {2, -7, 0.25, "two", "2024-12-31"}} {
		if _, err := c.Exec(ctx, insAny, r...); err != nil {
			t.Fatal(err)
		}
	}
	noError(t, c.Commit(ctx))

	type row struct {
		cols []string
		vals []any
	}
	query := func(st *backend.Stmt, args ...any) ([]row, error) {
		var rows []row
		err := c.QueryAny(ctx, st, args, func(cols []string, vals []any) error {
			rows = append(rows, row{slices.Clone(cols), slices.Clone(vals)}) // both are reused
			return nil
		})
		return rows, err
	}
	one := &backend.Stmt{SQL: "SELECT id, qty, price, label, note, amount, since FROM conf_any WHERE id = ?"}
	rows, err := query(one, 1)
	noError(t, err)
	var amount any = "1.50"
	if d.Name == "sqlite" {
		amount = 1.5 // SQLite has no decimal: DECIMAL's affinity is NUMERIC, 1.50 is stored as REAL
	}
	want := row{[]string{"id", "qty", "price", "label", "note", "amount", "since"}, []any{int64(1), int64(42), 1.5, "one", nil, amount, "2024-01-02"}}
	if len(rows) != 1 || !reflect.DeepEqual(rows[0], want) {
		t.Errorf("QueryAny gave %#v, want one row %#v", rows, want)
	}
	if rows, err := query(one, 99); err != nil || len(rows) != 0 {
		t.Errorf("QueryAny of no row: %d calls, err %v; want none", len(rows), err)
	}
	rows, err = query(&backend.Stmt{SQL: "SELECT id, label FROM conf_any ORDER BY id"})
	noError(t, err)
	if len(rows) != 2 || !reflect.DeepEqual(rows[0].vals, []any{int64(1), "one"}) || !reflect.DeepEqual(rows[1].vals, []any{int64(2), "two"}) {
		t.Errorf("QueryAny of two rows gave %#v", rows)
	}
	if _, err := query(&backend.Stmt{SQL: "SELECT id FROM no_such_table_here"}); err == nil {
		t.Error("QueryAny of a table that does not exist returned no error")
	}
	stop := errors.New("stop")
	calls := 0
	err = c.QueryAny(ctx, &backend.Stmt{SQL: "SELECT id FROM conf_any ORDER BY id"}, nil, func([]string, []any) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("QueryAny whose row failed: %d calls, err %v; want 1 call and the row's error", calls, err)
	}
}

// counter returns a function reading the engine counter name, or -1 when
// the engine does not count it.
func counter(t *testing.T, db backend.DB, name string) func() int64 {
	s, ok := db.(backend.Statser)
	return func() int64 {
		if !ok {
			return -1
		}
		m, err := s.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		v, ok := m[name]
		if !ok {
			return -1
		}
		return v
	}
}

// kvSuite checks the key-value contract; ranges says the engine claims
// backend.RangeScans, which its connections must then keep.
func kvSuite(t *testing.T, db backend.KVDB, ranges bool) {
	ctx := context.Background()
	c, err := db.KVConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must := func(err error) { t.Helper(); noError(t, err) }
	must(c.CreateTable(ctx, "conf"))
	must(c.CreateTable(ctx, "conf")) // idempotent

	must(c.Begin(ctx, true))
	must(c.Put(ctx, "conf", []byte("k1"), []byte("gone")))
	must(c.Rollback(ctx))
	must(c.Begin(ctx, true))
	for _, k := range []string{"k3", "k1", "k2"} {
		must(c.Put(ctx, "conf", []byte(k), []byte("v"+k)))
	}
	must(c.Put(ctx, "conf", []byte("k2"), []byte("replaced")))
	must(c.Delete(ctx, "conf", []byte("k3")))
	must(c.Delete(ctx, "conf", []byte("never there")))
	must(c.Commit(ctx))

	must(c.Begin(ctx, false))
	v, ok, err := c.Get(ctx, "conf", []byte("k2"))
	must(err)
	if !ok || string(v) != "replaced" {
		t.Errorf("Get k2 = %q, %v; want replaced", v, ok)
	}
	if _, ok, _ := c.Get(ctx, "conf", []byte("k3")); ok {
		t.Error("a deleted key is still there")
	}
	var keys []string
	must(c.Scan(ctx, "conf", func(k, _ []byte) error { keys = append(keys, string(k)); return nil }))
	if !slices.Equal(keys, []string{"k1", "k2"}) {
		t.Errorf("scan gave %v, want [k1 k2] in order (the rolled-back put must be gone)", keys)
	}
	must(c.Rollback(ctx))
	if ranges {
		rangeScans(t, c)
	}

	must(c.DropTable(ctx, "conf"))
	must(c.Begin(ctx, false))
	_, _, err = c.Get(ctx, "conf", []byte("k1"))
	_ = c.Rollback(ctx)
	if err == nil {
		t.Error("Get on a dropped table succeeded")
	}
}

// rangeScans checks ScanFrom: from a key present or between two, with a
// limit, past the end, and through a write transaction's own writes.
func rangeScans(t *testing.T, c backend.KVConn) {
	ctx := context.Background()
	must := func(err error) { t.Helper(); noError(t, err) }
	rs, ok := c.(backend.RangeScanner)
	if !ok {
		t.Fatalf("the engine claims %s but its connection (%T) has no ScanFrom", backend.RangeScans, c)
	}
	from := func(key string, limit int) []string {
		t.Helper()
		var keys []string
		must(rs.ScanFrom(ctx, "conf", []byte(key), limit, func(k, v []byte) error {
			if string(v) != "v"+string(k) && string(k) != "k2" {
				t.Errorf("ScanFrom: %q holds %q", k, v)
			}
			keys = append(keys, string(k))
			return nil
		}))
		return keys
	}
	must(c.Begin(ctx, true))
	for _, k := range []string{"k5", "k4", "k3"} {
		must(c.Put(ctx, "conf", []byte(k), []byte("v"+k)))
	}
	if got := from("k25", 10); !slices.Equal(got, []string{"k3", "k4", "k5"}) {
		t.Errorf("ScanFrom(k25) in the writing transaction gave %v, want its own [k3 k4 k5]", got)
	}
	must(c.Commit(ctx))
	must(c.Begin(ctx, false))
	defer func() { must(c.Rollback(ctx)) }()
	for _, tc := range []struct {
		from  string
		limit int
		want  []string
	}{
		{"k2", 2, []string{"k2", "k3"}}, {"k", 100, []string{"k1", "k2", "k3", "k4", "k5"}},
		{"k45", 1, []string{"k5"}}, {"k6", 5, nil}, {"k1", 0, nil},
	} {
		if got := from(tc.from, tc.limit); !slices.Equal(got, tc.want) {
			t.Errorf("ScanFrom(%s, %d) = %v, want %v", tc.from, tc.limit, got, tc.want)
		}
	}
}

func noError(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
