package script

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Check runs a workload file's checks: each one a named consistency check
// of the result, failing the run when it does not hold.
func (w *scripts) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	if w.file == nil || len(w.file.Checks) == 0 {
		return nil, nil
	}
	c, err := workload.SQLConnOf(ctx, "script", db)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var out []workload.Check
	for _, d := range w.file.Checks {
		ck, err := runCheck(ctx, c, d)
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", d.Name, err)
		}
		out = append(out, ck)
	}
	return out, nil
}

// runCheck runs one check: the values of Equal's queries all equal, or no
// row from Empty's.
func runCheck(ctx context.Context, c backend.Conn, d CheckDecl) (workload.Check, error) {
	ck := workload.Check{Name: d.Name}
	if d.Empty != "" {
		rows, first := 0, ""
		err := c.QueryAny(ctx, &backend.Stmt{SQL: d.Empty}, nil, func(cols []string, vals []any) error {
			rows++
			if rows == 1 {
				parts := make([]string, len(cols))
				for i, col := range cols {
					parts[i] = fmt.Sprintf("%s=%v", col, vals[i])
				}
				first = strings.Join(parts, " ")
			}
			return nil
		})
		if err != nil {
			return ck, err
		}
		ck.OK = rows == 0
		ck.Detail = "no row, as it should"
		if rows > 0 {
			ck.Detail = fmt.Sprintf("%d rows where none should be; the first: %s", rows, first)
		}
		return ck, nil
	}
	vals := make([]slot, len(d.Equal))
	texts := make([]string, len(d.Equal))
	ck.OK = true
	for i, q := range d.Equal {
		rows := 0
		err := c.QueryAny(ctx, &backend.Stmt{SQL: q}, nil, func(_ []string, v []any) error {
			rows++
			if rows == 1 && len(v) > 0 {
				vals[i] = slotOf(v[0])
			}
			return nil
		})
		if err != nil {
			return ck, err
		}
		if rows != 1 {
			return ck, fmt.Errorf("%q returned %d rows, want one value", q, rows)
		}
		texts[i] = vals[i].String()
		if i > 0 && !same(vals[0], vals[i]) {
			ck.OK = false
		}
	}
	ck.Detail = "values " + strings.Join(texts, ", ")
	return ck, nil
}

// String is the variable's text, as a check's detail shows it.
func (s slot) String() string {
	if s.isText {
		return s.text
	}
	return s.v.String()
}

// same compares two values as numbers when both are numbers (a sum is an
// integer on one engine and a decimal on another), else as text.
func same(a, b slot) bool {
	va, ea := valueOf(a)
	vb, eb := valueOf(b)
	if ea == nil && eb == nil && va.kind != Null && vb.kind != Null && va.kind != Bool && vb.kind != Bool {
		if va.kind == Int && vb.kind == Int {
			return va.i == vb.i
		}
		x, _ := va.AsDouble()
		y, _ := vb.AsDouble()
		return x == y
	}
	return a.String() == b.String()
}

func valueOf(s slot) (Value, error) {
	if s.isText {
		return ParseValue(s.text)
	}
	return s.v, nil
}
