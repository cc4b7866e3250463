package workload

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// rowsPerInsert is how many rows one multi-row INSERT carries, fewer when
// the columns would pass the engines' limit on parameters in a statement.
const (
	rowsPerInsert = 400
	paramsPerStmt = 30000
)

// InsertRows fills table's columns with n rows, row i (from 1) made by
// row into dst, by the engine's fastest path: COPY where the connection has
// it (backend.Copier: PostgreSQL's COPY, Firebird's prepared blocks),
// multi-row INSERTs elsewhere. It commits as it goes; done hears how many
// rows are in.
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
	commitEvery := int64(per) * 100 // rows a transaction: 100 statements
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

// Firebird 3's limits on one EXECUTE BLOCK of InsertBatch: its text (64
// KB), and the relations one statement may name (255 contexts: each INSERT
// is one).
const (
	blockBytes = 60000
	blockRows  = 250
)

// firebirdValues writes a row's values as Firebird literals, comma
// separated; false when one has no literal form here.
func firebirdValues(vals []any) (string, bool) {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteString(", ")
		}
		switch x := v.(type) {
		case nil:
			b.WriteString("NULL")
		case int:
			b.WriteString(strconv.Itoa(x))
		case int64:
			b.WriteString(strconv.FormatInt(x, 10))
		case int32:
			b.WriteString(strconv.FormatInt(int64(x), 10))
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return "", false
			}
			b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
		case bool:
			b.WriteString(strings.ToUpper(strconv.FormatBool(x)))
		case string:
			// The Firebird connection rewrites LIMIT and % in a statement's
			// text (ExecScript): a literal holding either goes as a parameter.
			if strings.ContainsRune(x, '%') || strings.Contains(strings.ToUpper(x), "LIMIT") {
				return "", false
			}
			b.WriteString("'" + strings.ReplaceAll(x, "'", "''") + "'")
		case time.Time:
			// Firebird keeps a timestamp to a ten-thousandth of a second.
			b.WriteString("TIMESTAMP '" + x.Format("2006-01-02 15:04:05.0000") + "'")
		default:
			return "", false
		}
	}
	return b.String(), true
}

// batchSizes are the row counts of the multi-row INSERTs InsertBatch sends:
// a few statements per table, each prepared once per connection.
var batchSizes = []int{64, 16, 4, 1}

// batchStmts keeps one statement per text, so that a connection prepares
// each once (--prepare once).
var batchStmts sync.Map // string → *backend.Stmt

func batchStmt(q string) *backend.Stmt {
	if st, ok := batchStmts.Load(q); ok {
		return st.(*backend.Stmt)
	}
	st, _ := batchStmts.LoadOrStore(q, &backend.Stmt{SQL: q})
	return st.(*backend.Stmt)
}

// InsertBatch inserts rows into table's columns inside the transaction
// open on c, in few round trips: multi-row INSERTs of 64, 16, 4 and 1
// rows, or on Firebird (no multi-row VALUES) EXECUTE BLOCKs of one-row
// INSERTs with the values as literals (a value with no literal form sends
// its rows one by one through a prepared INSERT). It does not commit.
//
//	INSERT INTO t (a, b) VALUES (?, ?), (?, ?), …
func InsertBatch(ctx context.Context, c backend.Conn, d backend.Dialect, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	head := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES "
	if d.Name == "firebird" {
		var b strings.Builder
		n := 0
		flush := func() error {
			if n == 0 {
				return nil
			}
			err := c.ExecScript(ctx, "EXECUTE BLOCK AS BEGIN\n"+b.String()+"END")
			b.Reset()
			n = 0
			return err
		}
		for _, r := range rows {
			line, ok := firebirdValues(r)
			if !ok {
				if err := flush(); err != nil {
					return err
				}
				if _, err := c.Exec(ctx, batchStmt(head+one), r...); err != nil {
					return err
				}
				continue
			}
			if b.Len()+len(head)+len(line)+8 > blockBytes || n == blockRows {
				if err := flush(); err != nil {
					return err
				}
			}
			b.WriteString(head + "(" + line + ");\n")
			n++
		}
		return flush()
	}
	args := make([]any, 0, batchSizes[0]*len(cols))
	for len(rows) > 0 {
		size := 1
		for _, s := range batchSizes {
			if s <= len(rows) && s*len(cols) <= paramsPerStmt {
				size = s
				break
			}
		}
		args = args[:0]
		for _, r := range rows[:size] {
			args = append(args, r...)
		}
		if _, err := c.Exec(ctx, batchStmt(head+strings.TrimSuffix(strings.Repeat(one+", ", size), ", ")), args...); err != nil {
			return err
		}
		rows = rows[size:]
	}
	return nil
}
