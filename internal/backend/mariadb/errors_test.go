package mariadb

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		err   error
		class dberr.Class
	}{
		{&mysql.MySQLError{Number: 1213, Message: "Deadlock found"}, dberr.Retryable},
		{&mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}, dberr.Retryable},
		{&mysql.MySQLError{Number: 1062, Message: "Duplicate entry"}, dberr.Rollback},
		{&mysql.MySQLError{Number: 4025, Message: "CONSTRAINT `c` failed for `t`"}, dberr.Rollback},
		{&mysql.MySQLError{Number: 2013, Message: "Lost connection"}, dberr.Unavailable},
		{&mysql.MySQLError{Number: 1146, Message: "Table doesn't exist"}, dberr.Fatal},
		{driver.ErrBadConn, dberr.Unavailable},
		{mysql.ErrInvalidConn, dberr.Unavailable},
		{sql.ErrConnDone, dberr.Unavailable}, // a client's connection after the server went away
		{errors.New("something else"), dberr.Fatal},
	}
	for _, c := range cases {
		if got := dberr.ClassOf(classify(c.err)); got != c.class {
			t.Errorf("classify(%v) = %v, want %v", c.err, got, c.class)
		}
	}
	for n, want := range map[uint16]dberr.Kind{1062: dberr.Unique, 4025: dberr.Check, 1452: dberr.Constraint} {
		if _, kind, _ := dberr.Describe(classify(&mysql.MySQLError{Number: n})); kind != want {
			t.Errorf("error %d: kind %s, want %s", n, kind, want)
		}
	}
}
