package sqlite_test

import (
	"context"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// TestPreparedPathAllocations: with --prepare once a point read and an
// update run on the driver's own statement (backend.StdConfig.Direct), not
// through database/sql's Stmt and Row: nothing of dbgauge's is allocated,
// the context handed to the driver included: a read allocates once (its
// rows, go-sqlite3's), an update twice (its result, go-sqlite3's). Through
// database/sql they allocated 13 and 5 times.
func TestPreparedPathAllocations(t *testing.T) {
	db, err := open(t, backend.Options{DB: "sqlite"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background()) // the run's context is cancelable
	defer cancel()
	c, err := db.(backend.SQLDB).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.ExecScript(ctx, "CREATE TABLE a (id INTEGER PRIMARY KEY, bal INTEGER); WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 1000) INSERT INTO a SELECT n, 0 FROM g"); err != nil {
		t.Fatal(err)
	}
	sel := &backend.Stmt{SQL: "SELECT bal FROM a WHERE id = ?"}
	upd := &backend.Stmt{SQL: "UPDATE a SET bal = bal + ? WHERE id = ?"}
	var bal int64
	args, dest := []any{int64(7), int64(500)}, []any{&bal}
	read := func() {
		if err := c.QueryRow(ctx, sel, args[1:2], dest...); err != nil {
			t.Fatal(err)
		}
	}
	write := func() {
		if n, err := c.Exec(ctx, upd, args...); err != nil || n != 1 {
			t.Fatal(n, err)
		}
	}
	read()
	write()
	if a := testing.AllocsPerRun(500, read); a > 1 {
		t.Errorf("a point read allocates %.1f times", a)
	}
	if a := testing.AllocsPerRun(500, write); a > 2 {
		t.Errorf("an update allocates %.1f times", a)
	}
}
