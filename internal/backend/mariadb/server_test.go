package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// needServer skips t (fails it in CI) where no MariaDB server is installed.
func needServer(t *testing.T) {
	t.Helper()
	_, _, err := FindServer()
	testenv.Need(t, err) // .ci/run installs mariadb-server: in CI this never skips
}

func TestMariaDB(t *testing.T) {
	needServer(t)
	// Serving is awaited with root's connection before dbgauge's user is
	// made.
	users := -1
	serving := func(ctx context.Context, _ *Server, root *sql.DB) error {
		return root.QueryRowContext(ctx, "SELECT COUNT(*) FROM mysql.user WHERE user = 'dbgauge'").Scan(&users)
	}
	m, err := Start(context.Background(), ServerConfig{Config: server.Config{Dir: t.TempDir()}, Settings: map[string]string{"innodb_flush_log_at_trx_commit": "2"},
		Serving: serving})
	if err != nil {
		t.Fatal(err)
	}
	defer m.StopClean()
	if users != 0 {
		t.Errorf("Serving saw %d dbgauge users (-1: it was not called), want 0: it runs before the user is made", users)
	}
	db, err := sql.Open("mysql", m.DSN(false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name, v string
	if err := db.QueryRow("SHOW GLOBAL VARIABLES LIKE 'innodb_flush_log_at_trx_commit'").Scan(&name, &v); err != nil || v != "2" {
		t.Fatalf("innodb_flush_log_at_trx_commit = %q (%v)", v, err)
	}
	if _, err := sql.Open("mysql", m.dsn("", false)); err != nil {
		t.Fatal(err)
	}
	nopw, _ := sql.Open("mysql", m.dsn("", false))
	defer nopw.Close()
	if err := nopw.Ping(); err == nil || !strings.Contains(err.Error(), "1045") {
		t.Errorf("root without the password: %v, want access denied", err)
	}
	// The URL every other tool writes reaches the same server, its password
	// percent-encoded as URLs have it, and the preflight finds it there.
	cfg, err := mysql.ParseDSN(m.DSN(false))
	if err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"mysql", "mariadb"} {
		u := (&url.URL{Scheme: scheme, User: url.UserPassword(cfg.User, cfg.Passwd), Host: cfg.Addr, Path: "/" + cfg.DBName, RawQuery: "timeout=5s"}).String()
		if err := preflight(u); err != nil {
			t.Errorf("preflight %s: %v", scheme, err)
		}
		got, err := driverDSN(u)
		if err != nil {
			t.Fatal(err)
		}
		udb, err := sql.Open("mysql", got.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		if err := udb.Ping(); err != nil || got.Timeout != 5*time.Second {
			t.Errorf("--db %s…: %v (timeout %v)", scheme, err, got.Timeout)
		}
		udb.Close()
	}
	t.Logf("started in %v as %s: %s", m.Startup, m.Account.Name, m.Note)
}

// TestMariaDBNotServing: a server whose Serving gives up is stopped, and
// Start returns Serving's error.
func TestMariaDBNotServing(t *testing.T) {
	needServer(t)
	var started *Server
	gaveUp := errors.New("not ready")
	_, err := Start(context.Background(), ServerConfig{Config: server.Config{Dir: t.TempDir()},
		Serving: func(_ context.Context, m *Server, _ *sql.DB) error { started = m; return gaveUp }})
	if !errors.Is(err, gaveUp) || started == nil {
		t.Fatalf("Start: %v, want Serving's error", err)
	}
	select {
	case <-started.Done():
	default:
		t.Error("the server still runs after Start gave up")
	}
}

// startFilled starts a server in dir that flushes its log at every commit,
// with a table t of 20,000 rows; the test's cleanup stops it.
func startFilled(t *testing.T, dir string) (*Server, *sql.DB) {
	t.Helper()
	m, err := Start(context.Background(), ServerConfig{Config: server.Config{Dir: dir}, Settings: map[string]string{"innodb_flush_log_at_trx_commit": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.StopClean() })
	return m, backendtest.OpenSQL(t, "mysql", m.DSN(false), "CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(100))",
		"INSERT INTO t SELECT seq, REPEAT('x', 100) FROM seq_1_to_20000")
}

// TestMariaDBCrashRestart: after a kill -9 and a restart, the server answers
// again and keeps what was committed before.
func TestMariaDBCrashRestart(t *testing.T) {
	needServer(t)
	m, db := startFilled(t, t.TempDir())
	pid := m.Pid()
	note, err := m.CrashRestart(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if m.Pid() == pid {
		t.Errorf("the same process (%d) after the restart", pid)
	}
	if !strings.HasPrefix(note, "InnoDB replayed") {
		t.Errorf("recovery note %q, want InnoDB's redo", note)
	}
	// The pool's idle connection died with the server: the driver reports
	// it as bad and database/sql dials again.
	backendtest.Rows(t, db, "t", 20000, "after the restart")
	t.Logf("recovery note: %q", note)
}

// TestMariaDBBackup: mariabackup of a running server, restored into a new
// server, holds the rows committed before it.
func TestMariaDBBackup(t *testing.T) {
	needServer(t)
	if _, err := FindMariabackup(); err != nil {
		testenv.Need(t, err) // .ci/run installs mariadb-backup: in CI this never skips
	}
	ctx := context.Background()
	dir := t.TempDir()
	m, db := startFilled(t, dir)
	bk := filepath.Join(filepath.Dir(m.DataDir), "backup")
	took := backendtest.TimedBackup(t, func() error { return m.Backup(ctx, bk) }, db, "INSERT INTO t VALUES (20001, 'late')")
	r, err := m.Restore(ctx, RestoreConfig{Backup: bk, Name: "backup", Log: filepath.Join(dir, "restore.log")})
	if err != nil {
		t.Fatal(err)
	}
	defer r.StopClean()
	if r.Port == m.Port || r.SocketDir == m.SocketDir {
		t.Errorf("the restored server shares port %d or socket %s", r.Port, r.SocketDir)
	}
	backendtest.Rows(t, backendtest.OpenSQL(t, "mysql", r.DSN(false)), "t", 20000, "restored")
	if _, err := r.StopClean(); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(r.DataDir); !os.IsNotExist(err) {
		t.Errorf("the restored datadir is still there: %v", err)
	}
	t.Logf("backup and prepare in %v; restored server up in %v", took, r.Startup)
}

func TestFlushNote(t *testing.T) {
	if n := flushNote("2026-11-26 17:50:58 0 [Note] InnoDB: Buffered log writes (block size=512 bytes)\n"); !strings.Contains(n, "O_DIRECT") {
		t.Fatalf("buffered log writes not noted: %q", n)
	}
	if n := flushNote("2026-11-26 17:50:58 0 [Note] InnoDB: Completed initialization of buffer pool\n"); n != "" {
		t.Fatalf("a note without cause: %q", n)
	}
}
