package firebird

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/server"
)

func TestFirebird(t *testing.T) {
	needServer(t)
	for _, mode := range []string{"Super", "SuperClassic", "Classic"} {
		t.Run(mode, func(t *testing.T) {
			f, err := Start(context.Background(), ServerConfig{Config: server.Config{Dir: t.TempDir()}, PageSize: 16384, ForcedWrites: mode != "Super",
				Conf: map[string]string{"ServerMode": mode, "DefaultDbCachePages": "1000"}})
			if err != nil {
				t.Fatal(err)
			}
			defer f.StopClean()
			db, err := sql.Open("firebirdsql", f.DSN())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var fw, ps, buffers int
			if err := db.QueryRow("SELECT MON$FORCED_WRITES, MON$PAGE_SIZE, MON$PAGE_BUFFERS FROM MON$DATABASE").Scan(&fw, &ps, &buffers); err != nil {
				t.Fatal(err)
			}
			if ps != 16384 || (fw == 1) != (mode != "Super") || buffers != 1000 {
				t.Errorf("forced writes %d, page size %d, buffers %d", fw, ps, buffers)
			}
			bad, _ := sql.Open("firebirdsql", strings.Replace(f.DSN(), f.Password, "wrong", 1))
			defer bad.Close()
			if err := bad.Ping(); err == nil {
				t.Error("SYSDBA with a wrong password was let in")
			}
			if out, err := f.Service(context.Background(), "action_validate"); err != nil {
				t.Errorf("online validation: %v: %s", err, out)
			} else {
				t.Logf("validation: %s", out)
			}
			t.Logf("%s started in %v as %s: %s", mode, f.Startup, f.Account.Name, f.Note)
		})
	}
}

// startFilled starts a server in mode with forced writes, its database
// holding a table t of 5,000 rows; the test's cleanup stops it.
func startFilled(t *testing.T, mode string) (*Server, *sql.DB) {
	t.Helper()
	f, err := Start(context.Background(), ServerConfig{Config: server.Config{Dir: t.TempDir()}, ForcedWrites: true, Conf: map[string]string{"ServerMode": mode}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.StopClean() })
	return f, backendtest.OpenSQL(t, "firebirdsql", f.DSN(), "CREATE TABLE t (k INTEGER NOT NULL PRIMARY KEY, v VARCHAR(100))",
		"EXECUTE BLOCK AS DECLARE i INTEGER = 0; BEGIN WHILE (i < 5000) DO BEGIN INSERT INTO t VALUES (:i, 'x'); i = i + 1; END END")
}

// TestFirebirdCrashRestart: after a kill -9 and a restart, the server answers
// again on the same port and keeps what was committed before.
func TestFirebirdCrashRestart(t *testing.T) {
	needServer(t)
	for _, mode := range []string{"Super", "SuperClassic", "Classic"} {
		t.Run(mode, func(t *testing.T) {
			f, _ := startFilled(t, mode)
			pid, port := f.Pid(), f.Port
			note, err := f.CrashRestart(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if f.Pid() == pid {
				t.Errorf("the same process (%d) after the restart", pid)
			}
			if (f.Port != port) != (mode == "Classic") {
				t.Errorf("port %d → %d: want a new one in Classic only", port, f.Port)
			}
			if !strings.HasPrefix(note, "no log to replay") {
				t.Errorf("recovery note %q", note)
			}
			// A new pool: the old one's connections died with the server.
			backendtest.Rows(t, backendtest.OpenSQL(t, "firebirdsql", f.DSN()), "t", 5000, "after the restart")
			t.Logf("recovery note: %q", note)
		})
	}
}

// TestFirebirdBackup: nbackup of the running database, restored into a new
// file the same server opens, holds the rows committed before it.
func TestFirebirdBackup(t *testing.T) {
	needServer(t)
	for _, mode := range []string{"Super", "SuperClassic", "Classic"} {
		t.Run(mode, func(t *testing.T) { firebirdBackup(t, mode) })
	}
}

func firebirdBackup(t *testing.T, mode string) {
	ctx := context.Background()
	f, db := startFilled(t, mode)
	bk := filepath.Join(f.DataDir, "backup.nbk")
	took := backendtest.TimedBackup(t, func() error { return f.NBackup(ctx, bk) }, db, "INSERT INTO t VALUES (5000, 'late')")
	to := filepath.Join(f.DataDir, "restored.fdb")
	t0 := time.Now()
	if err := f.NRestore(ctx, bk, to); err != nil {
		t.Fatal(err)
	}
	restored := time.Since(t0)
	backendtest.Rows(t, backendtest.OpenSQL(t, "firebirdsql", f.DSNFor(to)), "t", 5000, "restored")
	if out, err := f.ServiceOn(ctx, to, "action_validate"); err != nil {
		t.Errorf("validation of the restored database: %v: %s", err, out)
	}
	t.Logf("backup in %v, restore in %v", took, restored)
}
