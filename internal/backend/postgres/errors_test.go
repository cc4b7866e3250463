package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	pg := func(code string) error { return &pgconn.PgError{Code: code, Message: "x"} }
	backendtest.Classify(t, classify, backendtest.HoldKind, []backendtest.ClassCase{
		{Err: pg("40001"), Class: dberr.Retryable, Kind: dberr.Serialization},
		{Err: pg("40P01"), Class: dberr.Retryable, Kind: dberr.Deadlock},
		{Err: pg("55P03"), Class: dberr.Retryable, Kind: dberr.Lock},
		{Err: pg("40002"), Class: dberr.Rollback, Kind: dberr.Other},
		{Err: pg("23505"), Class: dberr.Rollback, Kind: dberr.Unique},
		{Err: pg("23514"), Class: dberr.Rollback, Kind: dberr.Check},
		{Err: pg("23503"), Class: dberr.Rollback, Kind: dberr.Constraint},
		{Err: pg("57P01"), Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: pg("57P03"), Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: pg("08006"), Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: pg("53300"), Class: dberr.Unavailable, Kind: dberr.Other},
		{Err: pg("53100"), Class: dberr.Unavailable, Kind: dberr.IO},
		{Err: pg("57014"), Class: dberr.Canceled, Kind: dberr.Interrupted},
		{Err: pg("XX001"), Class: dberr.Fatal, Kind: dberr.Corrupt},
		{Err: pg("42601"), Class: dberr.Fatal, Kind: dberr.Other},
		{Err: pg("28P01"), Class: dberr.Fatal, Kind: dberr.Other},
		{Err: fmt.Errorf("wrapped: %w", pg("40P01")), Class: dberr.Retryable, Kind: dberr.Deadlock},
		{Err: &net.OpError{Op: "read", Err: syscall.ECONNRESET}, Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: io.ErrUnexpectedEOF, Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: context.Canceled, Class: dberr.Canceled, Kind: dberr.Interrupted},
	})
	orig := pg("40001")
	var pe *pgconn.PgError
	if !errors.As(classify(orig), &pe) || !errors.Is(pe, orig) {
		t.Error("the driver error is lost")
	}
}

func TestRebind(t *testing.T) {
	backendtest.Rewrites(t, "rebind", rebind, map[string]string{
		"SELECT 1":                               "SELECT 1",
		"UPDATE t SET a = ? WHERE b = ?":         "UPDATE t SET a = $1 WHERE b = $2",
		"SELECT '?' , ? FROM \"q?\" WHERE x = ?": "SELECT '?' , $1 FROM \"q?\" WHERE x = $2",
	})
}
