package postgres

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

// TestPreparedPath: what the prepared path (pgconn's ExecPrepared and
// ResultReader, preparedpath.go) must get right beyond plain rows: notices between
// messages, a row larger than a read buffer, many rows, errors in a
// transaction, pgconn's other operations in between, and a connection
// killed under it.
func TestPreparedPath(t *testing.T) {
	c, other := managedConns(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.ExecScript(ctx, `CREATE FUNCTION noisy() RETURNS int AS $$ BEGIN RAISE NOTICE 'hello'; RAISE WARNING 'careful'; RETURN 1; END $$ LANGUAGE plpgsql;
		CREATE TABLE w (id int PRIMARY KEY, v text)`))

	var n int64
	must(c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT noisy()"}, nil, &n))
	if n != 1 {
		t.Errorf("noisy() read as %d", n)
	}
	var big string
	must(c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT repeat('x', ?)"}, []any{100_000}, &big))
	if len(big) != 100_000 || strings.Trim(big, "x") != "" {
		t.Errorf("a 100,000-byte value read as %d bytes", len(big))
	}
	count := 0
	must(c.Query(ctx, &backend.Stmt{SQL: "SELECT g, repeat('y', 50) FROM generate_series(1, 20000) g"}, nil, func(scan func(...any) error) error {
		var g int
		var s string
		if err := scan(&g, &s); err != nil {
			return err
		}
		count++
		if g != count || len(s) != 50 {
			t.Fatalf("row %d read as %d, %q", count, g, s)
		}
		return nil
	}))
	if count != 20000 {
		t.Errorf("%d rows of 20,000", count)
	}

	// An error inside a transaction: classified, the transaction rolled
	// back, the connection still good.
	ins := &backend.Stmt{SQL: "INSERT INTO w VALUES (?, ?)"}
	must(c.Begin(ctx))
	if _, err := c.Exec(ctx, ins, 1, "a"); err != nil {
		t.Fatal(err)
	}
	_, err := c.Exec(ctx, ins, 1, "again")
	if dberr.ClassOf(err) != dberr.Rollback || sqlState(err) != "23505" {
		t.Errorf("duplicate key: %v (class %v)", err, dberr.ClassOf(err))
	}
	if _, err := c.Exec(ctx, ins, 2, "b"); sqlState(err) != "25P02" {
		t.Errorf("a statement in a failed transaction: %v, want 25P02", err)
	}
	must(c.Rollback(ctx))
	// Scripts, COPY and prepared statements, interleaved.
	must(c.ExecScript(ctx, "INSERT INTO w VALUES (3, 'script')"))
	rows := []string{"copied"}
	if _, err := c.CopyFrom(ctx, "w", []string{"id", "v"}, func() ([]any, bool) {
		if len(rows) == 0 {
			return nil, false
		}
		r := rows[0]
		rows = rows[1:]
		return []any{4, r}, true
	}); err != nil {
		t.Fatal(err)
	}
	var v string
	must(c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT string_agg(v, ',' ORDER BY id) FROM w"}, nil, &v))
	if v != "script,copied" {
		t.Errorf("the table holds %q, want script,copied", v)
	}

	// The server ends the connection: the next statement fails as
	// unavailable, at once, and so does every one after it.
	var pid int64
	must(c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT pg_backend_pid()"}, nil, &pid))
	var killed bool
	must(other.QueryRow(ctx, &backend.Stmt{SQL: "SELECT pg_terminate_backend(?)"}, []any{pid}, &killed))
	time.Sleep(100 * time.Millisecond)
	for i := range 2 {
		start := time.Now()
		err := c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT 1"}, nil, &n)
		if dberr.ClassOf(err) != dberr.Unavailable {
			t.Errorf("statement %d after the server ended the connection: %v (class %v), want unavailable", i+1, err, dberr.ClassOf(err))
		}
		// At once, not after a timeout of the driver's or the kernel's:
		// 10 s is beyond any machine's pace and short of every such timeout.
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("statement %d took %s to fail", i+1, d)
		}
	}
}

// TestPreparedPathCanceled: canceling the context a connection was opened with ends
// the statement in flight at once.
func TestPreparedPathCanceled(t *testing.T) {
	fast, _ := managedConns(t)
	ctx, cancel := context.WithCancel(context.Background())
	bc, err := fast.d.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close()
	done := make(chan error, 1)
	go func() {
		var s string
		done <- bc.QueryRow(context.Background(), &backend.Stmt{SQL: "SELECT pg_sleep(30)::text"}, nil, &s)
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a canceled pg_sleep(30) returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("canceling did not end the statement in flight")
	}
}

// TestPreparedPathAllocations: a point read and an update on the prepared
// path allocate nothing of dbgauge's, with their arguments and destinations
// reused as the workloads reuse them, and one thing of pgconn's: the command
// tag ResultReader.Close returns ("UPDATE 1"), a string made per statement
// (pgconn's makeCommandTag).
func TestPreparedPathAllocations(t *testing.T) {
	c, _ := managedConns(t)
	ctx := context.Background()
	if err := c.ExecScript(ctx, "CREATE TABLE a (id int PRIMARY KEY, bal int, filler char(84)); INSERT INTO a SELECT g, 0, '' FROM generate_series(1, 1000) g"); err != nil {
		t.Fatal(err)
	}
	args := make([]any, 2)
	args[0], args[1] = 7, 5 // boxed once, as tpcb's draws below 256 are
	backendtest.PreparedAllocs(t, ctx, c, args, 1, 1)
}
