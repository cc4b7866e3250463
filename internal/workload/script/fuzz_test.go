package script

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are the table's expressions and some malformed ones.
func fuzzSeeds(f *testing.F) {
	for _, c := range pgbenchCases {
		f.Add(c.expr)
	}
	for _, s := range []string{"", "(", ")", "1 +", "case", "case when", "not", "- 9223372036854775808",
		"::x", ":", "1e", "1e+", ".", "..5", "1.2.3", "\\\n1", "hash(", "permute(1, 2, 3, 4)", "\xff", "~~~~1",
		"random_zipfian(1, 1000000000, 1.5)", "random_exponential(1, 9223372036854775806, 1e-300)",
		"random_gaussian(-9223372036854775807, 9223372036854775806, 1e308)", "1 << -1", "abs(-9223372036854775808)",
		"int(-9223372036854775808.0)", "int(9223372036854775807.0)"} {
		f.Add(s)
	}
}

// FuzzParseExpr: parsing never panics, and an error is one *Error line.
func FuzzParseExpr(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		_, err := ParseExpr(src, Pos{File: "f.sql", Line: 1, Col: 1})
		if err == nil {
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%q: %T %v, want *Error", src, err, err)
		}
		if e.Pos.Line < 1 || e.Pos.Col < 1 || strings.Contains(e.Msg, "\n") || strings.Contains(e.Hint, "\n") {
			t.Fatalf("%q: malformed error %q", src, err)
		}
	})
}

// FuzzEval: evaluating whatever parses never panics, and fails only with
// an *Error. The random functions' ranges are bounded by pgbench's checks;
// zipfian near s = 1 with a huge range can take long, as in pgbench, so
// such expressions are not evaluated.
func FuzzEval(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseExpr(src, Pos{File: "f.sql", Line: 1, Col: 1})
		if err != nil || strings.Contains(strings.ToLower(src), "zipfian") {
			return
		}
		v, err := e.Eval(newEnv())
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("%q: %T %v, want *Error", src, err, err)
			}
			return
		}
		_ = v.String() + v.Debug()
	})
}

// FuzzReadFile: a workload file, however malformed, is read or refused
// with one *Error line at a place in the file, never a panic; what is read
// gives its scripts and tables the same way.
func FuzzReadFile(f *testing.F) {
	for _, name := range []string{"tpcb-like", "nms", "deposits"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", name+".toml"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{"", "name =", "[[transaction]]\nname = \"t\"\nscript = '''\\if 1\n'''", "[ledger]\ntransaction = 1",
		"[[table]]\nname = \"t\"\nrows = \"1 +\"\ncolumns = [\"a = chars(3, 1)\"]\n[[transaction]]\nname = \"x\"\nscript = \"SELECT 1;\"",
		"[schema]\nsql = [1, 2]\n[[transaction]]\nname = \"x\"\nfile = \"/nonexistent\""} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		tmp, err := os.CreateTemp(dir, "w-*.toml") // a file of its own: workers run at once
		if err != nil {
			t.Fatal(err)
		}
		path := tmp.Name()
		defer os.Remove(path)
		if _, err := tmp.WriteString(text); err != nil {
			t.Fatal(err)
		}
		tmp.Close()
		file, err := ReadFile(path)
		if err == nil {
			if _, err = file.Scripts(); err == nil {
				_, err = file.parseTables()
			}
		}
		if err == nil {
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%T %v, want *Error", err, err)
		}
		if e.Pos.File == "" || strings.Contains(e.Msg+e.Hint, "\n") {
			t.Fatalf("malformed error %q", err)
		}
	})
}
