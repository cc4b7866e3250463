package script

import (
	"errors"
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
