package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/result"
)

// TestMalformedScripts: each malformed script or workload file is refused
// before anything starts, in one line that says file:line:column, what is
// wrong and what to write instead, with exit 2 and nothing written.
func TestMalformedScripts(t *testing.T) {
	good := "\\set aid random(1, 10)\nSELECT :aid;\n"
	cases := []struct {
		name, file, text string
		at               string // the file:line:column the error must name
		extra            []string
	}{
		{"bad expression", "a.sql", "\\set x 1 +* 2\nSELECT :x;\n", "a.sql:1:11", nil},
		{"unknown function", "a.sql", "\\set x nosuch(1)\nSELECT :x;\n", "a.sql:1:8", nil},
		{"unclosed if", "a.sql", "SELECT 1;\n\\if 1 = 1\nSELECT 2;\n", "a.sql:2:1", nil},
		{"unknown variable", "a.sql", "\\set x 1\nSELECT :x, :y;\n", "a.sql:2:1", nil},
		{"else without if", "a.sql", "SELECT 1;\n\\else\n", "a.sql:2:1", nil},
		{"unknown meta-command", "a.sql", "\\gsett\n", "a.sql:1:1", nil},
		{"no semicolon", "a.sql", "SELECT 1\n", "a.sql:1:1", nil},
		{"begin with options", "a.sql", "BEGIN ISOLATION LEVEL SERIALIZABLE;\nSELECT 1;\nCOMMIT;\n", "a.sql:1:1", nil},
		{"begin never ended", "a.sql", "SELECT 1;\n  BEGIN;\nSELECT 2;\n", "a.sql:2:3", nil},
		{"bad weight", "a.sql", good, "a.sql@x", []string{"-f", "FILE@x"}},
		{"unknown key in a workload file", "w.toml", "name = \"w\"\nschemas = 1\n[[transaction]]\nname = \"t\"\nscript = \"SELECT 1;\"\n", "w.toml:2:1", nil},
		{"workload file without transactions", "w.toml", "name = \"w\"\n", "w.toml:1:1", nil},
		{"error in an inline script", "w.toml", "name = \"w\"\n[[transaction]]\nname = \"t\"\nscript = '''\nSELECT 1;\n\\set x pow(2)\nSELECT :x;\n'''\n", "w.toml:6:8", nil},
		{"undeclared variable in a table", "w.toml", "name = \"w\"\n[[table]]\nname = \"t\"\nrows = \":n\"\ncolumns = [\"id = :row\"]\n[[transaction]]\nname = \"t\"\nscript = \"SELECT 1;\"\n", "w.toml:3:8", nil},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			results := filepath.Join(dir, "results")
			args := []string{"run", "script", "-f", path, "--db", "postgres:managed", "--results", results}
			if strings.HasSuffix(c.file, ".toml") {
				args = []string{"run", path, "--db", "postgres:managed", "--results", results}
			}
			for i, a := range c.extra {
				if i > 0 && c.extra[i-1] == "-f" {
					args[3] = strings.Replace(a, "FILE", path, 1)
				}
			}
			code, out, errOut := runCLI(t, nil, args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, ExitUsage, errOut)
			}
			line := strings.TrimSpace(errOut)
			if strings.Contains(line, "\n") || !strings.HasPrefix(line, "dbgauge: ") {
				t.Fatalf("want one line on stderr, got %q", errOut)
			}
			want := filepath.Join(dir, c.at)
			if !strings.Contains(line, want) {
				t.Fatalf("the error does not say %s: %q", want, line)
			}
			// what is wrong: what to write instead
			if !regexp.MustCompile(`: .+: .+`).MatchString(strings.TrimPrefix(line, "dbgauge: "+want)) {
				t.Fatalf("the error has no hint: %q", line)
			}
			if out != "" {
				t.Fatalf("bad input printed on stdout: %q", out)
			}
			if _, err := os.Stat(results); err == nil {
				t.Fatal("bad input made a results folder")
			}
		})
	}
}

// TestWorkloadFileMatrix runs one workload file (examples/deposits.toml:
// its schema, its generated rows, two scripts, two checks) in a matrix whose
// axis is a -D list: every cell completes, its data made with its own -D
// value, and its check passes. (Every engine and commit mode: session's
// TestEveryWorkloadOnEveryBackend.)
func TestWorkloadFileMatrix(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join("..", "..", "examples", "deposits.toml")
	code, out, errs := runCLI(t, nil, "run", file, "--db", "sqlite",
		"-D", "accounts=100,1000", "--clients", "2", "--duration", "1s", "--warmup", "0s", "--ceiling", "off", "--results", root)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	dir := matrixDir(t, root)
	m, err := matrix.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 2 || m.Status != result.Completed || len(m.Axes) != 1 || m.Axes[0].Knob != "accounts" || m.Axes[0].Flag != "define" {
		t.Fatalf("index: %d cells, status %s, axes %+v", len(m.Cells), m.Status, m.Axes)
	}
	engines := map[string]bool{}
	for _, c := range m.Cells {
		r, err := result.Load(filepath.Join(dir, c.Dir))
		if err != nil {
			t.Fatal(err)
		}
		engines[r.Engine.Name] = true
		if r.Status != result.Completed || r.Summary.OK == 0 || len(r.Checks) != 2 || !r.Checks[0].OK || !r.Checks[1].OK {
			t.Errorf("cell %s on %s: status %s, %d ok, checks %+v", c.ID, r.Engine.Name, r.Status, r.Summary.OK, r.Checks)
		}
		if got := r.Dataset.Facts["account"]; got != c.Values["accounts"]+" rows" {
			t.Errorf("cell %s: account has %s, -D accounts=%s", c.ID, got, c.Values["accounts"])
		}
	}
	if len(engines) != 1 {
		t.Errorf("engines %v", engines)
	}
}
