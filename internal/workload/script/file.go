package script

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// File is a workload file (TOML, docs/workload-file.md): what a user's
// workload needs besides its transactions (a schema, data, variables,
// checks, a ledger), so that dbgauge can load, run and judge it on any SQL
// engine.
type File struct {
	Name        string `toml:"name"`
	Description string `toml:"description"`
	// Variables are the scripts' variables with their defaults; -D
	// overrides them, and a -D list makes an axis.
	Variables map[string]any `toml:"variables"`
	Schema    Schema         `toml:"schema"`
	Tables    []Table        `toml:"table"`
	// After runs once the tables are filled: indexes, ANALYZE.
	After        any           `toml:"after"`
	Transactions []Transaction `toml:"transaction"`
	Checks       []CheckDecl   `toml:"check"`
	Ledger       *LedgerDecl   `toml:"ledger"`

	path string // where it was read from
	raw  string // its text, for the positions of inline scripts
}

// Schema is the DDL, the same on every engine unless an engine has its own.
type Schema struct {
	// Drop names the tables dropped (if they exist) before the schema is
	// made, in order: each load starts afresh.
	Drop []string `toml:"drop"`
	// The statements, each a text (split at each ; outside quotes) or a
	// list: SQL on every engine but those with their own.
	SQL      any `toml:"sql"`
	SQLite   any `toml:"sqlite"`
	Postgres any `toml:"postgres"`
	MariaDB  any `toml:"mariadb"`
	Firebird any `toml:"firebird"`
}

// For returns the schema's statements on an engine (a dialect's name).
func (s Schema) For(dialect string) []string {
	own := map[string]any{"sqlite": s.SQLite, "postgres": s.Postgres, "mysql": s.MariaDB, "firebird": s.Firebird}[dialect]
	if st, _ := statements(own); len(st) > 0 {
		return st
	}
	st, _ := statements(s.SQL)
	return st
}

// statements reads SQL statements: a text split at each ; outside quotes,
// or a list of texts.
func statements(v any) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return splitSQL(x), nil
	case []any:
		var out []string
		for _, e := range x {
			str, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("a list of SQL statements holds %v, not a string", e)
			}
			out = append(out, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(str), ";")))
		}
		return out, nil
	}
	return nil, fmt.Errorf("SQL statements are a text or a list of texts, not %v", v)
}

// splitSQL splits text at each ; outside quotes and -- comments.
func splitSQL(text string) []string {
	var out []string
	var b strings.Builder
	quote := byte(0)
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '-' && i+1 < len(text) && text[i+1] == '-':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
			continue
		case c == ';':
			if s := strings.TrimSpace(b.String()); s != "" {
				out = append(out, s)
			}
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		out = append(out, s)
	}
	return out
}

// Table is a table's initial rows, made by generators.
type Table struct {
	Name string `toml:"name"`
	// Rows is how many: a number or an expression ("100000 * :scale").
	Rows any `toml:"rows"`
	// Columns are "NAME = GENERATOR" in the order of the table's insert.
	Columns []string `toml:"columns"`
}

// Transaction is one script of the mix.
type Transaction struct {
	Name   string `toml:"name"`
	Weight *int   `toml:"weight"`
	File   string `toml:"file"`   // a script file, relative to the workload file
	Script string `toml:"script"` // or the script itself
}

// CheckDecl is a consistency check, run after the run: every query of
// Equal returns one value and they must all be equal, or the query of
// Empty must return no row.
type CheckDecl struct {
	Name  string   `toml:"name"`
	Equal []string `toml:"equal"`
	Empty string   `toml:"empty"`
}

// LedgerDecl says which transaction makes which key durable: after a
// commit of Transaction, the row whose Key is the value of the variable
// Variable is in Table. dbgauge crash and --restore-check verify it.
type LedgerDecl struct {
	Transaction string `toml:"transaction"`
	Variable    string `toml:"variable"`
	Table       string `toml:"table"`
	Key         string `toml:"key"`
}

