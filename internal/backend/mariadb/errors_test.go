package mariadb

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	backendtest.Classify(t, classify, 0, []backendtest.ClassCase{
		{Err: &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}, Class: dberr.Retryable},
		{Err: &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}, Class: dberr.Retryable},
		{Err: &mysql.MySQLError{Number: 1062, Message: "Duplicate entry"}, Class: dberr.Rollback},
		{Err: &mysql.MySQLError{Number: 4025, Message: "CONSTRAINT `c` failed for `t`"}, Class: dberr.Rollback},
		{Err: &mysql.MySQLError{Number: 2013, Message: "Lost connection"}, Class: dberr.Unavailable},
		{Err: &mysql.MySQLError{Number: 1146, Message: "Table doesn't exist"}, Class: dberr.Fatal},
		{Err: driver.ErrBadConn, Class: dberr.Unavailable},
		{Err: mysql.ErrInvalidConn, Class: dberr.Unavailable},
		{Err: sql.ErrConnDone, Class: dberr.Unavailable}, // a client's connection after the server went away
		{Err: errors.New("something else"), Class: dberr.Fatal},
	})
	for n, want := range map[uint16]dberr.Kind{1062: dberr.Unique, 4025: dberr.Check, 1452: dberr.Constraint} {
		if _, kind, _ := dberr.Describe(classify(&mysql.MySQLError{Number: n})); kind != want {
			t.Errorf("error %d: kind %s, want %s", n, kind, want)
		}
	}
}
