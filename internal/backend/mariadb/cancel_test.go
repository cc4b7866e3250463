package mariadb

import (
	"context"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

// TestCancelKills: statements hand the driver no cancelable context, so the
// end of the context a connection was opened with must still end a
// statement in flight (KILL from another connection), as canceled, and
// every statement after it.
func TestCancelKills(t *testing.T) {
	needServer(t)
	db := backendtest.Open(t, Spec, backend.Options{DB: "mariadb:managed", Conns: 2})
	ctx, cancel := context.WithCancel(context.Background())
	c := backendtest.Conn(t, ctx, db.(backend.SQLDB))
	var one int64
	if err := c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT 1"}, nil, &one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d, %v", one, err)
	}
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	var slept int64
	err := c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT SLEEP(30)"}, nil, &slept)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the statement ran %v after its context ended", took)
	}
	if dberr.ClassOf(err) != dberr.Canceled {
		t.Fatalf("SELECT SLEEP(30) after cancel: %v (class %v), want canceled", err, dberr.ClassOf(err))
	}
	if err := c.QueryRow(context.Background(), &backend.Stmt{SQL: "SELECT 1"}, nil, &one); dberr.ClassOf(err) != dberr.Canceled {
		t.Fatalf("a statement after the cancel: %v, want canceled", err)
	}
}