// IsWorkloadFile reports whether a run's argument names a workload file.
func IsWorkloadFile(arg string) bool {
	return strings.HasSuffix(strings.ToLower(arg), ".toml")
}

// ReadFile reads and checks a workload file; errors say file:line:column.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Pos: Pos{File: path}, Msg: fmt.Sprintf("cannot read the workload file: %v", unwrapPath(err)), Hint: "give the path of a .toml workload file"}
	}
	f := &File{path: path, raw: string(b)}
	dec := toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields()
	if err := dec.Decode(f); err != nil {
		return nil, tomlError(path, err)
	}
	return f, f.check()
}

// fields are the keys a workload file may have, for the hint of an unknown one.
const fields = "name, description, [variables], [schema] (drop, sql, sqlite, postgres, mariadb, firebird), " +
	"[[table]] (name, rows, columns), after, [[transaction]] (name, weight, file, script), [[check]] (name, equal, empty), " +
	"[ledger] (transaction, variable, table, key)"

// tomlError turns the TOML library's error into one at file:line:column.
func tomlError(path string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := strict.Errors[0]
		line, col := e.Position()
		return &Error{Pos: Pos{File: path, Line: line, Col: col}, Msg: fmt.Sprintf("unknown key %q", strings.Join(e.Key(), ".")),
			Hint: "a workload file has " + fields}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return &Error{Pos: Pos{File: path, Line: line, Col: col}, Msg: de.Error(), Hint: "see docs/workload-file.md"}
	}
	return &Error{Pos: Pos{File: path, Line: 1, Col: 1}, Msg: err.Error(), Hint: "see docs/workload-file.md"}
}

// at is where text first appears in the file (an inline script, a key's
// value), or the file's first line.
func (f *File) at(text string) Pos {
	i := strings.Index(f.raw, text)
	if i < 0 {
		return Pos{File: f.path, Line: 1, Col: 1}
	}
	line := 1 + strings.Count(f.raw[:i], "\n")
	return Pos{File: f.path, Line: line, Col: i - strings.LastIndexByte(f.raw[:i], '\n')}
}

// bad is an error at the line of text in the file: a value, found
// quoted first ("t" of name = "t", not the t of table), or a key.
func (f *File) bad(text, msg, hint string) error {
	at := f.at(`"` + text + `"`)
	if !strings.Contains(f.raw, `"`+text+`"`) {
		at = f.at(text)
	}
	return &Error{Pos: at, Msg: msg, Hint: hint}
}

