package script

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// Kind is a value's type: pgbench's NULL, boolean, int (int64) and double.
type Kind uint8

// The kinds of Value.
const (
	Null Kind = iota
	Bool
	Int
	Double
)

// names as pgbench's valueTypeName gives them in its messages.
func (k Kind) String() string {
	switch k {
	case Bool:
		return "boolean"
	case Int:
		return "int"
	case Double:
		return "double"
	}
	return "null"
}

// Value is a value of pgbench's expression language; the zero Value is NULL.
type Value struct {
	kind Kind
	i    int64 // Int; Bool as 0 or 1
	d    float64
}

// BoolValue, IntValue and DoubleValue make values; NullValue is Value{}.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: Bool, i: 1}
	}
	return Value{kind: Bool}
}

// IntValue makes an int value.
func IntValue(i int64) Value { return Value{kind: Int, i: i} }

// DoubleValue makes a double value.
func DoubleValue(d float64) Value { return Value{kind: Double, d: d} }

// NullValue is NULL.
func NullValue() Value { return Value{} }

// Kind is v's type.
func (v Value) Kind() Kind { return v.kind }

// AsBool is pgbench's coerceToBool: only a boolean is one.
func (v Value) AsBool() (bool, error) {
	if v.kind == Bool {
		return v.i != 0, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.kind)
}

