// Package crash runs a write workload in a child process, kills it at a
// seeded random moment, reopens the database and counts exactly what was
// acknowledged and lost. The ledger of acknowledged commits lives in the
// controlling process, outside the engine and its files.
package crash

import (
	"fmt"
	"os"
	"strconv"

	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// LedgerEnv tells a child run the file descriptor to write its ledger to.
const LedgerEnv = "DBGAUGE_LEDGER_FD"

// ChildLedger returns the ledger the controlling process gave this one, or
// nil when it gave none.
func ChildLedger() (workload.Ledger, error) {
	s := os.Getenv(LedgerEnv)
	if s == "" {
		return nil, nil
	}
	fd, err := strconv.Atoi(s)
	if err != nil {
		return nil, fmt.Errorf("%s=%q is not a file descriptor", LedgerEnv, s)
	}
	return ledger.NewPipe(os.NewFile(uintptr(fd), "ledger")), nil
}
