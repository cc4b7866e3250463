package postgres

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestLockView: while a statement waits for the row another transaction
// updated, its lock view shows the wait in pg_locks, with the holder; while
// a statement sleeps (pg_sleep), it shows none.
func TestLockView(t *testing.T) {
	_, err := FindServer("")
	testenv.Need(t, err)
	backendtest.LockView(t, Spec, backendtest.LockViewCase{
		Setup: []string{"CREATE TABLE lv (id INT PRIMARY KEY, val INT); INSERT INTO lv VALUES (1, 10)"},
		Sleep: "SELECT pg_sleep(1)",
		Seen:  "pg_locks: ", Holder: "held by pid",
	})
}
