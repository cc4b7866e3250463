package script

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A Script is one pgbench script read: its commands in order, and its
// weight in the mix (-f FILE@WEIGHT).
type Script struct {
	Name     string
	Weight   int
	Commands []Command
}

// CmdKind is what a command of a script does.
type CmdKind uint8

// The kinds of command pgbench's language has that dbgauge runs.
const (
	SQL   CmdKind = iota // an SQL command, its :variables bound as parameters
	Set                  // \set VAR EXPR
	Sleep                // \sleep N [us|ms|s], N a number or a :variable
	If                   // \if EXPR
	Elif                 // \elif EXPR
	Else                 // \else
	Endif                // \endif
)

// Command is one command of a script.
type Command struct {
	Kind CmdKind
	Pos  Pos // where it starts
	// SQL: the text with each :variable replaced by a ? placeholder, and
	// the variables' names in placeholder order.
	SQL    string
	Params []string
	// Gset and Aset: the SQL command ended in \gset or \aset: its result
	// row's columns (every row's, for \aset) are stored into variables
	// named Prefix+column.
	Gset, Aset bool
	Prefix     string
	// Set, If, Elif: the variable set and the expression.
	Var  string
	Expr Expr
	// Sleep: a fixed time, or the variable holding it, in Unit.
	SleepVar string
	SleepN   int64
	Unit     time.Duration
	// If, Elif, Else: where to go when the branch is not taken (the next
	// Elif, Else or the Endif), and, for every branch, where its Endif is.
	Next, End int
}

// ParseWeighted reads -f's argument: a file, optionally @ and its weight
// (pgbench: a whole number ≥ 0; 1 when not given).
func ParseWeighted(arg string) (file string, weight int, err error) {
	i := strings.LastIndexByte(arg, '@')
	if i < 0 {
		return arg, 1, nil
	}
	w, err := strconv.Atoi(arg[i+1:])
	if err != nil || w < 0 || arg[:i] == "" {
		return "", 0, &Error{Pos: Pos{File: arg}, Msg: fmt.Sprintf("-f %s: the weight %q is not a whole number ≥ 0", arg, arg[i+1:]),
			Hint: "write -f FILE@WEIGHT, e.g. -f select.sql@9"}
	}
	return arg[:i], w, nil
}

// ParseScript reads a script in pgbench's language (PostgreSQL's pgbench
// documentation, "Custom Scripts"): SQL commands ending with ; (over several
// lines if need be), meta-commands starting with \ and ending with the
// line (a \ at its end continues it), -- comments. Errors say
// file:line:column, what is wrong and what to write instead.
func ParseScript(file, text string) (*Script, error) {
	r := &reader{file: file, text: text, line: 1, col: 1}
	s := &Script{Name: file, Weight: 1}
	var open []int // the If, Elif and Else commands of the \if blocks not yet closed
	for {
		r.skipBlank()
		if r.i >= len(r.text) {
			break
		}
		var c Command
		var err error
		if r.text[r.i] == '\\' {
			c, err = r.meta()
		} else {
			c, err = r.sql()
		}
		if err != nil {
			return nil, err
		}
		if c.Kind == SQL && c.SQL == "" {
			continue // a lone ;
		}
		n := len(s.Commands)
		switch c.Kind {
		case If:
			open = append(open, n)
		case Elif, Else, Endif:
			if len(open) == 0 {
				return nil, &Error{Pos: c.Pos, Msg: fmt.Sprintf("\\%s without \\if", kindName[c.Kind]),
					Hint: "open the block with \\if EXPR, or remove this line"}
			}
			prev := open[len(open)-1]
			if c.Kind != Endif && s.Commands[prev].Kind == Else {
				return nil, &Error{Pos: c.Pos, Msg: fmt.Sprintf("\\%s after \\else", kindName[c.Kind]),
					Hint: "close the block with \\endif first"}
			}
			if c.Kind == Endif {
				// Every branch of the block learns where it ends.
				for len(open) > 0 {
					b := open[len(open)-1]
					open = open[:len(open)-1]
					if s.Commands[b].Next == 0 {
						s.Commands[b].Next = n
					}
					s.Commands[b].End = n
					if s.Commands[b].Kind == If {
						break
					}
				}
			} else {
				s.Commands[prev].Next = n
				open = append(open, n)
			}
		}
		s.Commands = append(s.Commands, c)
	}
	if len(open) > 0 {
		first := open[0]
		for i := len(open) - 1; i >= 0; i-- {
			if s.Commands[open[i]].Kind == If {
				first = open[i]
				break
			}
		}
		return nil, &Error{Pos: s.Commands[first].Pos, Msg: "\\if without \\endif", Hint: "close the block with \\endif"}
	}
	if len(s.Commands) == 0 {
		return nil, &Error{Pos: Pos{File: file, Line: 1, Col: 1}, Msg: "the script has no command",
			Hint: "write at least one SQL command ending with ;"}
	}
	return s, nil
}

