package mariadb

import (
	"context"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestFoundRows: an UPDATE that leaves the row it found as it was is one
// row, as on every other engine (tpcb adds a delta of 0 now and then), on
// the prepared path and on the direct one alike.
func TestFoundRows(t *testing.T) {
	ctx := context.Background()
	for _, prep := range []backend.Prepare{backend.Once, backend.Each} {
		t.Run(string(prep), func(t *testing.T) {
			db := backendtest.Open(t, Spec, backend.Options{DB: "mariadb:managed", Prepare: prep})
			c := backendtest.Conn(t, ctx, db.(backend.SQLDB), "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 5)")
			upd := &backend.Stmt{SQL: "UPDATE t SET v = v + ? WHERE id = ?"}
			for _, delta := range []int{0, 3} {
				n, err := c.Exec(ctx, upd, delta, 1)
				if err != nil || n != 1 {
					t.Fatalf("adding %d to the one row: %d rows, %v; want 1", delta, n, err)
				}
			}
			if n, err := c.Exec(ctx, upd, 0, 2); err != nil || n != 0 {
				t.Fatalf("no row 2: %d rows, %v; want 0", n, err)
			}
		})
	}
}
