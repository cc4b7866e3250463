package cli

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/server"
)

// globals reads SHOW GLOBAL VARIABLES.
func globals(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	rows, err := db.Query("SHOW GLOBAL VARIABLES")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		m[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// sameGlobals fails unless SHOW GLOBAL VARIABLES reads as before, naming
// every variable that differs.
func sameGlobals(t *testing.T, before, after map[string]string) {
	t.Helper()
	var diff []string
	for k, v := range before {
		if after[k] != v {
			diff = append(diff, k+": "+v+" → "+after[k])
		}
	}
	for k, v := range after {
		if _, ok := before[k]; !ok {
			diff = append(diff, k+": (none) → "+v)
		}
	}
	slices.Sort(diff)
	if len(diff) > 0 {
		t.Fatalf("SHOW GLOBAL VARIABLES differs after the run:\n  %s", strings.Join(diff, "\n  "))
	}
}

// same reports whether two values of a variable are the same: as text, or
// as numbers (@@GLOBAL says 3.5 where SHOW VARIABLES says 3.500000).
func same(a, b string) bool {
	x, errx := strconv.ParseFloat(a, 64)
	y, erry := strconv.ParseFloat(b, 64)
	return a == b || errx == nil && erry == nil && x == y
}

// TestMariaDBServerLeftAsItWas: on a server of the user's (a MariaDB
// started for the test, reached by its DSN), a run sets the durability's
// variables and the --set ones with SET GLOBAL, and sets every one back
// when it ends: SHOW GLOBAL VARIABLES reads as it did before, after a run
// that ends as planned and after one stopped by SIGTERM in the middle; the
// result lists each variable changed, what it was, what it was set to and
// that it was set back.
func TestMariaDBServerLeftAsItWas(t *testing.T) {
	needMariaDB(t)
	srv, err := mariadb.Start(context.Background(), mariadb.ServerConfig{Config: server.Config{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.StopClean()
	admin, err := sql.Open("mysql", srv.DSN(false))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	before := globals(t, admin)
	if before["innodb_flush_log_at_trx_commit"] != "1" || before["innodb_lock_wait_timeout"] == "7" {
		t.Fatalf("the server does not start as the test needs: %s, %s", before["innodb_flush_log_at_trx_commit"], before["innodb_lock_wait_timeout"])
	}
	// --durability off changes innodb_flush_log_at_trx_commit; the --set
	// values are an integer, a number and a name, each set back as its type.
	args := func(dir string, more ...string) []string {
		return append([]string{"run", "insert", "--db", "mysql://" + srv.DSN(false), "--durability", "off", "--results", dir,
			"--set", "innodb_lock_wait_timeout=7", "--set", "long_query_time=3.5", "--set", "lc_time_names=fr_FR"}, more...)
	}
	changed := func(t *testing.T, dir string) {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(dir, "*", "result.json"))
		if len(files) != 1 {
			t.Fatalf("%d results in %s", len(files), dir)
		}
		res, err := result.Load(filepath.Dir(files[0]))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"innodb_flush_log_at_trx_commit": "0", "innodb_lock_wait_timeout": "7", "long_query_time": "3.5", "lc_time_names": "fr_FR"}
		for _, c := range res.Changed {
			if w, ok := want[c.Key]; ok && (!same(c.Set, w) || !same(c.Was, before[c.Key]) || !c.Restored || c.Err != "") {
				t.Errorf("the result says %s: %+v; want %s → %s, set back", c.Key, c, before[c.Key], w)
			}
			delete(want, c.Key)
		}
		if len(want) > 0 {
			t.Errorf("the result's changed settings %+v lack %v", res.Changed, want)
		}
	}

	t.Run("normal_end", func(t *testing.T) {
		dir := t.TempDir()
		code, _, errOut := runCLI(t, nil, args(dir, "--units", "300")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		sameGlobals(t, before, globals(t, admin))
		changed(t, dir)
	})

	t.Run("sigterm", func(t *testing.T) {
		dir := t.TempDir()
		sig := make(chan os.Signal, 1)
		go func() {
			// SIGTERM once the clients commit, the variables changed.
			deadline := time.Now().Add(60 * time.Second)
			for time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
				var v string
				if admin.QueryRow("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit").Scan(&v) != nil || v != "0" {
					continue
				}
				if files, _ := filepath.Glob(filepath.Join(dir, "*", "result.json")); len(files) == 1 {
					if res, err := result.Load(filepath.Dir(files[0])); err == nil && len(res.Series) >= 1 {
						sig <- syscall.SIGTERM
						return
					}
				}
			}
			t.Error("the run never got going: no SIGTERM sent")
			sig <- syscall.SIGTERM
		}()
		code, _, errOut := runCLI(t, sig, args(dir, "--duration", "60s", "--warmup", "0s")...)
		if code != ExitInterrupted {
			t.Fatalf("exit %d, want %d: %s", code, ExitInterrupted, errOut)
		}
		sameGlobals(t, before, globals(t, admin))
		changed(t, dir)
	})
}
