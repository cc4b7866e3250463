package mariadb

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestLockView: while a statement waits for the row another transaction
// updated, its lock view shows InnoDB's LOCK WAIT, with the holder; while a
// statement sleeps (SLEEP), it shows none.
func TestLockView(t *testing.T) {
	needServer(t)
	backendtest.LockView(t, Spec, backendtest.LockViewCase{
		Setup: []string{"CREATE TABLE lv (id INT PRIMARY KEY, val INT) ENGINE=InnoDB", "INSERT INTO lv VALUES (1, 10)"},
		Sleep: "SELECT SLEEP(1)",
		Seen:  "INNODB_TRX: ", Holder: "held by thread",
	})
}