var kindName = map[CmdKind]string{SQL: "sql", Set: "set", Sleep: "sleep", If: "if", Elif: "elif", Else: "else", Endif: "endif"}

// reader walks a script's text, keeping the line and column.
type reader struct {
	file      string
	text      string
	i         int
	line, col int
}

func (r *reader) pos() Pos { return Pos{File: r.file, Line: r.line, Col: r.col} }

func (r *reader) step() {
	if r.text[r.i] == '\n' {
		r.line, r.col = r.line+1, 1
	} else {
		r.col++
	}
	r.i++
}

// skipBlank skips white space and -- comments between commands.
func (r *reader) skipBlank() {
	for r.i < len(r.text) {
		switch c := r.text[r.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			r.step()
		case strings.HasPrefix(r.text[r.i:], "--"):
			for r.i < len(r.text) && r.text[r.i] != '\n' {
				r.step()
			}
		default:
			return
		}
	}
}

// meta reads a meta-command to the end of its line (a \ at a line's end
// continues it).
func (r *reader) meta() (Command, error) {
	at := r.pos()
	r.step() // the backslash
	var b strings.Builder
	var cols []Pos // where each byte of b was
	for r.i < len(r.text) && r.text[r.i] != '\n' {
		if r.text[r.i] == '\\' && r.i+1 < len(r.text) && r.text[r.i+1] == '\n' {
			r.step()
			r.step()
			b.WriteByte(' ')
			cols = append(cols, r.pos())
			continue
		}
		cols = append(cols, r.pos())
		b.WriteByte(r.text[r.i])
		r.step()
	}
	line := strings.TrimRight(b.String(), " \t\r")
	j := 0
	for j < len(line) && isAlpha(line[j]) {
		j++
	}
	name, rest := line[:j], line[j:]
	// at returns where byte off of line was in the script.
	lineAt := func(off int) Pos {
		if off < len(cols) {
			return cols[off]
		}
		return at
	}
	restAt := func() Pos { return lineAt(len(line) - len(strings.TrimLeft(rest, " \t"))) }
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		name = line
	}
	rest = strings.TrimSpace(rest)
	c := Command{Pos: at}
	switch strings.ToLower(name) {
	case "set":
		v, e, ok := strings.Cut(rest, " ")
		if !ok || !validName(v) || strings.TrimSpace(e) == "" {
			return c, &Error{Pos: at, Msg: "\\set needs a variable and an expression", Hint: "write \\set aid random(1, 100000 * :scale)"}
		}
		e = strings.TrimSpace(e)
		expr, err := ParseExpr(e, lineAt(len(line)-len(e)))
		if err != nil {
			return c, err
		}
		c.Kind, c.Var, c.Expr = Set, v, expr
	case "if", "elif":
		c.Kind = If
		if strings.EqualFold(name, "elif") {
			c.Kind = Elif
		}
		if rest == "" {
			return c, &Error{Pos: at, Msg: "\\" + name + " needs an expression", Hint: "write \\" + name + " :aid > 100"}
		}
		expr, err := ParseExpr(rest, restAt())
		if err != nil {
			return c, err
		}
		c.Expr = expr
	case "else", "endif":
		c.Kind = Else
		if strings.EqualFold(name, "endif") {
			c.Kind = Endif
		}
		if rest != "" {
			return c, &Error{Pos: restAt(), Msg: "\\" + name + " takes no argument", Hint: "write \\" + name + " alone on its line"}
		}
	case "sleep":
		return r.sleep(c, rest, restAt())
	case "gset", "aset":
		return c, &Error{Pos: at, Msg: "\\" + name + " ends an SQL command", Hint: "write it in place of the command's ;, e.g. SELECT abalance FROM pgbench_accounts WHERE aid = :aid \\gset"}
	case "setshell", "shell", "startpipeline", "endpipeline", "syncpipeline":
		return c, &Error{Pos: at, Msg: "\\" + name + " is pgbench's, and dbgauge does not run it",
			Hint: "compute the value with \\set, or run the command outside the benchmark"}
	default:
		return c, &Error{Pos: at, Msg: fmt.Sprintf("unknown meta-command \\%s", name),
			Hint: "use \\set, \\sleep, \\if, \\elif, \\else, \\endif, or end an SQL command with \\gset or \\aset"}
	}
	return c, nil
}

