package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// needVersions skips t (fails it in CI, where .ci/run runs
// scripts/install-pg-versions.sh) unless every major is installed.
func needVersions(t *testing.T, majors ...int) {
	t.Helper()
	for _, n := range majors {
		if _, err := postgres.FindVersion(n); err != nil {
			testenv.Need(t, err)
		}
	}
}

// TestPostgresVersionRefusals: a version that is not installed, a malformed
// one, two versions asked at once and a feature the version's binaries
// lack (zonky's 13 has no pg_basebackup) each exit 2 with one line, before
// any result folder is made.
func TestPostgresVersionRefusals(t *testing.T) {
	needVersions(t, 13)
	cases := map[string]struct {
		args []string
		want string
	}{
		"missing version":     {[]string{"--db", "postgres:managed@12"}, postgres.InstallScript},
		"missing by knob":     {[]string{"--db", "postgres:managed", "--pg-version", "12"}, postgres.InstallScript},
		"not a version":       {[]string{"--db", "postgres:managed@x"}, "no PostgreSQL major version"},
		"two versions":        {[]string{"--db", "postgres:managed@13", "--pg-version", "15"}, "two versions"},
		"backup without tool": {[]string{"--db", "postgres:managed@13", "--backup", "at=1s"}, "--backup on postgres:managed@13: it needs pg_basebackup"},
		"replica without tool": {[]string{"--db", "postgres:managed@13", "--topology", "1"},
			"--topology 1 on postgres:managed@13: it needs pg_basebackup"},
		"version of a DSN": {[]string{"--db", "postgres://u:p@127.0.0.1:1/db", "--pg-version", "15"}, "--pg-version picks"},
	}
	for name, c := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runCLI(t, nil, append([]string{"run", "tpcb", "--duration", "1s", "--results", dir}, c.args...)...)
			assertOneLine(t, code, errOut, ExitUsage, "")
			if !strings.Contains(errOut, c.want) || out != "" {
				t.Fatalf("stderr %q lacks %q (stdout %q)", errOut, c.want, out)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatal("a refused version left a result folder")
			}
		})
	}
}
