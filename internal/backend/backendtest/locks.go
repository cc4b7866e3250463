package backendtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// LockViewCase is what LockView needs of an engine: how to make the table
// lv (id INT PRIMARY KEY, val INT) holding (1, 10), a statement that runs
// about a second waiting on no lock, and what the view says of a row wait:
// the prefix naming the view and the words naming the holder.
type LockViewCase struct {
	Setup        []string
	Sleep        string
	Seen, Holder string
}

// LockView opens spec's throwaway instance with two connections and holds
// its lock view (backend.LockWaiter) to what it shows: a statement that
// sleeps is never shown waiting; a statement waiting for the row another
// transaction updated is, named as c says, with its holder.
func LockView(t *testing.T, spec backend.Spec, c LockViewCase) {
	t.Helper()
	ctx := context.Background()
	db := Open(t, spec, backend.Options{Conns: 2})
	lw, ok := db.(backend.LockWaiter)
	if !ok {
		t.Fatalf("%T has no lock view", db)
	}
	a, b := Conn(t, ctx, db.(backend.SQLDB), c.Setup...), Conn(t, ctx, db.(backend.SQLDB))
	view, err := lw.LockView(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range LookWhile(t, view, func() error { return b.ExecScript(ctx, c.Sleep) }) {
		if w.Waiting {
			t.Errorf("a sleeping statement is shown waiting on a lock: %s", w.Seen)
		}
	}
	w := RowWait(t, lw, a, b)
	if !strings.HasPrefix(w.Seen, c.Seen) || !strings.Contains(w.Seen, c.Holder) {
		t.Errorf("the wait is shown as %q, want %q… and the holder (%q)", w.Seen, c.Seen, c.Holder)
	}
}

// RowWait has a update row 1 of lv in a transaction and b update it too,
// looks through b's lock view until it shows the wait (returned), then
// rolls a back and b after it, both of which must succeed.
func RowWait(t *testing.T, lw backend.LockWaiter, a, b backend.Conn) backend.LockWait {
	t.Helper()
	update := func(ctx context.Context) error {
		_, err := a.Exec(ctx, &backend.Stmt{SQL: "UPDATE lv SET val = 11 WHERE id = 1"})
		return err
	}
	return WaitBehind(t, lw, a, b, update, a.Rollback)
}

// WaitBehind has a begin a transaction and take a lock in it (hold), and b
// begin one and update row 1 of lv, which must wait for a's lock; it looks
// through b's lock view until it shows the wait (returned), then ends a's
// transaction (end) and b's (rolled back), all of which must succeed.
func WaitBehind(t *testing.T, lw backend.LockWaiter, a, b backend.Conn, hold, end func(context.Context) error) backend.LockWait {
	t.Helper()
	ctx := context.Background()
	if err := a.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if err := hold(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	view, err := lw.LockView(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, &backend.Stmt{SQL: "UPDATE lv SET val = 12 WHERE id = 1"})
		done <- err
	}()
	w := LookUntil(t, view, func(w backend.LockWait) bool { return w.Waiting })
	if err := end(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := b.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	return w
}

// LookWhile looks through view every 50 ms while run runs, and returns
// what it saw; it fails the test when it saw nothing.
func LookWhile(t *testing.T, view backend.LockView, run func() error) []backend.LockWait {
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

// LookUntil looks through view until ok holds, for up to 10 s.
func LookUntil(t *testing.T, view backend.LockView, ok func(backend.LockWait) bool) backend.LockWait {
	t.Helper()
	var w backend.LockWait
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if w, err = view(context.Background()); err != nil {
			t.Fatal(err)
		}
		if ok(w) {
			return w
		}
	}
	t.Fatalf("the lock view never showed what was awaited: %+v", w)
	return w
}
