package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckExitCodes: dbgauge check on a database as it is exits 0 when its
// checks hold, 1 when one fails (the last line names it with what it found),
// and 2 for a workload file with no check to run (it ran none and said
// nothing of it, exit 0).
func TestCheckExitCodes(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "c.db")
	if code, out, errs := runCLI(t, nil, "load", filepath.Join("testdata", "checked.toml"), "--db", db); code != ExitOK {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, errs)
	}
	deposits := "sqlite:" + filepath.Join(t.TempDir(), "d.db")
	if code, out, errs := runCLI(t, nil, "load", filepath.Join("..", "..", "examples", "deposits.toml"), "--db", deposits); code != ExitOK {
		t.Fatalf("load: exit %d\n%s\n%s", code, out, errs)
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		last string
	}{
		{"hold", []string{filepath.Join("..", "..", "examples", "deposits.toml"), "--db", deposits}, ExitOK, "exit 0: all 2 checks hold"},
		{"fail", []string{filepath.Join("testdata", "checked.toml"), "--db", db}, ExitUnmet, "exit 1: 1 of 2 checks failed: ten_rows (values 5, 10)"},
	} {
		code, out, errs := runCLI(t, nil, append([]string{"check"}, c.args...)...)
		if code != c.code || lastLine(out) != c.last || strings.TrimSpace(errs) != "" {
			t.Errorf("%s: exit %d, want %d; last line %q, want %q; stderr %q", c.name, code, c.code, lastLine(out), c.last, errs)
		}
	}
	code, out, errs := runCLI(t, nil, "check", filepath.Join("testdata", "undone.toml"), "--db", db)
	if code != ExitUsage || out != "" || !strings.Contains(errs, "has no [[check]] to run") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("no checks: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
