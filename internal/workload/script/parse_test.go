package script

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestParseErrors: each malformed expression is one line with its place,
// what is wrong and what to write instead. The expression starts at line 3,
// column 9 of s.sql, as after `\set x ` in a script.
func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"1 + foo(2)", `s.sql:3:13: unknown function "foo": the functions are abs, debug, `},
		{"random(1)", "s.sql:3:9: wrong number of arguments for random: 1 given: write random(lb, ub)"},
		{"pi(1)", "s.sql:3:9: wrong number of arguments for pi: 1 given: write pi()"},
		{"least()", "s.sql:3:9: at least one argument expected for least: 0 given"},
		{"hash(1, 2, 3)", "s.sql:3:9: wrong number of arguments for hash: 3 given: write hash(value [, seed])"},
		{"permute(1)", "s.sql:3:9: wrong number of arguments for permute: 1 given: write permute(i, size [, seed])"},
		{"greatest(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", "s.sql:3:9: wrong number of arguments for greatest: 17 given: write at most 16 arguments"},
		{"1 +", "s.sql:3:12: syntax error at end of expression: expected a value"},
		{"(1 + 2", `s.sql:3:15: syntax error at end of expression: expected ")"`},
		{"1 2", `s.sql:3:11: syntax error at "2": expected an operator or the end of the expression`},
		{"1 < 2 < 3", `s.sql:3:15: syntax error at "<": comparisons and IS do not chain`},
		{"1 ~ 2", `s.sql:3:11: syntax error at "~"`},
		{"1 is 2", `s.sql:3:14: syntax error at "2": expected NULL, TRUE or FALSE after IS`},
		{"case 1 end", `s.sql:3:14: syntax error at "1": expected WHEN after CASE`},
		{"case when 1 then 2", "s.sql:3:27: syntax error at end of expression: expected WHEN, ELSE or END"},
		{"abs", `s.sql:3:12: syntax error at end of expression: expected "(" after abs`},
		{"1 $ 2", `s.sql:3:11: unexpected character "$"`},
		{": 1", `s.sql:3:9: unexpected character ":"`},
		{"9223372036854775808", "s.sql:3:9: bigint constant overflow: 9223372036854775808"},
		{"99999999999999999999", "s.sql:3:9: bigint constant overflow: 99999999999999999999"},
		{"1e400", "s.sql:3:9: double constant overflow: 1e400"},
		{"1e-320", "s.sql:3:9: double constant overflow: 1e-320"},
		{"", "s.sql:3:9: missing expression"},
		{"1 +\n  bar(1)", `s.sql:4:3: unknown function "bar"`},
		{"1 + \\\n bar(1)", `s.sql:4:2: unknown function "bar"`},
	}
	for _, c := range cases {
		_, err := ParseExpr(c.src, Pos{File: "s.sql", Line: 3, Col: 9})
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: error %v, want an *Error", c.src, err)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%q:\n got %s\nwant %s…", c.src, msg, c.want)
		}
		if e.Hint == "" && c.src != "" {
			t.Errorf("%q: no hint", c.src)
		}
	}
}

func TestErrorPositionAtRuntime(t *testing.T) {
	e, err := ParseExpr("1 + (2 / (:i - 7))", Pos{File: "s.sql", Line: 2, Col: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Eval(newEnv())
	if err == nil || !strings.HasPrefix(err.Error(), "s.sql:2:17: division by zero: ") {
		t.Errorf("error %v, want one at s.sql:2:17 (the /)", err)
	}
}

func TestDebugger(t *testing.T) {
	e, err := ParseExpr("debug(1.5) + debug(null is null)", Pos{File: "d.sql", Line: 1, Col: 1})
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv()
	if _, err := e.Eval(env); err == nil {
		t.Fatal("double + boolean should fail")
	}
	want := []string{"d.sql:1:1: double 1.5", "d.sql:1:14: boolean true"}
	if !slices.Equal(env.debug, want) {
		t.Errorf("debug saw %q, want %q", env.debug, want)
	}
}

func TestVars(t *testing.T) {
	e, err := ParseExpr("hash(:a) + case when :b then :a else permute(:c, 10) end", Pos{})
	if err != nil {
		t.Fatal(err)
	}
	if got := Vars(e); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Vars = %q", got)
	}
}

// TestValueText: String is what SQL sees (pgbench's getVariable), Debug
// what debug() prints.
func TestValueText(t *testing.T) {
	cases := []struct {
		v             Value
		str, debugStr string
	}{
		{NullValue(), "NULL", "null"},
		{BoolValue(true), "true", "boolean true"},
		{IntValue(-42), "-42", "int -42"},
		{DoubleValue(math.Pi), "3.14159265358979", "double 3.14159265358979"},
		{DoubleValue(math.Inf(-1)), "-Infinity", "double -Infinity"},
		{DoubleValue(1e100), "1e+100", "double 1e+100"},
	}
	for _, c := range cases {
		if c.v.String() != c.str || c.v.Debug() != c.debugStr {
			t.Errorf("%#v: %q %q, want %q %q", c.v, c.v.String(), c.v.Debug(), c.str, c.debugStr)
		}
	}
}

// TestParseValue: a -D or \gset text read as pgbench's makeVariableValue.
func TestParseValue(t *testing.T) {
	cases := []struct{ in, want string }{
		{"42", "int 42"}, {" -7", "int -7"}, {"+3", "int 3"}, {"2.5", "double 2.5"}, {"1e3", "double 1000"},
		{"null", "null"}, {"NULL", "null"}, {"t", "boolean true"}, {"yes", "boolean true"}, {"on", "boolean true"},
		{"f", "boolean false"}, {"no", "boolean false"}, {"off", "boolean false"}, {"of", "boolean false"},
		{"o", "error"}, {"abc", "error"}, {"", "error"}, {"99999999999999999999", "error"}, {"1-2", "error"}, {"7 ", "error"}, {"1e-400", "error"}, {"1e400", "error"}, {" 0.0", "double 0"},
	}
	for _, c := range cases {
		v, err := ParseValue(c.in)
		got := v.Debug()
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("ParseValue(%q) = %s (%v), want %s", c.in, got, err, c.want)
		}
	}
}
