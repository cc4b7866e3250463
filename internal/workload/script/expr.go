package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Pos is a place in a script: its file, line and column (both from 1,
// the column counted in bytes).
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	f := p.File
	if f == "" {
		f = "-"
	}
	return fmt.Sprintf("%s:%d:%d", f, p.Line, p.Col)
}

// Error is a script error at a place: what is wrong and what to write
// instead. Error() is one line, `file:line:col: what is wrong: hint`.
type Error struct {
	Pos  Pos
	Msg  string
	Hint string
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Pos.String() + ": " + e.Msg
	}
	return e.Pos.String() + ": " + e.Msg + ": " + e.Hint
}

// Expr is a parsed expression of pgbench's language. Eval is safe for
// concurrent use when the Env is (an Expr is never changed after parsing).
type Expr interface {
	// Eval computes the expression's value with env's variables and PRNG.
	Eval(env Env) (Value, error)
	// Pos is where the expression starts in its script.
	Pos() Pos
}

// token kinds, as pgbench's exprscan.l returns them.
type tok int

const (
	tEOF tok = iota
	tInt
	tMaxIntPlusOne // 9223372036854775808: legal only after a unary minus
	tDouble
	tBool
	tNull
	tVar
	tFunc
	tOp // + - * / % = <> != <= >= << >> < > | & # ~ ( ) ,
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEnd
)

type token struct {
	kind tok
	text string
	pos  Pos
	i    int64
	d    float64
	b    bool
}

// keywords are case-insensitive and win over a function name of the same
// length (exprscan.l lists them first).
var keywords = map[string]tok{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull, "notnull": tNotNull,
	"case": tCase, "when": tWhen, "then": tThen, "else": tElse, "end": tEnd,
	"null": tNull, "true": tBool, "false": tBool,
}

type lexer struct {
	src  string
	off  int
	line int
	col  int
	file string
}

func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

func (l *lexer) pos() Pos { return Pos{File: l.file, Line: l.line, Col: l.col} }

func (l *lexer) advance(n int) {
	for i := 0; i < n; i++ {
		if l.src[l.off] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.off++
	}
}

// next returns the next token. Spaces, newlines and pgbench's line
// continuations (a backslash ending a line) separate tokens: the caller
// hands over one expression, however many lines it spans.
func (l *lexer) next() (token, error) {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n':
			l.advance(1)
			continue
		case c == '\\' && strings.HasPrefix(l.src[l.off+1:], "\n"):
			l.advance(2)
			continue
		case c == '\\' && strings.HasPrefix(l.src[l.off+1:], "\r\n"):
			l.advance(3)
			continue
		}
		break
	}
	t := token{pos: l.pos()}
	if l.off >= len(l.src) {
		return t, nil
	}
	s := l.src[l.off:]
	c := s[0]
	switch {
	case c == ':':
		n := 1
		for n < len(s) && isAlnum(s[n]) {
			n++
		}
		if n == 1 {
			return t, &Error{Pos: t.pos, Msg: "unexpected character \":\"", Hint: "a variable is written :name (letters, digits, _)"}
		}
		t.kind, t.text = tVar, s[1:n]
		l.advance(n)
		return t, nil
	case isDigit(c) || c == '.' && len(s) > 1 && isDigit(s[1]):
		return l.number(t, s)
	case isAlpha(c):
		n := 1
		for n < len(s) && isAlnum(s[n]) {
			n++
		}
		t.text = s[:n]
		l.advance(n)
		if k, ok := keywords[strings.ToLower(t.text)]; ok {
			t.kind = k
			t.b = k == tBool && strings.EqualFold(t.text, "true")
			return t, nil
		}
		t.kind = tFunc
		return t, nil
	}
	for _, op := range []string{"<>", "!=", "<=", ">=", "<<", ">>"} {
		if strings.HasPrefix(s, op) {
			t.kind, t.text = tOp, op
			l.advance(2)
			return t, nil
		}
	}
	if strings.IndexByte("+-*/%=<>|&#~(),", c) >= 0 {
		t.kind, t.text = tOp, s[:1]
		l.advance(1)
		return t, nil
	}
	ch := s[:1]
	if c >= 0x20 && c < 0x7f {
		ch = strconv.Quote(ch)
	} else {
		ch = fmt.Sprintf("byte 0x%02x", c)
	}
	return t, &Error{Pos: t.pos, Msg: "unexpected character " + ch,
		Hint: "operators are + - * / % = <> != < <= > >= & | # ~ << >>, with AND OR NOT IS CASE"}
}

