package sqlite_test

import (
	"context"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/sqlite"
)

// TestPreparedPathAllocations: with --prepare once a point read and an
// update run on the driver's own statement (backend.StdConfig.Direct), not
// through database/sql's Stmt and Row: nothing of dbgauge's is allocated,
// the context handed to the driver included: a read allocates once (its
// rows, go-sqlite3's), an update twice (its result, go-sqlite3's). Through
// database/sql they allocated 13 and 5 times.
func TestPreparedPathAllocations(t *testing.T) {
	db := backendtest.Open(t, sqlite.Spec, backend.Options{DB: "sqlite", Conns: 1})
	ctx, cancel := context.WithCancel(context.Background()) // the run's context is cancelable
	defer cancel()
	c := backendtest.Conn(t, ctx, db.(backend.SQLDB), "CREATE TABLE a (id INTEGER PRIMARY KEY, bal INTEGER); WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 1000) INSERT INTO a SELECT n, 0 FROM g")
	backendtest.PreparedAllocs(t, ctx, c, []any{int64(7), int64(500)}, 1, 2)
}
