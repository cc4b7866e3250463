package firebird

import (
	"context"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

// TestLockView: while a statement waits for the row another transaction
// updated, its lock view shows the record wait (MON$RECORD_WAITS); a
// statement that runs without waiting is shown running and not waiting; a
// statement of a SNAPSHOT TABLE STABILITY transaction waiting for the table
// is shown waiting by the lock table (fb_lock_print), which MON$ cannot.
func TestLockView(t *testing.T) {
	db := openManaged(t)
	ctx := context.Background()
	a := backendtest.Conn(t, ctx, db, "CREATE TABLE lv (id INT NOT NULL PRIMARY KEY, val INT)", "CREATE TABLE flag (id INT)", "INSERT INTO lv VALUES (1, 10)")
	b := backendtest.Conn(t, ctx, db)
	var lw backend.LockWaiter = db

	// Running, not waiting: a loop that ends when flag has a row (read
	// committed sees the row once it is committed) or after 10^8 turns.
	view, err := lw.LockView(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- b.ExecScript(ctx, "EXECUTE BLOCK AS DECLARE n INT = 0; BEGIN WHILE (n < 100000000 AND NOT EXISTS (SELECT 1 FROM flag)) DO n = n + 1; END")
	}()
	w := backendtest.LookUntil(t, view, func(w backend.LockWait) bool { return strings.Contains(w.Seen, "running statement") })
	if w.Waiting || w.Unseen != "" {
		t.Errorf("a running statement that waits for nothing is shown %+v", w)
	}
	if err := a.ExecScript(ctx, "INSERT INTO flag VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// A record wait.
	if w := backendtest.RowWait(t, lw, a, b); !strings.HasPrefix(w.Seen, "MON$RECORD_STATS: ") {
		t.Errorf("the wait is shown as %q, want MON$RECORD_STATS's", w.Seen)
	}

	// A table lock of SNAPSHOT TABLE STABILITY: a reads lv, b's update waits.
	tableStability(a, b)
	read := func(ctx context.Context) error {
		var v int64
		return a.QueryRow(ctx, &backend.Stmt{SQL: "SELECT val FROM lv WHERE id = 1"}, nil, &v)
	}
	w = backendtest.WaitBehind(t, lw, a, b, read, a.Commit)
	if !strings.HasPrefix(w.Seen, "the lock table (fb_lock_print): ") || !strings.Contains(w.Seen, "table LV") {
		t.Errorf("a statement waiting for a table of SNAPSHOT TABLE STABILITY is shown %+v, want the lock table's request for LV", w)
	}
}