// number lexes {digit}+ as an integer, and
// {digit}+(\.{digit}*)?([eE][-+]?{digit}+)? or \.{digit}+([eE][-+]?{digit}+)?
// as a double, the longest match winning as in flex.
func (l *lexer) number(t token, s string) (token, error) {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	intEnd := n
	double := false
	if n < len(s) && s[n] == '.' {
		double = true
		n++
		for n < len(s) && isDigit(s[n]) {
			n++
		}
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && isDigit(s[m]) {
			for m < len(s) && isDigit(s[m]) {
				m++
			}
			n, double = m, true
		}
	}
	if !double {
		n = intEnd
	}
	t.text = s[:n]
	l.advance(n)
	if !double {
		if t.text == "9223372036854775808" {
			t.kind = tMaxIntPlusOne
			return t, nil
		}
		v, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return t, &Error{Pos: t.pos, Msg: "bigint constant overflow: " + t.text,
				Hint: fmt.Sprintf("an integer is at most %d; write a double (%s.0) if you mean one", int64(math.MaxInt64), t.text)}
		}
		t.kind, t.i = tInt, v
		return t, nil
	}
	v, ok := strtod(t.text)
	if !ok {
		return t, &Error{Pos: t.pos, Msg: "double constant overflow: " + t.text,
			Hint: "a double is between 2.2250738585072014e-308 and 1.7976931348623157e+308 in magnitude"}
	}
	t.kind, t.d = tDouble, v
	return t, nil
}

// Precedence, lowest to highest, as pgbench's exprparse.y (taken from
// PostgreSQL's SQL grammar).
const (
	precNone = iota
	precOr
	precAnd
	precNot // right
	precIs  // nonassoc: IS, ISNULL, NOTNULL
	precCmp // nonassoc: < > = <= >= <> !=
	precBit // left: | # & << >> ~
	precAdd // left: + -
	precMul // left: * / %
	precUnary
)

type assoc int

const (
	left assoc = iota
	right
	nonassoc
)

// binPrec gives a binary operator token's precedence and associativity;
// ok is false for a token that cannot follow an operand.
func binPrec(t token) (p int, a assoc, ok bool) {
	switch t.kind {
	case tOr:
		return precOr, left, true
	case tAnd:
		return precAnd, left, true
	case tIs, tIsNull, tNotNull:
		return precIs, nonassoc, true
	case tOp:
		switch t.text {
		case "<", ">", "=", "<=", ">=", "<>", "!=":
			return precCmp, nonassoc, true
		case "|", "#", "&", "<<", ">>":
			return precBit, left, true
		case "+", "-":
			return precAdd, left, true
		case "*", "/", "%":
			return precMul, left, true
		}
	}
	return 0, 0, false
}

type parser struct {
	lex   lexer
	tok   token
	depth int
}

// maxDepth bounds nesting, so that a hostile script cannot exhaust the stack.
const maxDepth = 1000

// ParseExpr parses src, one expression of pgbench's \set language, whose
// first character is at `at` in its script. Unknown functions and wrong
// argument counts are errors here, with their place.
func ParseExpr(src string, at Pos) (Expr, error) {
	if at.Line == 0 {
		at.Line = 1
	}
	if at.Col == 0 {
		at.Col = 1
	}
	p := &parser{lex: lexer{src: src, line: at.Line, col: at.Col, file: at.File}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, &Error{Pos: p.tok.pos, Msg: "missing expression", Hint: "write one, e.g. random(1, 100000 * :scale)"}
	}
	e, err := p.expr(precNone, left)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.unexpected("an operator or the end of the expression")
	}
	return e, nil
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) unexpected(want string) error {
	what := "end of expression"
	if p.tok.kind != tEOF {
		what = strconv.Quote(p.tok.text)
		if p.tok.kind == tVar {
			what = strconv.Quote(":" + p.tok.text)
		}
	}
	return &Error{Pos: p.tok.pos, Msg: "syntax error at " + what, Hint: "expected " + want}
}

