package firebird

import (
	"database/sql/driver"
	"errors"
	"io"
	"testing"

	"github.com/nakagami/firebirdsql"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	fb := func(codes ...int) error { return &firebirdsql.FbError{GDSCodes: codes, Message: "fb"} }
	backendtest.Classify(t, classify, backendtest.HoldCode, []backendtest.ClassCase{
		{Err: fb(335544336), Class: dberr.Retryable, Code: "335544336"},            // deadlock
		{Err: fb(335544336, 335544451), Class: dberr.Retryable, Code: "335544451"}, // deadlock; update conflicts with concurrent update
		{Err: fb(335544345), Class: dberr.Retryable, Code: "335544345"},            // lock conflict
		{Err: fb(335544665, 335545072), Class: dberr.Rollback, Code: "335544665"},  // unique key violation; problematic key value
		{Err: fb(335544721), Class: dberr.Unavailable, Code: "335544721"},          // network error
		{Err: fb(335544856), Class: dberr.Unavailable, Code: "335544856"},          // connection shutdown
		{Err: fb(335544333), Class: dberr.Fatal, Code: "335544333"},                // bugcheck
		{Err: fb(335544569, 335544436, 335544634), Class: dberr.Fatal, Code: "335544569"},
		{Err: io.EOF, Class: dberr.Unavailable},
		{Err: driver.ErrBadConn, Class: dberr.Unavailable},
		{Err: errors.New("something else"), Class: dberr.Fatal},
	})
	for code, want := range map[int]dberr.Kind{335544558: dberr.Check, 335544347: dberr.Check, 335544665: dberr.Unique, 335544466: dberr.Constraint} {
		if _, kind, _ := dberr.Describe(classify(fb(code))); kind != want {
			t.Errorf("status %d: kind %s, want %s", code, kind, want)
		}
	}
}
