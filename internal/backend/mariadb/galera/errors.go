package galera

import (
	"errors"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

// NotPrimary is the kind of a statement a node refused because it is not
// ready for clients (wsrep_ready OFF): it is outside the cluster's Primary
// component (it lost quorum: cut off with a minority, or the majority is
// gone), or still joining it.
const NotPrimary dberr.Kind = "not-primary"

// Replication is the kind of a commit whose replication the provider
// failed: the node lost the Primary component while it committed.
const Replication dberr.Kind = "replication"

// numbers are Galera's codes on top of MariaDB's. A certification failure
// is 1213 (ER_LOCK_DEADLOCK, SQLSTATE 40001), the same code and state as
// an InnoDB deadlock: the driver cannot tell them apart, so both are
// deadlocks to retry (MariaDB's classification), and the engine's counters
// (Stats: cert_failures, bf_aborts) say how many were Galera's.
var numbers = map[uint16]dberr.Class{
	1047: dberr.Unavailable, // ER_UNKNOWN_COM_ERROR: "WSREP has not yet prepared node for application use"
	1180: dberr.Unavailable, // ER_ERROR_DURING_COMMIT: the write set could not be replicated
}

// classify classifies Galera's own codes and returns other errors as
// they are.
func classify(err error) error {
	if c := galeraCode(err); c != nil {
		return c
	}
	return err
}

// galeraCode classifies Galera's own codes, nil for the others (MariaDB's
// classification, mariadb.Nodes, does those).
func galeraCode(err error) error {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return nil
	}
	c, ok := numbers[me.Number]
	if !ok {
		return nil
	}
	kind := NotPrimary
	if me.Number == 1180 {
		kind = Replication
	}
	return dberr.New(c, kind, strconv.Itoa(int(me.Number)), err)
}
