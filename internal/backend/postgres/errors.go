package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

type class struct {
	class dberr.Class
	kind  dberr.Kind
}

// states maps SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html);
// classes maps the first two characters when the whole code is not listed.
var (
	states = map[string]class{
		"40001": {dberr.Retryable, dberr.Serialization}, // serialization_failure
		"40P01": {dberr.Retryable, dberr.Deadlock},      // deadlock_detected
		"55P03": {dberr.Retryable, dberr.Lock},          // lock_not_available (NOWAIT, lock_timeout)
		"23505": {dberr.Rollback, dberr.Unique},         // unique_violation
		"23514": {dberr.Rollback, dberr.Check},          // check_violation
		"23502": {dberr.Rollback, dberr.Check},          // not_null_violation
		"40003": {dberr.Unavailable, dberr.Connection},  // statement_completion_unknown
		"57P01": {dberr.Unavailable, dberr.Connection},  // admin_shutdown
		"57P02": {dberr.Unavailable, dberr.Connection},  // crash_shutdown
		"57P03": {dberr.Unavailable, dberr.Connection},  // cannot_connect_now
		"57014": {dberr.Canceled, dberr.Interrupted},    // query_canceled
		"53100": {dberr.Unavailable, dberr.IO},          // disk_full
		"25P02": {dberr.Rollback, dberr.Other},          // in_failed_sql_transaction
		"XX001": {dberr.Fatal, dberr.Corrupt},           // data_corrupted
		"XX002": {dberr.Fatal, dberr.Corrupt},           // index_corrupted
	}
	classes = map[string]class{
		"08": {dberr.Unavailable, dberr.Connection}, // connection exception
		"23": {dberr.Rollback, dberr.Constraint},    // integrity constraint violation
		"40": {dberr.Rollback, dberr.Other},         // transaction rollback
		"53": {dberr.Unavailable, dberr.Other},      // insufficient resources
		"57": {dberr.Unavailable, dberr.Connection}, // operator intervention
		"58": {dberr.Unavailable, dberr.IO},         // system error
	}
)

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func unavailable(err error) error { return dberr.New(dberr.Unavailable, dberr.Connection, "", err) }

// classify wraps a pgx error in a classified *dberr.Error: by SQLSTATE for
// server errors; connection failures are unavailable; others pass through.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	if code := sqlState(err); code != "" {
		c, ok := states[code]
		if !ok {
			c, ok = classes[code[:2]]
		}
		if !ok {
			c = class{dberr.Fatal, dberr.Other}
		}
		return dberr.New(c.class, c.kind, code, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) || backend.ConnLost(err) || pgconn.SafeToRetry(err) {
		return unavailable(err)
	}
	return err
}
