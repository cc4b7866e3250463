package firebird

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// isolationDoc says what --isolation sets: the transaction parameter block
// every client transaction begins with (Firebird 3 Language Reference, "SET
// TRANSACTION"), through nakagami/firebirdsql's levels.
var isolationDoc = map[backend.Isolation]string{
	backend.DefaultIsolation: "READ COMMITTED RECORD_VERSION WAIT (isc_tpb_read_committed, isc_tpb_rec_version): the driver's default; read back",
	backend.ReadUncommitted:  backend.Refused + "Firebird never shows a row another transaction has not committed: give --isolation read-committed",
	backend.ReadCommitted:    "READ COMMITTED RECORD_VERSION WAIT: each statement sees the latest committed version of a row; updating a row another transaction changed waits for it, then fails with update_conflict if that one committed",
	backend.RepeatableRead:   "SNAPSHOT WAIT (isc_tpb_concurrency): snapshot isolation, one snapshot per transaction; updating a row changed since fails with update_conflict",
	backend.Serializable:     "SNAPSHOT TABLE STABILITY WAIT (isc_tpb_consistency): a snapshot whose tables are locked against other writers as the transaction reads or writes them",
}

// txOptions returns the driver's transaction options for level l.
func txOptions(l backend.Isolation) (driver.TxOptions, error) {
	switch l {
	case "", backend.DefaultIsolation:
		return driver.TxOptions{}, nil
	case backend.ReadCommitted:
		return driver.TxOptions{Isolation: driver.IsolationLevel(sql.LevelReadCommitted)}, nil
	case backend.RepeatableRead:
		return driver.TxOptions{Isolation: driver.IsolationLevel(sql.LevelRepeatableRead)}, nil
	case backend.Serializable:
		return driver.TxOptions{Isolation: driver.IsolationLevel(sql.LevelSerializable)}, nil
	}
	why, _ := backend.IsolationRefusal("firebird", isolationDoc, l)
	return driver.TxOptions{}, knob.Bad("give read-committed, repeatable-read or serializable", "--isolation %s on firebird: %s", l, why)
}

// readIsolation is what a transaction says of itself (MON$TRANSACTIONS:
// MON$ISOLATION_MODE 0 consistency, 1 concurrency, 2 read committed record
// version, 3 read committed no record version; MON$LOCK_TIMEOUT -1: wait).
var readIsolation = &backend.Stmt{SQL: "SELECT MON$ISOLATION_MODE, MON$LOCK_TIMEOUT FROM MON$TRANSACTIONS WHERE MON$TRANSACTION_ID = CURRENT_TRANSACTION"}

// isolation reads back, in a transaction begun as a client's are, the
// level it got: Firebird's words and --isolation's.
func (d *db) isolation(ctx context.Context) (words, level string, err error) {
	sc, err := d.sql.Conn(ctx)
	if err != nil {
		return "", "", classify(err)
	}
	c := newConn(sc, backend.Each)
	c.txOpts = d.txOpts
	defer c.Close()
	return c.isolation(ctx)
}

// isolation reads back what a transaction of this connection, begun as its
// next one will be, says of itself.
func (c *conn) isolation(ctx context.Context) (words, level string, err error) {
	var mode, timeout int64
	if err := c.auto(func() error { return c.QueryRow(ctx, readIsolation, nil, &mode, &timeout) }); err != nil {
		return "", "", err
	}
	wait := "wait"
	switch {
	case timeout == 0:
		wait = "no wait"
	case timeout > 0:
		wait = fmt.Sprintf("lock timeout %d s", timeout)
	}
	switch mode {
	case 0:
		return "snapshot table stability " + wait, string(backend.Serializable), nil
	case 1:
		return "snapshot " + wait, string(backend.RepeatableRead), nil
	case 2:
		return "read committed record_version " + wait, string(backend.ReadCommitted), nil
	case 3:
		return "read committed no_record_version " + wait, string(backend.ReadCommitted), nil
	}
	return fmt.Sprintf("MON$ISOLATION_MODE %d", mode), "", nil
}
