package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportRules fails when any package of dbgauge breaks an import rule.
func TestImportRules(t *testing.T) {
	vs, err := Check("../..", "github.com/dbgauge/dbgauge")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Error(v)
	}
}

// TestCatchesViolations proves the check can fail: a workload importing a
// backend, and a backend importing a workload.
func TestCatchesViolations(t *testing.T) {
	vs, err := Check("testdata/bad", "example.com/bad")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 {
		t.Fatalf("want 2 violations, got %d: %v", len(vs), vs)
	}
	want := []string{"a backend never imports a workload", "a workload never imports a backend package"}
	for i, v := range vs {
		if !strings.HasPrefix(v.Rule, want[i]) {
			t.Errorf("violation %d = %q, want rule %q", i, v, want[i])
		}
	}
}

// TestRuleCases: rules 1, 2 and 5, case by case; a command's tests may
// import what the command may not.
func TestRuleCases(t *testing.T) {
	m := "m"
	cases := []struct {
		from, to string
		test     bool
		bad      bool
	}{
		{"m/internal/workload/nms", "m/internal/workload", false, false},
		{"m/internal/workload/nms", "m/internal/backend", false, false},
		{"m/internal/workload/nms", "m/internal/backend/sqlite", false, true},
		{"m/internal/workload/nms", "m/internal/workload/insert", false, true},
		{"m/internal/backend/sqlite", "m/internal/backend/backendtest", true, false},
		{"m/internal/backend/sqlite", "m/internal/backend/backendtest", false, true},
		{"m/internal/backend/sqlite", "m/internal/workload", false, true},
		{"m/internal/catalog", "m/internal/backend/sqlite", false, false},
		{"m/cmd/dbgauge", "m/internal/cli", false, false},
		{"m/cmd/dbgauge", "os/signal", false, false},
		{"m/cmd/dbgauge", "m/internal/powerloss", false, true},
		{"m/cmd/dbgauge", "m/internal/child", false, true},
		{"m/cmd/dbgauge", "m/internal/result", true, false},
		{"m/internal/session", "m/internal/testenv", true, false},
		{"m/internal/session", "m/internal/testenv", false, true},
	}
	for _, c := range cases {
		if got := broken(m, c.from, c.to, c.test) != ""; got != c.bad {
			t.Errorf("%s → %s (test %v): broken=%v, want %v", c.from, c.to, c.test, got, c.bad)
		}
	}
}

// TestServerRule: the server package may import neither a driver nor an
// engine, in its tests either; others may.
func TestServerRule(t *testing.T) {
	m := "m"
	cases := []struct {
		from, to string
		bad      bool
	}{
		{"m/internal/server", "github.com/jackc/pgx/v5/pgconn", true},
		{"m/internal/server", "database/sql", true},
		{"m/internal/server", "github.com/go-sql-driver/mysql", true},
		{"m/internal/server", "m/internal/backend/postgres", true},
		{"m/internal/server", "m/internal/placement", false},
		{"m/internal/backend/relstorage", "m/internal/backend/postgres", true}, // an engine reaches another's server through the kit
		{"m/internal/knob", "database/sql", false},
		{"m/internal/backend/postgres", "github.com/jackc/pgx/v5/pgconn", false},
	}
	for _, c := range cases {
		for _, test := range []bool{false, true} {
			if got := broken(m, c.from, c.to, test) != ""; got != c.bad {
				t.Errorf("%s → %s (test file: %v): broken = %v, want %v", c.from, c.to, test, got, c.bad)
			}
		}
	}
}

// TestNoEnvCommandLine fails when a Go file names an environment variable of
// dbgauge's own: children are told what to do by their spec (internal/child).
func TestNoEnvCommandLine(t *testing.T) {
	lines, err := EnvNames("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		t.Errorf("%s: an environment variable of dbgauge's; pass it in a child.Spec, or as a flag", l)
	}
}

// TestEnvNamesCatches proves that EnvNames can fail, on a file it is given.
func TestEnvNamesCatches(t *testing.T) {
	root := t.TempDir()
	src := "package x\n\nconst cell = \"" + envPrefix + "MATRIX_CELL\"\n"
	if err := os.WriteFile(filepath.Join(root, "x_test.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := EnvNames(root)
	if err != nil || len(lines) != 1 || !strings.HasSuffix(lines[0], "x_test.go:3") {
		t.Fatalf("EnvNames = %v, %v; want x_test.go:3", lines, err)
	}
}

// TestNoTricks fails when dbgauge's code (third_party not) reads another
// module's private fields or binds to the runtime's private symbols (rule 9).
func TestNoTricks(t *testing.T) {
	lines, err := Tricks("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		t.Errorf("%s: beneath another module's public API; fix it there (third_party/, as firebirdsql) or design around it", l)
	}
}

// TestTricksCatches proves that Tricks can fail, and passes over
// third_party.
func TestTricksCatches(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"x_test.go":          "package x\n\nvar f = v.FieldByName(\"set\").Unsafe" + "Addr()\n",
		"third_party/y/y.go": "package y\n\n//go:" + "linkname now runtime.nanotime\n",
	}
	plant(t, root, files)
	lines, err := Tricks(root)
	if err != nil || len(lines) != 1 || !strings.Contains(lines[0], "x_test.go:3") {
		t.Fatalf("Tricks = %v, %v; want one line, x_test.go:3", lines, err)
	}
}

// TestEnginesUseTheKit fails when an engine's code starts a server, makes
// its folders or picks its account but through the kit's Instance (rule 8).
func TestEnginesUseTheKit(t *testing.T) {
	calls, err := KitBypasses("../backend")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		t.Errorf("%s: start a managed server through the kit (server.New, Reopened or Beside, then Launch)", c)
	}
}

// TestKitBypassesCatches proves that KitBypasses can fail, on a file it is
// given, and passes over tests and other packages' Start.
func TestKitBypassesCatches(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a.go":      "package x\n\nimport srv \"m/internal/server\"\n\nfunc f() { srv.StartEnv(nil) }\n",
		"b_test.go": "package x\n\nimport \"m/internal/server\"\n\nfunc g() { server.Start(nil) }\n",
		"c.go":      "package x\n\nimport \"os/exec\"\n\nfunc h() { exec.Command(\"x\").Start() }\n",
	}
	plant(t, root, files)
	calls, err := KitBypasses(root)
	if err != nil || len(calls) != 1 || !strings.HasSuffix(calls[0], "a.go:5: srv.StartEnv") {
		t.Fatalf("KitBypasses = %v, %v; want a.go:5: srv.StartEnv", calls, err)
	}
}

// plant writes each of files (a path under root: its source) for a rule's
// test to find.
func plant(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
