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
