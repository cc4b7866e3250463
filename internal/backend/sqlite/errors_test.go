package sqlite

import (
	"context"
	"errors"
	"fmt"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		err   error
		class dberr.Class
		kind  dberr.Kind
	}{
		{sqlite3.Error{Code: sqlite3.ErrBusy}, dberr.Retryable, dberr.Busy},
		{sqlite3.Error{Code: sqlite3.ErrBusy, ExtendedCode: sqlite3.ErrBusySnapshot}, dberr.Retryable, dberr.Busy},
		{sqlite3.Error{Code: sqlite3.ErrLocked}, dberr.Retryable, dberr.Lock},
		{sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintPrimaryKey}, dberr.Rollback, dberr.Unique},
		{sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintCheck}, dberr.Rollback, dberr.Check},
		{sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintForeignKey}, dberr.Rollback, dberr.Constraint},
		{sqlite3.Error{Code: sqlite3.ErrIoErr}, dberr.Unavailable, dberr.IO},
		{sqlite3.Error{Code: sqlite3.ErrFull}, dberr.Unavailable, dberr.IO},
		{sqlite3.Error{Code: sqlite3.ErrCorrupt}, dberr.Fatal, dberr.Corrupt},
		{sqlite3.Error{Code: sqlite3.ErrError}, dberr.Fatal, dberr.Other},
		{sqlite3.Error{Code: sqlite3.ErrInterrupt}, dberr.Canceled, dberr.Interrupted},
		{fmt.Errorf("wrapped: %w", sqlite3.Error{Code: sqlite3.ErrBusy}), dberr.Retryable, dberr.Busy},
		{sqlite3.Error{Code: sqlite3.ErrNo(99)}, dberr.Fatal, dberr.Other},
		{context.Canceled, dberr.Canceled, dberr.Interrupted},
	}
	for _, c := range cases {
		err := classify(c.err)
		class, kind, _ := dberr.Describe(err)
		if class != c.class || kind != c.kind {
			t.Errorf("classify(%v) = %v/%v, want %v/%v", c.err, class, kind, c.class, c.kind)
		}
		if !errors.Is(err, c.err) && !errors.Is(err, context.Canceled) {
			t.Errorf("classify(%v) lost the driver error", c.err)
		}
	}
	if classify(nil) != nil {
		t.Error("classify(nil) != nil")
	}
}