// sleep reads \sleep's arguments: a whole number or a :variable, and a unit.
func (r *reader) sleep(c Command, rest string, at Pos) (Command, error) {
	c.Kind = Sleep
	f := strings.Fields(rest)
	if len(f) == 0 || len(f) > 2 {
		return c, &Error{Pos: at, Msg: "\\sleep needs a time", Hint: "write \\sleep 10 ms (us, ms or s; s when not given)"}
	}
	c.Unit = time.Second
	if len(f) == 2 {
		u, ok := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[strings.ToLower(f[1])]
		if !ok {
			return c, &Error{Pos: at, Msg: fmt.Sprintf("\\sleep: unknown unit %q", f[1]), Hint: "use us, ms or s"}
		}
		c.Unit = u
	}
	if v, ok := strings.CutPrefix(f[0], ":"); ok {
		if !validName(v) {
			return c, &Error{Pos: at, Msg: fmt.Sprintf("\\sleep: %q is not a variable", f[0]), Hint: "write \\sleep :delay ms"}
		}
		c.SleepVar = v
		return c, nil
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return c, &Error{Pos: at, Msg: fmt.Sprintf("\\sleep: %q is not a whole number ≥ 0 or a :variable", f[0]), Hint: "write \\sleep 10 ms"}
	}
	c.SleepN = n
	return c, nil
}

// sql reads an SQL command up to its ; (outside quotes and comments) or its
// closing \gset or \aset, binding each :variable as a parameter. A ::
// (a cast) and a : not followed by a name stay as written.
func (r *reader) sql() (Command, error) {
	c := Command{Kind: SQL, Pos: r.pos()}
	var b strings.Builder
	for r.i < len(r.text) {
		ch := r.text[r.i]
		switch {
		case ch == ';':
			r.step()
			c.SQL = strings.TrimSpace(b.String())
			return c, nil
		case ch == '\'' || ch == '"':
			start := r.pos()
			b.WriteByte(ch)
			r.step()
			for {
				if r.i >= len(r.text) {
					return c, &Error{Pos: start, Msg: "unterminated quoted text", Hint: fmt.Sprintf("close it with %c", ch)}
				}
				d := r.text[r.i]
				b.WriteByte(d)
				r.step()
				if d == ch {
					if r.i < len(r.text) && r.text[r.i] == ch { // a doubled quote
						b.WriteByte(ch)
						r.step()
						continue
					}
					break
				}
			}
		case strings.HasPrefix(r.text[r.i:], "--"):
			for r.i < len(r.text) && r.text[r.i] != '\n' {
				r.step()
			}
		case strings.HasPrefix(r.text[r.i:], "/*"):
			start := r.pos()
			end := strings.Index(r.text[r.i+2:], "*/")
			if end < 0 {
				return c, &Error{Pos: start, Msg: "unterminated /* comment", Hint: "close it with */"}
			}
			for n := end + 4; n > 0; n-- {
				r.step()
			}
			b.WriteByte(' ')
		case ch == ':' && r.i+1 < len(r.text) && r.text[r.i+1] == ':':
			b.WriteString("::")
			r.step()
			r.step()
		case ch == ':' && r.i+1 < len(r.text) && isAlpha(r.text[r.i+1]):
			r.step()
			j := r.i
			for j < len(r.text) && isAlnum(r.text[j]) {
				j++
			}
			c.Params = append(c.Params, r.text[r.i:j])
			b.WriteByte('?')
			for r.i < j {
				r.step()
			}
		case ch == '\\':
			at := r.pos()
			j := r.i + 1
			for j < len(r.text) && isAlpha(r.text[j]) {
				j++
			}
			switch name := strings.ToLower(r.text[r.i+1 : j]); name {
			case "gset", "aset":
				for r.i < j {
					r.step()
				}
				rest := r.restOfLine()
				if rest != "" && !validName(rest) {
					return c, &Error{Pos: at, Msg: fmt.Sprintf("\\%s: %q is not a variable prefix", name, rest), Hint: "write \\" + name + " or \\" + name + " p_"}
				}
				c.Gset, c.Aset, c.Prefix = name == "gset", name == "aset", rest
				c.SQL = strings.TrimSpace(b.String())
				if c.SQL == "" {
					return c, &Error{Pos: at, Msg: "\\" + name + " ends an SQL command, and there is none before it",
						Hint: "write SELECT … \\" + name}
				}
				return c, nil
			default:
				return c, &Error{Pos: at, Msg: "a meta-command inside an SQL command", Hint: "end the command with ; before it"}
			}
		default:
			b.WriteByte(ch)
			r.step()
		}
	}
	c.SQL = strings.TrimSpace(b.String())
	if c.SQL == "" {
		return c, nil
	}
	return c, &Error{Pos: c.Pos, Msg: "the SQL command does not end with ;", Hint: "end it with ; (or \\gset)"}
}

// restOfLine reads the rest of the line, trimmed, and steps past it.
func (r *reader) restOfLine() string {
	start := r.i
	for r.i < len(r.text) && r.text[r.i] != '\n' {
		r.step()
	}
	return strings.TrimSpace(r.text[start:r.i])
}

// validName reports whether s is a variable's name (pgbench: letters,
// digits and _, not starting with a digit).
func validName(s string) bool {
	if s == "" || !isAlpha(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}
