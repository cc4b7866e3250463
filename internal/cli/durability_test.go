package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

func needMariaDB(t *testing.T) {
	t.Helper()
	if _, _, err := mariadb.FindServer(); err != nil {
		testenv.Need(t, err) // .ci/run installs MariaDB
	}
}

// TestContradictingSetIsBadInput: a --set that contradicts --durability is
// bad input: exit 2, one line saying what to do, nothing run, no result
// folder left.
func TestContradictingSetIsBadInput(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		says string
	}{
		"postgres": {[]string{"--db", "postgres:managed", "--durability", "sync", "--set", "synchronous_commit=off"},
			"--set synchronous_commit=off contradicts --durability sync, which needs on or local or remote_write or remote_apply: drop the --set, or use --durability lazy"},
		"sqlite":  {[]string{"--set", "synchronous=OFF"}, "--set synchronous=OFF contradicts --durability sync, which needs FULL or EXTRA: drop the --set, or use --durability off"},
		"mariadb": {[]string{"--db", "mariadb:managed", "--durability", "lazy", "--set", "innodb_flush_log_at_trx_commit=1"}, "use --durability sync"},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "postgres" {
				needPostgres(t)
			}
			if name == "mariadb" {
				needMariaDB(t)
			}
			dir := t.TempDir()
			code, out, errOut := runCLI(t, nil, append([]string{"run", "insert", "--units", "10", "--results", dir}, c.args...)...)
			assertOneLine(t, code, errOut, ExitUsage, "")
			if !strings.Contains(errOut, c.says) || out != "" {
				t.Fatalf("stdout %q, stderr %q: want it to say %q", out, errOut, c.says)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatal("bad input left a result folder")
			}
		})
	}
}
