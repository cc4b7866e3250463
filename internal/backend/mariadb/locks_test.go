package mariadb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestLockView: while a statement waits for the row another transaction
// updated, its lock view shows InnoDB's LOCK WAIT, with the holder; while a
// statement sleeps (SLEEP), it shows none.
func TestLockView(t *testing.T) {
	if _, _, err := FindServer(); err != nil {
		testenv.Need(t, err)
	}
	ctx := context.Background()
	bdb, err := Spec.Open(ctx, backend.Options{DB: Spec.Throwaway, Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once, Conns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	db := bdb.(backend.SQLDB)
	a, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, q := range []string{"CREATE TABLE lv (id INT PRIMARY KEY, val INT) ENGINE=InnoDB", "INSERT INTO lv VALUES (1, 10)"} {
		if err := a.ExecScript(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	lw, ok := bdb.(backend.LockWaiter)
	if !ok {
		t.Fatalf("%T has no lock view", bdb)
	}

	view, err := lw.LockView(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	looks := lookWhile(t, view, func() error { return b.ExecScript(ctx, "SELECT SLEEP(1)") })
	for _, w := range looks {
		if w.Waiting {
			t.Errorf("a sleeping statement is shown waiting on a lock: %s", w.Seen)
		}
	}

	if err := a.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, &backend.Stmt{SQL: "UPDATE lv SET val = 11 WHERE id = 1"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if view, err = lw.LockView(ctx, b); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, &backend.Stmt{SQL: "UPDATE lv SET val = 12 WHERE id = 1"})
		done <- err
	}()
	w := lookUntilWaiting(t, view)
	if !strings.HasPrefix(w.Seen, "INNODB_TRX: ") || !strings.Contains(w.Seen, "held by thread") {
		t.Errorf("the wait is shown as %q, want InnoDB's and its holder", w.Seen)
	}
	if err := a.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := b.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
}

// lookWhile looks through view every 50 ms while run runs, and returns
// what it saw; it fails the test when it saw nothing.
func lookWhile(t *testing.T, view backend.LockView, run func() error) []backend.LockWait {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- run() }()
	var looks []backend.LockWait
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if len(looks) == 0 {
				t.Fatal("the statement ended before the lock view was looked at")
			}
			return looks
		case <-time.After(50 * time.Millisecond):
			w, err := view(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			looks = append(looks, w)
		}
	}
}

// lookUntilWaiting looks through view until it shows a wait, for up to 10 s.
func lookUntilWaiting(t *testing.T, view backend.LockView) backend.LockWait {
	t.Helper()
	var w backend.LockWait
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if w, err = view(context.Background()); err != nil {
			t.Fatal(err)
		}
		if w.Waiting {
			return w
		}
	}
	t.Fatalf("the waiting statement was never shown waiting: %+v", w)
	return w
}
