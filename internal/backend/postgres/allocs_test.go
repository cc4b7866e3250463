package postgres

import (
	"context"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
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
	args := make([]any, 2)
	args[0], args[1] = 7, 5 // boxed once, as tpcb's draws below 256 are
	backendtest.PreparedAllocs(t, ctx, c, args, 1, 1)
}