// AsInt is pgbench's coerceToInt: a double is rounded half to even (rint)
// and must fit in an int64.
func (v Value) AsInt() (int64, error) {
	switch v.kind {
	case Int:
		return v.i, nil
	case Double:
		d := math.RoundToEven(v.d)
		// FLOAT8_FITS_IN_INT64: -2^63 <= d < 2^63
		if math.IsNaN(d) || d < -0x1p63 || d >= 0x1p63 {
			return 0, fmt.Errorf("double to int overflow for %s", cDouble(d, 6, 'f'))
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.kind)
}

// AsDouble is pgbench's coerceToDouble.
func (v Value) AsDouble() (float64, error) {
	switch v.kind {
	case Double:
		return v.d, nil
	case Int:
		return float64(v.i), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.kind)
}

// Truth is pgbench's valueTruth, which CASE WHEN and \if use: NULL, false,
// 0 and 0.0 are false.
func (v Value) Truth() bool {
	switch v.kind {
	case Bool, Int:
		return v.i != 0
	case Double:
		return v.d != 0
	}
	return false
}

// String is the text a variable holding v gives a SQL command, as pgbench's
// getVariable: 42, 3.14159265358979 (%.15g), true, false, NULL.
func (v Value) String() string {
	switch v.kind {
	case Bool:
		if v.i != 0 {
			return "true"
		}
		return "false"
	case Int:
		return strconv.FormatInt(v.i, 10)
	case Double:
		return cDouble(v.d, 15, 'g')
	}
	return "NULL"
}

// Debug is v as pgbench's debug() prints it after its prefix:
// "int 42", "double 3.14159265358979", "boolean true", "null".
func (v Value) Debug() string {
	if v.kind == Null {
		return "null"
	}
	return v.kind.String() + " " + v.String()
}

// cDouble formats d as PostgreSQL's own printf (src/port/snprintf.c) does
// with %.{prec}{verb}: glibc's digits, but NaN, Infinity and -Infinity.
func cDouble(d float64, prec int, verb byte) string {
	switch {
	case math.IsNaN(d):
		return "NaN"
	case math.IsInf(d, 1):
		return "Infinity"
	case math.IsInf(d, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(d, verb, prec, 64)
}

// ParseValue reads a variable's text as pgbench's makeVariableValue does
// (for -D name=value and \gset): null; true, yes, on and their prefixes
// (t, tr, y, ye) and false, no, off, of (f, fa, n); an integer; else a double.
func ParseValue(s string) (Value, error) {
	if s == "" {
		return Value{}, errors.New("an empty value is neither a number nor a boolean")
	}
	low := strings.ToLower(s)
	switch {
	case low == "null":
		return Value{}, nil
	case strings.HasPrefix("true", low) || strings.HasPrefix("yes", low) || low == "on":
		return BoolValue(true), nil
	case strings.HasPrefix("false", low) || strings.HasPrefix("no", low) || low == "off" || low == "of":
		return BoolValue(false), nil
	}
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) <= 1 && digits != "" && strings.Trim(digits, "0123456789") == "" {
		i, err := strconv.ParseInt(strings.TrimPrefix(t, "+"), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("value %q is out of range for type bigint", s)
		}
		return IntValue(i), nil
	}
	d, ok := strtod(strings.TrimLeft(s, " \t\n\r\f\v"))
	if !ok {
		return Value{}, fmt.Errorf("malformed value %q: neither a number nor a boolean", s)
	}
	return DoubleValue(d), nil
}

// strtod reads a double as C's strtod does when it sets no error: not out
// of range, in either direction (an underflow to zero or to a subnormal is
// ERANGE too).
func strtod(s string) (float64, bool) {
	d, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return d, false
	}
	if d != 0 && math.Abs(d) < 0x1p-1022 {
		return d, false
	}
	mantissa := strings.SplitN(strings.ToLower(s), "e", 2)[0]
	if d == 0 && strings.ContainsAny(mantissa, "123456789") && !strings.HasPrefix(strings.TrimLeft(mantissa, "+-"), "0x") {
		return d, false
	}
	return d, true
}

// Env is what an expression reads when it runs: the client's variables,
// its PRNG and the seed the hash functions and permute default to.
type Env interface {
	// Var returns a variable's value, false when it is not set.
	Var(name string) (Value, bool)
	// Rand is the client's PRNG, which the random functions draw from.
	Rand() *rand.Rand
	// DefaultSeed is the seed hash(x) and permute(i, n) use when no
	// default_seed variable is set (pgbench sets one from --random-seed).
	DefaultSeed() int64
}

// Debugger is an Env that wants debug()'s values, as pgbench prints them
// on stderr; debug() with any other Env only returns its argument.
type Debugger interface {
	Debug(at Pos, v Value)
}

type constNode struct {
	pos Pos
	v   Value
}

func constant(pos Pos, v Value) Expr { return &constNode{pos: pos, v: v} }

func (c *constNode) Eval(Env) (Value, error) { return c.v, nil }
func (c *constNode) Pos() Pos                { return c.pos }

type variable struct {
	pos  Pos
	name string
	seed bool // the default_seed a hash or permute was not given
}

func (v *variable) Pos() Pos { return v.pos }

func (v *variable) Eval(env Env) (Value, error) {
	if v.seed {
		if val, ok := env.Var(v.name); ok {
			return val, nil
		}
		return IntValue(env.DefaultSeed()), nil
	}
	val, ok := env.Var(v.name)
	if !ok {
		return Value{}, &Error{Pos: v.pos, Msg: fmt.Sprintf("undefined variable %q", v.name),
			Hint: "set it first with \\set " + v.name + " …, or give -D " + v.name + "=VALUE"}
	}
	return val, nil
}

// logic is AND and OR, which pgbench evaluates lazily: a NULL left side
// gives NULL without the right side; false AND x is false, true OR x true.
type logic struct {
	pos  Pos
	and  bool
	a, b Expr
}

func (l *logic) Pos() Pos { return l.pos }

func (l *logic) Eval(env Env) (Value, error) {
	a, null, err := boolOf(l.a, env)
	if err != nil || null {
		return Value{}, err
	}
	if a != l.and {
		return BoolValue(a), nil
	}
	b, null, err := boolOf(l.b, env)
	if err != nil || null {
		return Value{}, err
	}
	return BoolValue(b), nil
}

// boolOf evaluates a side of AND or OR as a boolean; null says it was NULL.
func boolOf(e Expr, env Env) (v, null bool, err error) {
	x, err := e.Eval(env)
	if err != nil || x.kind == Null {
		return false, x.kind == Null && err == nil, err
	}
	v, err = x.AsBool()
	if err != nil {
		return false, false, &Error{Pos: e.Pos(), Msg: err.Error(), Hint: "AND, OR and NOT take booleans; compare a number, e.g. :x <> 0"}
	}
	return v, false, nil
}

// caseNode is CASE WHEN … THEN … ELSE … END: the first WHEN whose value is
// true by Truth (so 1 and 2.5 are, NULL is not) gives its THEN.
type caseNode struct {
	pos        Pos
	when, then []Expr
	els        Expr
}

func (c *caseNode) Pos() Pos { return c.pos }

func (c *caseNode) Eval(env Env) (Value, error) {
	for i, w := range c.when {
		v, err := w.Eval(env)
		if err != nil {
			return Value{}, err
		}
		if v.Truth() {
			return c.then[i].Eval(env)
		}
	}
	return c.els.Eval(env)
}

// fn is a function or operator; an operator's name is its symbol.
type fn struct {
	name     string
	min, max int
	usage    string
	seeded   bool // the last argument is a seed, default_seed when left out
	nullOK   bool // sees NULL arguments (IS, debug); others give NULL for one
	eval     func(n *callNode, args []Value, env Env) (Value, error)
}

type callNode struct {
	pos  Pos
	f    *fn
	args []Expr
}

func call(pos Pos, f *fn, args ...Expr) Expr { return &callNode{pos: pos, f: f, args: args} }

func (n *callNode) Pos() Pos { return n.pos }

func (n *callNode) Eval(env Env) (Value, error) {
	var buf [4]Value
	vals := buf[:0]
	hasNull := false
	for _, a := range n.args {
		v, err := a.Eval(env)
		if err != nil {
			return Value{}, err
		}
		hasNull = hasNull || v.kind == Null
		vals = append(vals, v)
	}
	if hasNull && !n.f.nullOK {
		return Value{}, nil
	}
	return n.f.eval(n, vals, env)
}

// fail is an error at the call, with a hint.
func (n *callNode) fail(msg, hint string) error {
	return &Error{Pos: n.pos, Msg: msg, Hint: hint}
}

// coerce wraps a coercion's error with the place of the call.
func (n *callNode) coerce(err error) error {
	hint := "convert it with int(…) or double(…), or compare it, e.g. :x = 1"
	if strings.Contains(err.Error(), "overflow") {
		hint = "keep the double within ±9.2e18"
	}
	return &Error{Pos: n.pos, Msg: n.f.name + ": " + err.Error(), Hint: hint}
}

func (n *callNode) ints(args []Value) ([]int64, error) { return convert(n, args, Value.AsInt) }

func (n *callNode) doubles(args []Value) ([]float64, error) { return convert(n, args, Value.AsDouble) }

// convert coerces every argument with as, failing at the call's place.
func convert[T any](n *callNode, args []Value, as func(Value) (T, error)) ([]T, error) {
	out := make([]T, len(args))
	for i, a := range args {
		v, err := as(a)
		if err != nil {
			return nil, n.coerce(err)
		}
		out[i] = v
	}
	return out, nil
}

// arith is + - * / % = <> <= <, pgbench's overloaded operators: double
// when either side is a double (but % is always on ints), else int64 with
// overflow and division by zero as errors.
func arith(op string) func(n *callNode, a []Value, env Env) (Value, error) {
	return func(n *callNode, a []Value, _ Env) (Value, error) {
		if (a[0].kind == Double || a[1].kind == Double) && op != "%" {
			d, err := n.doubles(a)
			if err != nil {
				return Value{}, err
			}
			l, r := d[0], d[1]
			switch op {
			case "+":
				return DoubleValue(l + r), nil
			case "-":
				return DoubleValue(l - r), nil
			case "*":
				return DoubleValue(l * r), nil
			case "/":
				return DoubleValue(l / r), nil
			case "=":
				return BoolValue(l == r), nil
			case "<>":
				return BoolValue(l != r), nil
			case "<=":
				return BoolValue(l <= r), nil
			}
			return BoolValue(l < r), nil
		}
		iv, err := n.ints(a)
		if err != nil {
			return Value{}, err
		}
		l, r := iv[0], iv[1]
		const hint = "the result must fit in a bigint (±9223372036854775807); use doubles, e.g. double(:x) * :y"
		switch op {
		case "+":
			s := l + r
			if (s > l) != (r > 0) {
				return Value{}, n.fail("bigint add out of range", hint)
			}
			return IntValue(s), nil
		case "-":
			s := l - r
			if (s < l) != (r > 0) {
				return Value{}, n.fail("bigint sub out of range", hint)
			}
			return IntValue(s), nil
		case "*":
			p := l * r
			if l != 0 && (p/l != r || l == -1 && r == math.MinInt64 || r == -1 && l == math.MinInt64) {
				return Value{}, n.fail("bigint mul out of range", hint)
			}
			return IntValue(p), nil
		case "/", "%":
			if r == 0 {
				return Value{}, n.fail("division by zero", "an integer divisor must not be 0; divide doubles (1.0 / 0 is inf)")
			}
			if r == -1 {
				if op == "%" {
					return IntValue(0), nil
				}
				if l == math.MinInt64 {
					return Value{}, n.fail("bigint div out of range", hint)
				}
				return IntValue(-l), nil
			}
			if op == "/" {
				return IntValue(l / r), nil
			}
			return IntValue(l % r), nil
		case "=":
			return BoolValue(l == r), nil
		case "<>":
			return BoolValue(l != r), nil
		case "<=":
			return BoolValue(l <= r), nil
		}
		return BoolValue(l < r), nil
	}
}

// bitwise is & | # << >> on ints; a shift count is taken modulo 64, as
// pgbench's C shift does on x86-64.
func bitwise(op string) func(n *callNode, a []Value, env Env) (Value, error) {
	return func(n *callNode, a []Value, _ Env) (Value, error) {
		iv, err := n.ints(a)
		if err != nil {
			return Value{}, err
		}
		l, r := iv[0], iv[1]
		switch op {
		case "&":
			return IntValue(l & r), nil
		case "|":
			return IntValue(l | r), nil
		case "#":
			return IntValue(l ^ r), nil
		case "<<":
			return IntValue(l << (uint64(r) & 63)), nil
		}
		return IntValue(l >> (uint64(r) & 63)), nil
	}
}

var (
	fAdd    = &fn{name: "+", min: 2, max: 2, eval: arith("+")}
	fSub    = &fn{name: "-", min: 2, max: 2, eval: arith("-")}
	fMul    = &fn{name: "*", min: 2, max: 2, eval: arith("*")}
	fDiv    = &fn{name: "/", min: 2, max: 2, eval: arith("/")}
	fMod    = &fn{name: "mod", min: 2, max: 2, usage: "mod(a, b), a % b on ints", eval: arith("%")}
	fEq     = &fn{name: "=", min: 2, max: 2, eval: arith("=")}
	fNe     = &fn{name: "<>", min: 2, max: 2, eval: arith("<>")}
	fLe     = &fn{name: "<=", min: 2, max: 2, eval: arith("<=")}
	fLt     = &fn{name: "<", min: 2, max: 2, eval: arith("<")}
	fBitAnd = &fn{name: "&", min: 2, max: 2, eval: bitwise("&")}
	fBitOr  = &fn{name: "|", min: 2, max: 2, eval: bitwise("|")}
	fBitXor = &fn{name: "#", min: 2, max: 2, eval: bitwise("#")}
	fShl    = &fn{name: "<<", min: 2, max: 2, eval: bitwise("<<")}
	fShr    = &fn{name: ">>", min: 2, max: 2, eval: bitwise(">>")}
	fNot    = &fn{name: "NOT", min: 1, max: 1, eval: func(n *callNode, a []Value, _ Env) (Value, error) {
		b, err := a[0].AsBool()
		if err != nil {
			return Value{}, n.fail("NOT: "+err.Error(), "AND, OR and NOT take booleans; compare a number, e.g. :x <> 0")
		}
		return BoolValue(!b), nil
	}}
	// fIs is pgbench's "!is": same kind and, for booleans, same value.
	fIs = &fn{name: "IS", min: 2, max: 2, nullOK: true, eval: func(_ *callNode, a []Value, _ Env) (Value, error) {
		return BoolValue(a[0].kind == a[1].kind && (a[0].kind != Bool || a[0].i == a[1].i)), nil
	}}
)

// functions are pgbench's built-in functions by lower-case name (names are
// case-insensitive, as pgbench's pg_strcasecmp).
var functions = map[string]*fn{}

func init() {
	one := func(name, usage string, eval func(n *callNode, a []Value, env Env) (Value, error)) *fn {
		return &fn{name: name, min: 1, max: 1, usage: usage, eval: eval}
	}
	double1 := func(name string, f func(float64) float64) *fn {
		return one(name, name+"(x)", func(n *callNode, a []Value, _ Env) (Value, error) {
			d, err := n.doubles(a)
			if err != nil {
				return Value{}, err
			}
			return DoubleValue(f(d[0])), nil
		})
	}
	extremum := func(name string, least bool) *fn {
		return &fn{name: name, min: 1, max: math.MaxInt32, usage: name + "(a [, b …]), at least one argument",
			eval: func(n *callNode, a []Value, _ Env) (Value, error) {
				for _, v := range a {
					if v.kind == Double {
						d, err := n.doubles(a)
						if err != nil {
							return Value{}, err
						}
						m := d[0]
						for _, x := range d[1:] {
							// C's Min(m, x) is m < x ? m : x, Max(m, x) m > x ? m : x:
							// a NaN so far gives way, a NaN argument wins
							if least && !(m < x) || !least && !(m > x) {
								m = x
							}
						}
						return DoubleValue(m), nil
					}
				}
				iv, err := n.ints(a)
				if err != nil {
					return Value{}, err
				}
				m := iv[0]
				for _, x := range iv[1:] {
					if least && x < m || !least && x > m {
						m = x
					}
				}
				return IntValue(m), nil
			}}
	}
	hash := func(name string, h func(v, seed int64) int64) *fn {
		return &fn{name: name, min: 1, max: 2, seeded: true, usage: name + "(value [, seed])",
			eval: func(n *callNode, a []Value, _ Env) (Value, error) {
				iv, err := n.ints(a)
				if err != nil {
					return Value{}, err
				}
				return IntValue(h(iv[0], iv[1])), nil
			}}
	}
	random := func(name string, nargs int, usage string) *fn {
		return &fn{name: name, min: nargs, max: nargs, usage: usage, eval: evalRandom}
	}
	pow := &fn{name: "pow", min: 2, max: 2, usage: "pow(x, y)", eval: func(n *callNode, a []Value, _ Env) (Value, error) {
		d, err := n.doubles(a)
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(math.Pow(d[0], d[1])), nil
	}}
	for _, f := range []*fn{
		one("abs", "abs(x)", func(n *callNode, a []Value, _ Env) (Value, error) {
			switch a[0].kind {
			case Int:
				if a[0].i < 0 {
					return IntValue(-a[0].i), nil // abs(-2^63) wraps, as in pgbench
				}
				return a[0], nil
			case Double:
				if a[0].d < 0 {
					return DoubleValue(-a[0].d), nil
				}
				return a[0], nil
			}
			return Value{}, n.fail("abs: cannot take the absolute value of a boolean", "give a number")
		}),
		{name: "debug", min: 1, max: 1, usage: "debug(x)", nullOK: true, eval: func(n *callNode, a []Value, env Env) (Value, error) {
			if d, ok := env.(Debugger); ok {
				d.Debug(n.pos, a[0])
			}
			return a[0], nil
		}},
		double1("double", func(x float64) float64 { return x }),
		double1("exp", math.Exp),
		double1("ln", math.Log),
		double1("sqrt", math.Sqrt),
		extremum("greatest", false),
		extremum("least", true),
		hash("hash", hashMurmur2),
		hash("hash_murmur2", hashMurmur2),
		hash("hash_fnv1a", hashFNV1a),
		one("int", "int(x)", func(n *callNode, a []Value, _ Env) (Value, error) {
			iv, err := n.ints(a)
			if err != nil {
				return Value{}, err
			}
			return IntValue(iv[0]), nil
		}),
		{name: "mod", min: 2, max: 2, usage: "mod(a, b)", eval: arith("%")},
		{name: "permute", min: 2, max: 3, seeded: true, usage: "permute(i, size [, seed])", eval: func(n *callNode, a []Value, _ Env) (Value, error) {
			iv, err := n.ints(a)
			if err != nil {
				return Value{}, err
			}
			if iv[1] <= 0 {
				return Value{}, n.fail("permute size parameter must be greater than zero", "give a size ≥ 1")
			}
			return IntValue(Permute(iv[0], iv[1], iv[2])), nil
		}},
		{name: "pi", usage: "pi()", eval: func(*callNode, []Value, Env) (Value, error) { return DoubleValue(math.Pi), nil }},
		pow,
		{name: "power", min: 2, max: 2, usage: "power(x, y)", eval: pow.eval},
		random("random", 2, "random(lb, ub)"),
		random("random_exponential", 3, "random_exponential(lb, ub, parameter)"),
		random("random_gaussian", 3, "random_gaussian(lb, ub, parameter)"),
		random("random_zipfian", 3, "random_zipfian(lb, ub, parameter)"),
	} {
		functions[f.name] = f
	}
}

// FunctionNames lists the built-in functions, sorted, comma-separated.
func FunctionNames() string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// evalRandom checks the range and parameter as pgbench's evalStandardFunc
// does, then draws from env's PRNG.
func evalRandom(n *callNode, a []Value, env Env) (Value, error) {
	iv, err := n.ints(a[:2])
	if err != nil {
		return Value{}, err
	}
	lo, hi := iv[0], iv[1]
	if lo > hi {
		return Value{}, n.fail("empty range given to random", fmt.Sprintf("in "+n.f.name+", the upper bound (%d) must be at least the lower (%d)", hi, lo))
	}
	if d := hi - lo; d < 0 || d == math.MaxInt64 {
		return Value{}, n.fail("random range is too large", "ub - lb + 1 must fit in a bigint")
	}
	r := env.Rand()
	if n.f.name == "random" {
		return IntValue(Uniform(r, lo, hi)), nil
	}
	pv, err := a[2].AsDouble()
	if err != nil {
		return Value{}, n.coerce(err)
	}
	switch n.f.name {
	case "random_gaussian":
		if pv < minGaussian {
			return Value{}, n.fail(fmt.Sprintf("gaussian parameter must be at least %f (not %f)", minGaussian, pv), "give a parameter ≥ 2.0")
		}
		return IntValue(Gaussian(r, lo, hi, pv)), nil
	case "random_zipfian":
		if pv < minZipfian || pv > maxZipfian {
			return Value{}, n.fail(fmt.Sprintf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", minZipfian, maxZipfian, pv),
				"give a parameter from 1.001 to 1000")
		}
		return IntValue(Zipfian(r, lo, hi, pv)), nil
	}
	if pv <= 0 {
		return Value{}, n.fail(fmt.Sprintf("exponential parameter must be greater than zero (not %f)", pv), "give a parameter > 0")
	}
	return IntValue(Exponential(r, lo, hi, pv)), nil
}
