package workload

import (
	"context"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// rowsPerInsert is how many rows one multi-row INSERT carries, fewer when
// the columns would pass the engines' limit on parameters in a statement.
const (
	rowsPerInsert  = 400
	paramsPerStmt  = 30000
	rowsPerCommitF = 10000 // Firebird: rows inserted one by one per transaction
)

// InsertRows fills table's columns with n rows, row i (from 1) made by
// row into dst, by the engine's fastest path: COPY where the connection has
// it (backend.Copier), multi-row INSERTs elsewhere, a prepared one-row
// INSERT on Firebird (which has no multi-row VALUES). It commits as it
// goes; done hears how many rows are in.
func InsertRows(ctx context.Context, c backend.Conn, d backend.Dialect, table string, cols []string, n int64,
	row func(i int64, dst []any) error, done func(rows int64)) error {
	if done == nil {
		done = func(int64) {}
	}
	dst := make([]any, len(cols))
	if cp, ok := c.(backend.Copier); ok {
		var i int64
		var rowErr error
		_, err := cp.CopyFrom(ctx, table, cols, func() ([]any, bool) {
			if i == n || rowErr != nil {
				return nil, false
			}
			i++
			if rowErr = row(i, dst); rowErr != nil {
				return nil, false
			}
			if i%10000 == 0 {
				done(i)
			}
			return dst, true
		})
		if rowErr != nil {
			return rowErr
		}
		done(i)
		return err
	}
	per := max(1, min(rowsPerInsert, paramsPerStmt/max(1, len(cols))))
	if d.Name == "firebird" {
		per = 1
	}
	stmts := map[int]*backend.Stmt{}
	stmt := func(rows int) *backend.Stmt {
		if st, ok := stmts[rows]; ok {
			return st
		}
		one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
		st := &backend.Stmt{SQL: "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " +
			strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")}
		stmts[rows] = st
		return st
	}
	commitEvery := int64(rowsPerCommitF)
	if per > 1 {
		commitEvery = int64(per) * 100
	}
	args := make([]any, 0, per*len(cols))
	for from := int64(1); from <= n; {
		to := min(n, from+commitEvery-1)
		err := InSQLTx(ctx, c, func() error {
			for i := from; i <= to; {
				rows := int(min(int64(per), to-i+1))
				args = args[:0]
				for k := 0; k < rows; k++ {
					if err := row(i+int64(k), dst); err != nil {
						return err
					}
					args = append(args, dst...)
				}
				if _, err := c.Exec(ctx, stmt(rows), args...); err != nil {
					return err
				}
				i += int64(rows)
			}
			return nil
		})
		if err != nil {
			return err
		}
		done(to)
		from = to + 1
	}
	return nil
}
