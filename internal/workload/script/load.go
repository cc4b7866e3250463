package script

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// column is one column of a [[table]] and how its values are made.
type column struct {
	name string
	expr Expr   // a pgbench expression of :row and the variables
	lit  string // or a 'literal'
	isLit,
	chars bool // or chars(lo[, hi]): that many random letters and digits
	lo, hi int64
}

// table is a [[table]] ready to fill.
type table struct {
	name string
	rows Expr
	cols []column
}

// parseTables reads the generators of the file's tables.
func (f *File) parseTables() ([]table, error) {
	var out []table
	for _, t := range f.Tables {
		tb := table{name: t.Name}
		rows := ""
		switch r := t.Rows.(type) {
		case int64:
			rows = strconv.FormatInt(r, 10)
		case string:
			rows = r
		default:
			return nil, f.bad(t.Name, fmt.Sprintf("table %q: rows = %v is not a number or an expression", t.Name, t.Rows), `write rows = 1000 or rows = "100000 * :scale"`)
		}
		var err error
		if tb.rows, err = ParseExpr(rows, f.at(rows)); err != nil {
			return nil, err
		}
		for _, c := range t.Columns {
			col, err := f.parseColumn(c)
			if err != nil {
				return nil, err
			}
			tb.cols = append(tb.cols, col)
		}
		out = append(out, tb)
	}
	return out, nil
}

// parseColumn reads "NAME = GENERATOR".
func (f *File) parseColumn(decl string) (column, error) {
	name, gen, ok := strings.Cut(decl, "=")
	name, gen = strings.TrimSpace(name), strings.TrimSpace(gen)
	if !ok || !validName(name) || gen == "" {
		return column{}, f.bad(decl, fmt.Sprintf("column %q is not NAME = GENERATOR", decl),
			`write "id = :row", "v = random(1, 1000)", "note = chars(20, 40)" or "kind = 'new'"`)
	}
	c := column{name: name}
	at := f.at(gen)
	switch {
	case strings.HasPrefix(gen, "'") && strings.HasSuffix(gen, "'") && len(gen) >= 2:
		c.isLit, c.lit = true, strings.ReplaceAll(gen[1:len(gen)-1], "''", "'")
	case strings.HasPrefix(strings.ToLower(gen), "chars(") && strings.HasSuffix(gen, ")"):
		args := strings.Split(gen[len("chars("):len(gen)-1], ",")
		var n []int64
		for _, a := range args {
			v, err := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
			if err != nil || v < 0 {
				return c, &Error{Pos: at, Msg: fmt.Sprintf("column %s: %q takes whole numbers ≥ 0", name, gen), Hint: "write chars(20) or chars(10, 40)"}
			}
			n = append(n, v)
		}
		if len(n) == 1 {
			n = append(n, n[0])
		}
		if len(n) != 2 || n[0] > n[1] {
			return c, &Error{Pos: at, Msg: fmt.Sprintf("column %s: %q needs a length or a range lo ≤ hi", name, gen), Hint: "write chars(20) or chars(10, 40)"}
		}
		c.chars, c.lo, c.hi = true, n[0], n[1]
	default:
		e, err := ParseExpr(gen, at)
		if err != nil {
			return c, err
		}
		c.expr = e
	}
	return c, nil
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// value makes the column's value of the row env.Var("row") holds.
func (c *column) value(env *Client, buf *[]byte) (any, error) {
	switch {
	case c.isLit:
		return c.lit, nil
	case c.chars:
		r := env.Rand()
		n := c.lo + r.Int64N(c.hi-c.lo+1)
		b := (*buf)[:0]
		for range n {
			b = append(b, alnum[r.IntN(len(alnum))])
		}
		*buf = b
		return string(b), nil
	}
	v, err := c.expr.Eval(env)
	if err != nil {
		return nil, err
	}
	if v.Kind() == Double {
		return v.d, nil // a generated double as it is, COPY's binary float8 too: not a script's parameter
	}
	return slot{v: v}.arg(), nil
}

// fill loads the file's schema and tables, then runs its after statements.
func (w *scripts) fill(ctx context.Context, c backend.Conn, d backend.Dialect) (map[string]string, error) {
	f := w.file
	facts := map[string]string{}
	for _, t := range f.Schema.Drop {
		if err := c.ExecScript(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return nil, fmt.Errorf("drop %s: %w", t, err)
		}
	}
	for _, q := range f.Schema.For(d.Name) {
		if err := c.ExecScript(ctx, q); err != nil {
			return nil, fmt.Errorf("schema: %s: %w", firstLine(q), err)
		}
	}
	env := w.prog.NewClient(nil, w.common.Commit, 0, w.cfg.Scale, int64(w.common.Seed), rand.New(rand.NewPCG(w.common.Seed, 0x10ad)))
	sizes := make([]int64, len(w.tables))
	var total int64
	for i, t := range w.tables {
		v, err := t.rows.Eval(env)
		if err != nil {
			return nil, fmt.Errorf("table %s: rows: %w", t.name, err)
		}
		n, err := v.AsInt()
		if err != nil || n < 0 {
			return nil, fmt.Errorf("table %s: rows = %s is not a whole number ≥ 0", t.name, v)
		}
		sizes[i], total = n, total+n
	}
	var before int64 // rows of the tables filled already
	for i, t := range w.tables {
		cols := make([]string, len(t.cols))
		for k, col := range t.cols {
			cols[k] = col.name
		}
		var buf []byte
		row := func(r int64, dst []any) error {
			env.set("row", slot{v: IntValue(r)})
			for k := range t.cols {
				v, err := t.cols[k].value(env, &buf)
				if err != nil {
					return fmt.Errorf("table %s, row %d, column %s: %w", t.name, r, t.cols[k].name, err)
				}
				dst[k] = v
			}
			return nil
		}
		done := func(rows int64) {
			if p := w.progress; p != nil {
				p(before+rows, total)
			}
		}
		if err := workload.InsertRows(ctx, c, d, t.name, cols, sizes[i], row, done); err != nil {
			return nil, fmt.Errorf("table %s: %w", t.name, err)
		}
		before += sizes[i]
		facts[t.name] = strconv.FormatInt(sizes[i], 10) + " rows"
	}
	delete(env.vars, "row")
	after, _ := statements(f.After)
	for _, q := range after {
		if err := c.ExecScript(ctx, q); err != nil {
			return nil, fmt.Errorf("after: %s: %w", firstLine(q), err)
		}
	}
	return facts, nil
}

func firstLine(q string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(q), "\n")
	return l
}
