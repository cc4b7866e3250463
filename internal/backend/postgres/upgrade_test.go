package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestUpgrade: a 15 cluster upgraded to 18 by each method serves 18 with
// every row the old one held, each step timed, the window's steps marked;
// an upgrade the binaries cannot make is refused before anything starts.
func TestUpgrade(t *testing.T) {
	from, err := FindVersion(15)
	testenv.Need(t, err)
	to, err := FindVersion(18)
	testenv.Need(t, err)
	if err := CheckUpgrade(to, from, UpgradeLink); err == nil || !strings.Contains(err.Error(), "not newer") {
		t.Errorf("18 to 15: %v", err)
	}
	if err := CheckUpgrade(from, to, "rsync"); err == nil {
		t.Error("rsync is no method, and was taken")
	}
	// zonky's 13 has no pg_controldata, which pg_upgrade reads the old
	// cluster with; a dump needs nothing of it but its server.
	zonky, err := FindVersion(13)
	testenv.Need(t, err)
	if err := CheckUpgrade(zonky, to, UpgradeLink); err == nil || !strings.Contains(err.Error(), "pg_controldata") {
		t.Errorf("13 to 18 by link: %v", err)
	}
	if err := CheckUpgrade(zonky, to, UpgradeDump); err != nil {
		t.Errorf("13 to 18 by dump: %v", err)
	}
	for _, method := range []string{UpgradeLink, UpgradeCopy, UpgradeDump} {
		t.Run(method, func(t *testing.T) {
			if err := CheckUpgrade(from, to, method); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			old, err := Start(ctx, ServerConfig{Config: server.Config{Dir: t.TempDir()}, Bin: from})
			if err != nil {
				t.Fatal(err)
			}
			defer old.StopClean()
			want := sumOf(t, old.DSN(false), "CREATE TABLE t (id int PRIMARY KEY, v bigint); INSERT INTO t SELECT g, g * 7 FROM generate_series(1, 5000) g")
			n, steps, err := old.Upgrade(ctx, to, method, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer n.StopClean()
			if got := sumOf(t, n.DSN(false), ""); got != want {
				t.Errorf("after the upgrade: %q, before: %q", got, want)
			}
			if v := versionOn(t, n.DSN(false)); !strings.HasPrefix(v, "18.") {
				t.Errorf("the upgraded server reports %q", v)
			}
			window := 0
			for _, s := range steps {
				if s.Window {
					window++
				}
				if s.Seconds <= 0 {
					t.Errorf("step %s took %v s", s.Name, s.Seconds)
				}
			}
			if len(steps) < 4 || window < 2 || steps[0].Name != "initdb" || steps[0].Window {
				t.Errorf("steps %+v", steps)
			}
			t.Logf("%s: %+v", method, steps)
		})
	}
}

// sumOf runs setup (when given), then says what table t holds.
func sumOf(t *testing.T, dsn, setup string) string {
	t.Helper()
	var n, sum int64
	queryRow(t, dsn, setup, "SELECT count(*), sum(v) FROM t", &n, &sum)
	return fmt.Sprintf("%d rows, sum %d", n, sum)
}

// versionOn is the server_version a server reports.
func versionOn(t *testing.T, dsn string) string {
	t.Helper()
	var v string
	queryRow(t, dsn, "", "SHOW server_version", &v)
	return v
}

// queryRow connects to dsn, runs setup (when given) and reads query's row
// into dest; the connection is closed before it returns.
func queryRow(t *testing.T, dsn, setup, query string, dest ...any) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if setup != "" {
		if _, err := c.Exec(ctx, setup); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.QueryRow(ctx, query).Scan(dest...); err != nil {
		t.Fatal(err)
	}
}
