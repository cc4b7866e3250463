package firebird

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// TestFirebirdReopen: a server killed with SIGKILL (its whole process tree,
// as dbgauge crash does) is started again on its instance by Spec.Reopen,
// with a new SYSDBA password: the committed rows are there, the online
// validation passes, and Close removes the instance.
func TestFirebirdReopen(t *testing.T) {
	needServer(t)
	for _, mode := range []string{"Super", "Classic"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			f, _ := startFilled(t, mode)
			pid, old := f.Pid(), f.Password
			kids, err := server.KillTree(pid)
			if err != nil {
				t.Fatal(err)
			}
			if !server.GroupGone(pid, 10*time.Second) || !server.Gone(kids, 10*time.Second) {
				t.Fatal("the killed server's processes are still there")
			}
			logPath := filepath.Join(t.TempDir(), "recovery.log")
			t0 := time.Now()
			db, err := Spec.Reopen(ctx, f.DataDir, logPath, backend.Options{Dir: filepath.Dir(f.DataDir), Durability: backend.Sync, Prepare: backend.Once, Conns: 1})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(t0)
			m := db.(managedDB)
			if m.srv.Password == old || m.srv.Mode != mode {
				t.Errorf("password unchanged %v, mode %s", m.srv.Password == old, m.srv.Mode)
			}
			c, err := db.(backend.SQLDB).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT count(*) FROM t"}, nil, &n); err != nil || n != 5000 {
				t.Errorf("after the reopen: %d rows (%v), want 5000", n, err)
			}
			_ = c.Close()
			ok, what, err := db.(backend.Checker).Integrity(ctx)
			if !ok || err != nil {
				t.Errorf("integrity: %v %q %v", ok, what, err)
			}
			if err := db.Close(); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(f.Root); !os.IsNotExist(err) {
				out, _ := exec.Command("find", filepath.Dir(f.Root), "-ls").CombinedOutput()
				t.Errorf("the instance is still there after Close (%v):\n%s", err, out)
			}
			t.Logf("%s reopened in %v (server start %v): %s", mode, took, m.srv.Startup, what)
		})
	}
}

// TestFirebirdReopenBroken: a database whose pages a power cut broke does
// not open again, and Reopen says so at once, with Firebird's words,
// instead of waiting for a server that will never serve it.
func TestFirebirdReopenBroken(t *testing.T) {
	needServer(t)
	f, _ := startFilled(t, "Super")
	if err := f.Kill(); err != nil {
		t.Fatal(err)
	}
	// The header page, zeroed.
	fd, err := os.OpenFile(f.Database, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fd.WriteAt(make([]byte, 4096), 0); err != nil {
		t.Fatal(err)
	}
	_ = fd.Close()
	t0 := time.Now()
	db, err := Spec.Reopen(context.Background(), f.DataDir, filepath.Join(t.TempDir(), "recovery.log"), backend.Options{Durability: backend.Sync, Prepare: backend.Once, Conns: 1})
	if err == nil {
		db.Close()
		t.Fatal("a database with a zeroed header page opened")
	}
	if took := time.Since(t0); took > 20*time.Second || !strings.Contains(err.Error(), "did not open") {
		t.Errorf("after %v: %v", took, err)
	}
	t.Logf("%v", err)
}