// expr parses an operand and the operators that bind tighter than the rule
// it is the right side of (precedence rp, associativity ra), resolving each
// conflict as bison does: shift when the operator binds tighter, or equally
// and the rule is right-associative; a syntax error when equally and
// non-associative; else reduce (return).
func (p *parser) expr(rp int, ra assoc) (Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, &Error{Pos: p.tok.pos, Msg: "expression nested too deeply", Hint: fmt.Sprintf("at most %d levels", maxDepth)}
	}
	lhs, err := p.operand()
	if err != nil {
		return nil, err
	}
	for {
		op := p.tok
		prec, a, ok := binPrec(op)
		if !ok || prec < rp || prec == rp && ra == left {
			return lhs, nil
		}
		if prec == rp && ra == nonassoc {
			return nil, &Error{Pos: op.pos, Msg: "syntax error at " + strconv.Quote(op.text),
				Hint: "comparisons and IS do not chain; use AND or parentheses"}
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		switch op.kind {
		case tIsNull:
			lhs = call(op.pos, fIs, lhs, constant(op.pos, Value{}))
			continue
		case tNotNull:
			lhs = call(op.pos, fNot, call(op.pos, fIs, lhs, constant(op.pos, Value{})))
			continue
		case tIs:
			not := false
			if p.tok.kind == tNot {
				not = true
				if err := p.advance(); err != nil {
					return nil, err
				}
			}
			var v Value
			switch p.tok.kind {
			case tNull:
			case tBool:
				v = BoolValue(p.tok.b)
			default:
				return nil, p.unexpected("NULL, TRUE or FALSE after IS")
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
			lhs = call(op.pos, fIs, lhs, constant(op.pos, v))
			if not {
				lhs = call(op.pos, fNot, lhs)
			}
			continue
		}
		rhs, err := p.expr(prec, a)
		if err != nil {
			return nil, err
		}
		switch op.kind {
		case tAnd:
			lhs = &logic{pos: op.pos, and: true, a: lhs, b: rhs}
			continue
		case tOr:
			lhs = &logic{pos: op.pos, a: lhs, b: rhs}
			continue
		}
		switch op.text {
		case ">": // a > b is b < a, a >= b is b <= a, as in pgbench
			lhs = call(op.pos, fLt, rhs, lhs)
		case ">=":
			lhs = call(op.pos, fLe, rhs, lhs)
		case "!=":
			lhs = call(op.pos, fNe, lhs, rhs)
		default:
			lhs = call(op.pos, binOps[op.text], lhs, rhs)
		}
	}
}

var binOps = map[string]*fn{
	"+": fAdd, "-": fSub, "*": fMul, "/": fDiv, "%": fMod,
	"<": fLt, "<=": fLe, "=": fEq, "<>": fNe,
	"|": fBitOr, "&": fBitAnd, "#": fBitXor, "<<": fShl, ">>": fShr,
}

// operand parses a constant, variable, call, CASE, parenthesised
// expression or prefix operator with its operand.
func (p *parser) operand() (Expr, error) {
	t := p.tok
	switch t.kind {
	case tInt, tDouble, tBool, tNull:
		if err := p.advance(); err != nil {
			return nil, err
		}
		switch t.kind {
		case tInt:
			return constant(t.pos, IntValue(t.i)), nil
		case tDouble:
			return constant(t.pos, DoubleValue(t.d)), nil
		case tBool:
			return constant(t.pos, BoolValue(t.b)), nil
		}
		return constant(t.pos, Value{}), nil
	case tVar:
		if err := p.advance(); err != nil {
			return nil, err
		}
		return &variable{pos: t.pos, name: t.text}, nil
	case tNot:
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.expr(precNot, right)
		if err != nil {
			return nil, err
		}
		return call(t.pos, fNot, e), nil
	case tCase:
		return p.caseExpr()
	case tFunc:
		return p.call()
	case tMaxIntPlusOne:
		return nil, &Error{Pos: t.pos, Msg: "bigint constant overflow: " + t.text, Hint: "9223372036854775808 is only allowed after a minus"}
	case tOp:
		switch t.text {
		case "(":
			if err := p.advance(); err != nil {
				return nil, err
			}
			e, err := p.expr(precNone, left)
			if err != nil {
				return nil, err
			}
			if p.tok.kind != tOp || p.tok.text != ")" {
				return nil, p.unexpected("\")\"")
			}
			return e, p.advance()
		case "+", "-", "~":
			if err := p.advance(); err != nil {
				return nil, err
			}
			if t.text == "-" && p.tok.kind == tMaxIntPlusOne {
				c := constant(t.pos, IntValue(math.MinInt64))
				return c, p.advance()
			}
			// '~' has no %prec in exprparse.y: it binds as | # & do.
			prec, a := precUnary, right
			if t.text == "~" {
				prec, a = precBit, left
			}
			e, err := p.expr(prec, a)
			if err != nil {
				return nil, err
			}
			switch t.text {
			case "-": // -x is 0 - x
				return call(t.pos, fSub, constant(t.pos, IntValue(0)), e), nil
			case "~": // ~x is x # ~0
				return call(t.pos, fBitXor, constant(t.pos, IntValue(-1)), e), nil
			}
			return e, nil
		}
	}
	return nil, p.unexpected("a value, a :variable, a function call, CASE or \"(\"")
}

// caseExpr parses CASE WHEN c THEN v [WHEN …]… [ELSE e] END.
func (p *parser) caseExpr() (Expr, error) {
	pos := p.tok.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	c := &caseNode{pos: pos}
	for p.tok.kind == tWhen {
		if err := p.advance(); err != nil {
			return nil, err
		}
		cond, err := p.expr(precNone, left)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tThen {
			return nil, p.unexpected("THEN")
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		then, err := p.expr(precNone, left)
		if err != nil {
			return nil, err
		}
		c.when = append(c.when, cond)
		c.then = append(c.then, then)
	}
	if len(c.when) == 0 {
		return nil, p.unexpected("WHEN after CASE")
	}
	c.els = constant(pos, Value{})
	if p.tok.kind == tElse {
		if err := p.advance(); err != nil {
			return nil, err
		}
		e, err := p.expr(precNone, left)
		if err != nil {
			return nil, err
		}
		c.els = e
	}
	if p.tok.kind != tEnd {
		return nil, p.unexpected("WHEN, ELSE or END")
	}
	return c, p.advance()
}

// maxArgs is pgbench's MAX_FARGS; pgbench finds more only when it runs.
const maxArgs = 16

// call parses name(args…) and checks the name and the count.
func (p *parser) call() (Expr, error) {
	t := p.tok
	f := functions[strings.ToLower(t.text)]
	if f == nil {
		return nil, &Error{Pos: t.pos, Msg: "unknown function " + strconv.Quote(t.text), Hint: "the functions are " + FunctionNames()}
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tOp || p.tok.text != "(" {
		return nil, p.unexpected("\"(\" after " + t.text)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	var args []Expr
	if p.tok.kind != tOp || p.tok.text != ")" {
		for {
			e, err := p.expr(precNone, left)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
			if p.tok.kind == tOp && p.tok.text == "," {
				if err := p.advance(); err != nil {
					return nil, err
				}
				continue
			}
			break
		}
		if p.tok.kind != tOp || p.tok.text != ")" {
			return nil, p.unexpected("\",\" or \")\"")
		}
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	n := len(args)
	if n < f.min || n > f.max || n > maxArgs {
		want := f.usage
		if n > maxArgs {
			want = fmt.Sprintf("at most %d arguments", maxArgs)
		}
		what := "wrong number of arguments"
		if f.max > maxArgs && n == 0 {
			what = "at least one argument expected"
		}
		return nil, &Error{Pos: t.pos, Msg: fmt.Sprintf("%s for %s: %d given", what, f.name, n), Hint: "write " + want}
	}
	if f.seeded && n == f.max-1 {
		// the optional seed defaults to the default_seed variable
		args = append(args, &variable{pos: t.pos, name: "default_seed", seed: true})
	}
	return call(t.pos, f, args...), nil
}

// Vars returns the variables e reads, in order of first use, without
// default_seed (which the hash functions and permute read when given no seed).
func Vars(e Expr) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(Expr)
	walk = func(e Expr) {
		switch n := e.(type) {
		case *variable:
			if !n.seed && !seen[n.name] {
				seen[n.name] = true
				out = append(out, n.name)
			}
		case *callNode:
			for _, a := range n.args {
				walk(a)
			}
		case *logic:
			walk(n.a)
			walk(n.b)
		case *caseNode:
			for i := range n.when {
				walk(n.when[i])
				walk(n.then[i])
			}
			walk(n.els)
		}
	}
	walk(e)
	return out
}
