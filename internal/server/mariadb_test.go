package server

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"
)

func TestMariaDB(t *testing.T) {
	if _, _, err := FindMariaDB(); err != nil {
		t.Skip(err) // .ci/run installs mariadb-server: in CI this never skips
	}
	m, err := StartMariaDB(context.Background(), MariaDBConfig{Dir: t.TempDir(), Settings: map[string]string{"innodb_flush_log_at_trx_commit": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.StopClean()
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
	t.Logf("started in %v as %s: %s", m.Startup, m.Account.Name, m.Note)
}

// TestMariaDBCrashRestart: after a kill -9 and a restart, the server answers
// again and keeps what was committed before.
func TestMariaDBCrashRestart(t *testing.T) {
	if _, _, err := FindMariaDB(); err != nil {
		t.Skip(err)
	}
	m, err := StartMariaDB(context.Background(), MariaDBConfig{Dir: t.TempDir(), Settings: map[string]string{"innodb_flush_log_at_trx_commit": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.StopClean()
	db, err := sql.Open("mysql", m.DSN(false))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE TABLE t (k INT PRIMARY KEY, v VARCHAR(100))",
		"INSERT INTO t SELECT seq, REPEAT('x', 100) FROM seq_1_to_20000"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
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
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 20000 {
		t.Fatalf("after the restart: %d rows (%v), want 20000", n, err)
	}
	t.Logf("recovery note: %q", note)
}
