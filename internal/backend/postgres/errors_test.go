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

	"github.com/dbgauge/dbgauge/internal/dberr"
)

func TestClassify(t *testing.T) {
	pg := func(code string) error { return &pgconn.PgError{Code: code, Message: "x"} }
	cases := []struct {
		err   error
		class dberr.Class
		kind  dberr.Kind
	}{
		{pg("40001"), dberr.Retryable, dberr.Serialization},
		{pg("40P01"), dberr.Retryable, dberr.Deadlock},
		{pg("55P03"), dberr.Retryable, dberr.Lock},
		{pg("40002"), dberr.Rollback, dberr.Other},
		{pg("23505"), dberr.Rollback, dberr.Unique},
		{pg("23514"), dberr.Rollback, dberr.Check},
		{pg("23503"), dberr.Rollback, dberr.Constraint},
		{pg("57P01"), dberr.Unavailable, dberr.Connection},
		{pg("57P03"), dberr.Unavailable, dberr.Connection},
		{pg("08006"), dberr.Unavailable, dberr.Connection},
		{pg("53300"), dberr.Unavailable, dberr.Other},
		{pg("53100"), dberr.Unavailable, dberr.IO},
		{pg("57014"), dberr.Canceled, dberr.Interrupted},
		{pg("XX001"), dberr.Fatal, dberr.Corrupt},
		{pg("42601"), dberr.Fatal, dberr.Other},
		{pg("28P01"), dberr.Fatal, dberr.Other},
		{fmt.Errorf("wrapped: %w", pg("40P01")), dberr.Retryable, dberr.Deadlock},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, dberr.Unavailable, dberr.Connection},
		{io.ErrUnexpectedEOF, dberr.Unavailable, dberr.Connection},
		{context.Canceled, dberr.Canceled, dberr.Interrupted},
	}
	for _, c := range cases {
		class, kind, _ := dberr.Describe(classify(c.err))
		if class != c.class || kind != c.kind {
			t.Errorf("classify(%v) = %v/%v, want %v/%v", c.err, class, kind, c.class, c.kind)
		}
	}
	orig := pg("40001")
	var pe *pgconn.PgError
	if !errors.As(classify(orig), &pe) || !errors.Is(pe, orig) {
		t.Error("the driver error is lost")
	}
}

func TestRebind(t *testing.T) {
	cases := map[string]string{
		"SELECT 1":                               "SELECT 1",
		"UPDATE t SET a = ? WHERE b = ?":         "UPDATE t SET a = $1 WHERE b = $2",
		"SELECT '?' , ? FROM \"q?\" WHERE x = ?": "SELECT '?' , $1 FROM \"q?\" WHERE x = $2",
	}
	for in, want := range cases {
		if got := rebind(in); got != want {
			t.Errorf("rebind(%q) = %q, want %q", in, got, want)
		}
	}
}