// check holds the file to what a run needs, before anything starts.
func (f *File) check() error {
	if len(f.Transactions) == 0 {
		return &Error{Pos: Pos{File: f.path, Line: 1, Col: 1}, Msg: "the workload file has no [[transaction]]",
			Hint: "add one: [[transaction]] name = \"pay\" file = \"pay.sql\" (or script = \"\"\"…\"\"\")"}
	}
	for key, v := range map[string]any{"sql": f.Schema.SQL, "sqlite": f.Schema.SQLite, "postgres": f.Schema.Postgres,
		"mariadb": f.Schema.MariaDB, "firebird": f.Schema.Firebird, "after": f.After} {
		if _, err := statements(v); err != nil {
			return f.bad(key, key+": "+err.Error(), `write sql = """CREATE TABLE …; CREATE INDEX …;""" or a list of statements`)
		}
	}
	for name := range f.Variables {
		if !validName(name) {
			return f.bad(name, fmt.Sprintf("variable %q is not a name", name), "use letters, digits and _, not starting with a digit")
		}
		if _, err := variableText(f.Variables[name]); err != nil {
			return f.bad(name, fmt.Sprintf("variable %q: %v", name, err), "give a number, a boolean or a string")
		}
	}
	names := map[string]bool{}
	for i, t := range f.Transactions {
		key := t.Name
		if key == "" {
			key = "[[transaction]]"
		}
		if !validKind(t.Name) {
			return f.bad(key, fmt.Sprintf("transaction %d: name %q is not a name", i+1, t.Name), "give each [[transaction]] a name of letters, digits, - and _")
		}
		if names[t.Name] {
			return f.bad(t.Name, fmt.Sprintf("two transactions are named %q", t.Name), "give each its own name")
		}
		names[t.Name] = true
		if (t.File == "") == (t.Script == "") {
			return f.bad(t.Name, fmt.Sprintf("transaction %q needs a file or a script, one of them", t.Name), `write file = "pay.sql" or script = """…"""`)
		}
		if t.Weight != nil && *t.Weight < 0 {
			return f.bad(t.Name, fmt.Sprintf("transaction %q: weight %d is below 0", t.Name, *t.Weight), "give a whole number ≥ 0")
		}
	}
	for _, t := range f.Tables {
		if t.Name == "" || len(t.Columns) == 0 {
			return f.bad("[[table]]", "a [[table]] needs a name and its columns", `write name = "t", rows = 1000, columns = ["id = :row", "v = random(1, 100)"]`)
		}
		if t.Rows == nil {
			return f.bad(t.Name, fmt.Sprintf("table %q: how many rows?", t.Name), `write rows = 1000 or rows = "100000 * :scale"`)
		}
	}
	for _, c := range f.Checks {
		if c.Name == "" || (len(c.Equal) < 2) == (c.Empty == "") {
			return f.bad(c.Name, fmt.Sprintf("check %q needs equal (two queries or more) or empty (one query), one of them", c.Name),
				`write equal = ["SELECT sum(a) FROM t", "SELECT sum(b) FROM u"] or empty = "SELECT … WHERE something is wrong"`)
		}
	}
	if l := f.Ledger; l != nil {
		if !names[l.Transaction] {
			return f.bad("[ledger]", fmt.Sprintf("[ledger]: transaction %q is not in the file", l.Transaction), "name one of the [[transaction]]s: "+strings.Join(slices.Sorted(maps.Keys(names)), ", "))
		}
		if !validName(l.Variable) || l.Table == "" || l.Key == "" {
			return f.bad("[ledger]", "[ledger] needs transaction, variable, table and key", `write transaction = "add", variable = "id", table = "items", key = "id"`)
		}
	}
	return nil
}

// validKind reports whether s can name a unit kind.
func validKind(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// variableText is a variable's default as -D would give it.
func variableText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", fmt.Errorf("a %T is not a variable's value", v)
}

// Scripts reads the file's transactions as scripts: a file relative to
// the workload file, or inline (its errors at the workload file's lines).
func (f *File) Scripts() ([]*Script, error) {
	var out []*Script
	for _, t := range f.Transactions {
		var s *Script
		if t.File != "" {
			path := t.File
			if !filepath.IsAbs(path) {
				path = filepath.Join(filepath.Dir(f.path), path)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, f.bad(t.File, fmt.Sprintf("transaction %q: %v", t.Name, unwrapPath(err)), "give a script's path, relative to the workload file")
			}
			if s, err = ParseScript(path, string(b)); err != nil {
				return nil, err
			}
		} else {
			at := f.at(t.Script)
			// Parse as if the script's text started at its place in the file.
			pad := strings.Repeat("\n", at.Line-1)
			var err error
			if s, err = ParseScript(f.path, pad+t.Script); err != nil {
				return nil, err
			}
		}
		s.Name, s.Weight = t.Name, 1
		if t.Weight != nil {
			s.Weight = *t.Weight
		}
		out = append(out, s)
	}
	return out, nil
}

// Defaults are the variables' defaults as text, as -D gives them.
func (f *File) Defaults() map[string]string {
	out := map[string]string{}
	for k, v := range f.Variables {
		out[k], _ = variableText(v)
	}
	return out
}
