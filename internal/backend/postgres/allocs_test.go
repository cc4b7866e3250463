package postgres

import (
	"context"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
)

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
	sel := &backend.Stmt{SQL: "SELECT bal FROM a WHERE id = ?"}
	upd := &backend.Stmt{SQL: "UPDATE a SET bal = bal + ? WHERE id = ?"}
	var bal int64
	args, dest := make([]any, 2), []any{&bal}
	args[0], args[1] = 7, 5 // boxed once, as tpcb's draws below 256 are
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
	if a := testing.AllocsPerRun(500, write); a > 1 {
		t.Errorf("an update allocates %.1f times", a)
	}
}
