package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// pgbenchTypes binds a variable of every type as a parameter (an integer,
// a boolean, doubles, NULL; text from \gset) and prints each with debug(),
// in \set, \if and \elif; the second script of the mix, after one of
// weight 0, so that debug() says script=1.
const pgbenchTypes = `-- every type of variable as a parameter, and debug() of each
\set n :n + 1
\set id debug(:client_id * 100 + :n)
\set b debug(:n % 2 = 0)
\set d debug(:n / 3.0)
\set big debug(:n * 1e20)
\set z debug(NULL)
\if debug(:b)
\set d debug(:d * -2)
\elif debug(:n = 3)
\set d debug(pi())
\else
\set d debug(:d + 0.1)
\endif
INSERT INTO typed (id, b, d, z, bt, dt, it, zt, dn, big) VALUES (:id, :b, :d, :z, :b, :d, :id, :z, :d, :big);
SELECT :b AS gb, :d AS gd, :id AS gi \gset
\set gb debug(:gb)
\set gd debug(:gd)
\set gi debug(:gi)
`

// TestScriptAgainstPgbench runs one pgbench script through real pgbench
// and through dbgauge run script (--prepare once and each: the backend's
// two paths) on one managed PostgreSQL: the rows written are the same,
// column by column as PostgreSQL prints them, and so is everything on
// stderr, which is debug()'s lines alone (dbgauge runs with --quiet).
// pgbench runs in its default query mode (simple), whose NULL is SQL's.
func TestScriptAgainstPgbench(t *testing.T) {
	needPostgres(t)
	bin, err := postgres.FindServer("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"pgbench", "psql"} {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			testenv.Skip(t, fmt.Sprintf("%s is not beside the server in %s: apt-get install postgresql-client", tool, bin))
		}
	}
	p, err := postgres.Start(context.Background(), postgres.ServerConfig{Config: server.Config{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.StopClean()
	dsn := p.DSN(false)
	psql := func(sql string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(bin, "psql"), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-P", "null=(null)", "-d", dsn, "-c", sql).CombinedOutput()
		if err != nil {
			t.Fatalf("psql %s: %v\n%s", sql, err, out)
		}
		return string(out)
	}
	dir := t.TempDir()
	idle, types := filepath.Join(dir, "idle.sql"), filepath.Join(dir, "types.sql")
	if err := os.WriteFile(idle, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(types, []byte(pgbenchTypes), 0o644); err != nil {
		t.Fatal(err)
	}
	psql(`CREATE TABLE typed (id bigint PRIMARY KEY, b boolean, d double precision, z bigint,
		bt text, dt text, it text, zt text, dn numeric, big double precision)`)

	cmd := exec.Command(filepath.Join(bin, "pgbench"), "-n", "-t", "4", "-c", "1", "-D", "n=0", "-f", idle+"@0", "-f", types+"@1", dsn)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("pgbench: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	want := stderr.String()
	rows := psql("SELECT * FROM typed ORDER BY id")
	// What pgbench printed and wrote is what the comparison covers: 4
	// transactions of 10 or 11 debug() lines (by their branch), every
	// type among them, every branch taken, and 4 rows.
	if n := strings.Count(want, "\n"); n != 42 || strings.Count(rows, "\n") != 4 {
		t.Fatalf("pgbench printed %d lines and wrote %d rows, want 42 and 4:\n%s\n%s", n, strings.Count(rows, "\n"), want, rows)
	}
	for _, s := range []string{"): int ", "): double ", "): boolean true", "): boolean false", "): null",
		"debug(script=1,command=8): ", "debug(script=1,command=10): ", "debug(script=1,command=12): "} {
		if !strings.Contains(want, s) {
			t.Fatalf("pgbench's debug() lines have no %q:\n%s", s, want)
		}
	}
	psql("ALTER TABLE typed RENAME TO typed_pgbench; CREATE TABLE typed (LIKE typed_pgbench INCLUDING ALL)")

	for _, prepare := range []string{"once", "each"} {
		t.Run("prepare="+prepare, func(t *testing.T) {
			psql("TRUNCATE typed")
			code, out, errs := runCLI(t, nil, "run", "script", "-q", "-f", idle+"@0", "-f", types+"@1", "-D", "n=0", "--db", dsn,
				"--prepare", prepare, "--units", "4", "--clients", "1", "--ceiling", "off", "--results", t.TempDir())
			if code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errs)
			}
			if errs != want {
				t.Errorf("stderr differs from pgbench's:\n%s\npgbench's:\n%s", errs, want)
			}
			if got := psql("SELECT * FROM typed ORDER BY id"); got != rows {
				t.Errorf("rows differ from pgbench's:\n%s\npgbench's:\n%s", got, rows)
			}
		})
	}
}
