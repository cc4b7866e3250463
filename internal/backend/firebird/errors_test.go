package firebird

import (
	"database/sql/driver"
	"errors"
	"io"
	"testing"

	"github.com/nakagami/firebirdsql"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	fb := func(codes ...int) error { return &firebirdsql.FbError{GDSCodes: codes, Message: "fb"} }
	cases := []struct {
		err   error
		class dberr.Class
		code  string
	}{
		{fb(335544336), dberr.Retryable, "335544336"},            // deadlock
		{fb(335544336, 335544451), dberr.Retryable, "335544451"}, // deadlock; update conflicts with concurrent update
		{fb(335544345), dberr.Retryable, "335544345"},            // lock conflict
		{fb(335544665, 335545072), dberr.Rollback, "335544665"},  // unique key violation; problematic key value
		{fb(335544721), dberr.Unavailable, "335544721"},          // network error
		{fb(335544856), dberr.Unavailable, "335544856"},          // connection shutdown
		{fb(335544333), dberr.Fatal, "335544333"},                // bugcheck
		{fb(335544569, 335544436, 335544634), dberr.Fatal, "335544569"},
		{io.EOF, dberr.Unavailable, ""},
		{driver.ErrBadConn, dberr.Unavailable, ""},
		{errors.New("something else"), dberr.Fatal, ""},
	}
	for _, c := range cases {
		err := classify(c.err)
		_, _, code := dberr.Describe(err)
		if got := dberr.ClassOf(err); got != c.class || code != c.code {
			t.Errorf("classify(%v) = %v %q, want %v %q", c.err, got, code, c.class, c.code)
		}
	}
	for code, want := range map[int]dberr.Kind{335544558: dberr.Check, 335544347: dberr.Check, 335544665: dberr.Unique, 335544466: dberr.Constraint} {
		if _, kind, _ := dberr.Describe(classify(fb(code))); kind != want {
			t.Errorf("status %d: kind %s, want %s", code, kind, want)
		}
	}
}
