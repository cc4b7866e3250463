package backendtest

import (
	"context"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// PreparedAllocs holds a point read and an update on c, with ctx, to at
// most reads and writes allocations each, run as the workloads run them:
// the same statements again, their arguments and destinations reused.
// The table a (id, bal) must hold the row args[1]; args are the update's
// (amount, id), boxed once by the caller as a workload boxes its draws.
func PreparedAllocs(t *testing.T, ctx context.Context, c backend.Conn, args []any, reads, writes float64) {
	t.Helper()
	sel := &backend.Stmt{SQL: "SELECT bal FROM a WHERE id = ?"}
	upd := &backend.Stmt{SQL: "UPDATE a SET bal = bal + ? WHERE id = ?"}
	var bal int64
	dest := []any{&bal}
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
	if a := testing.AllocsPerRun(500, read); a > reads {
		t.Errorf("a point read allocates %.1f times", a)
	}
	if a := testing.AllocsPerRun(500, write); a > writes {
		t.Errorf("an update allocates %.1f times", a)
	}
}
