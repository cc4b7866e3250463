package mariadb

import (
	"errors"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

type class struct {
	class dberr.Class
	kind  dberr.Kind
}

// numbers maps MariaDB's error numbers
// (https://mariadb.com/kb/en/mariadb-error-code-reference/).
var numbers = map[uint16]class{
	1213: {dberr.Retryable, dberr.Deadlock},      // ER_LOCK_DEADLOCK
	1205: {dberr.Retryable, dberr.Timeout},       // ER_LOCK_WAIT_TIMEOUT
	1020: {dberr.Retryable, dberr.Serialization}, // ER_CHECKREAD: record changed since last read
	1062: {dberr.Rollback, dberr.Unique},         // ER_DUP_ENTRY
	4025: {dberr.Rollback, dberr.Check},          // ER_CONSTRAINT_FAILED: CHECK constraint
	1451: {dberr.Rollback, dberr.Constraint},     // ER_ROW_IS_REFERENCED_2
	1452: {dberr.Rollback, dberr.Constraint},     // ER_NO_REFERENCED_ROW_2
	1048: {dberr.Rollback, dberr.Check},          // ER_BAD_NULL_ERROR
	1406: {dberr.Rollback, dberr.Constraint},     // ER_DATA_TOO_LONG
	1040: {dberr.Unavailable, dberr.Connection},  // ER_CON_COUNT_ERROR
	1053: {dberr.Unavailable, dberr.Connection},  // ER_SERVER_SHUTDOWN
	2006: {dberr.Unavailable, dberr.Connection},  // CR_SERVER_GONE_ERROR
	2013: {dberr.Unavailable, dberr.Connection},  // CR_SERVER_LOST
	1021: {dberr.Unavailable, dberr.IO},          // ER_DISK_FULL
	1114: {dberr.Unavailable, dberr.IO},          // ER_RECORD_FILE_FULL
	1317: {dberr.Canceled, dberr.Interrupted},    // ER_QUERY_INTERRUPTED
	1969: {dberr.Canceled, dberr.Timeout},        // ER_STATEMENT_TIMEOUT
	1030: {dberr.Fatal, dberr.IO},                // ER_GET_ERRNO (storage engine error)
	126:  {dberr.Fatal, dberr.Corrupt},           // HA_ERR_CRASHED
	145:  {dberr.Fatal, dberr.Corrupt},           // table marked as crashed
}

// classify wraps a driver error in a *dberr.Error.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		c, ok := numbers[me.Number]
		if !ok {
			c = class{dberr.Fatal, dberr.Other}
		}
		return dberr.New(c.class, c.kind, strconv.Itoa(int(me.Number)), err)
	}
	if c := backend.CanceledOrLost(err); c != nil {
		return c
	}
	if errors.Is(err, mysql.ErrInvalidConn) {
		return dberr.New(dberr.Unavailable, dberr.Connection, "", err)
	}
	return dberr.New(dberr.Fatal, dberr.Other, "", err)
}
