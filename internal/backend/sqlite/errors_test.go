package sqlite

import (
	"context"
	"fmt"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	backendtest.Classify(t, classify, backendtest.HoldKind|backendtest.HoldWrap, []backendtest.ClassCase{
		{Err: sqlite3.Error{Code: sqlite3.ErrBusy}, Class: dberr.Retryable, Kind: dberr.Busy},
		{Err: sqlite3.Error{Code: sqlite3.ErrBusy, ExtendedCode: sqlite3.ErrBusySnapshot}, Class: dberr.Retryable, Kind: dberr.Busy},
		{Err: sqlite3.Error{Code: sqlite3.ErrLocked}, Class: dberr.Retryable, Kind: dberr.Lock},
		{Err: sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintPrimaryKey}, Class: dberr.Rollback, Kind: dberr.Unique},
		{Err: sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintCheck}, Class: dberr.Rollback, Kind: dberr.Check},
		{Err: sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintForeignKey}, Class: dberr.Rollback, Kind: dberr.Constraint},
		{Err: sqlite3.Error{Code: sqlite3.ErrIoErr}, Class: dberr.Unavailable, Kind: dberr.IO},
		{Err: sqlite3.Error{Code: sqlite3.ErrFull}, Class: dberr.Unavailable, Kind: dberr.IO},
		{Err: sqlite3.Error{Code: sqlite3.ErrCorrupt}, Class: dberr.Fatal, Kind: dberr.Corrupt},
		{Err: sqlite3.Error{Code: sqlite3.ErrError}, Class: dberr.Fatal, Kind: dberr.Other},
		{Err: sqlite3.Error{Code: sqlite3.ErrInterrupt}, Class: dberr.Canceled, Kind: dberr.Interrupted},
		{Err: fmt.Errorf("wrapped: %w", sqlite3.Error{Code: sqlite3.ErrBusy}), Class: dberr.Retryable, Kind: dberr.Busy},
		{Err: sqlite3.Error{Code: sqlite3.ErrNo(99)}, Class: dberr.Fatal, Kind: dberr.Other},
		{Err: context.Canceled, Class: dberr.Canceled, Kind: dberr.Interrupted},
	})
}
