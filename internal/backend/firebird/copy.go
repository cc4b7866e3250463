package firebird

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The limits of one block CopyFrom sends: Firebird 3 lets one statement
// name 255 relations (each INSERT is one), and the message carrying its
// parameters is at most 64 KB (values, null flags and alignment; the
// driver describes each by its Go value, so a string takes its own length).
const (
	copyBlockRows   = 250
	copyBlockParams = 8000     // parameters a block (the message's description counts two per one)
	copyBlockBytes  = 48 << 10 // of values, estimated from above
	copyCommitRows  = 10000    // rows a transaction, when CopyFrom opens its own
	copySlack       = 8        // a value's null flag and alignment, at most
	copyBigValue    = 32 << 10 // a string or byte value this long goes as a blob (its id: 8 bytes)
	copyTimeBytes   = 8        // a TIMESTAMP
	copyNumberBytes = 8        // BIGINT, DOUBLE PRECISION, or less
	// maxBlocks bounds the blocks a connection keeps prepared: TPC-C's
	// load uses about 30 shapes (a table's full block, and its last rows'
	// shorter ones).
	maxBlocks = 64
)

// CopyFrom loads the rows next returns into table's columns, as
// PostgreSQL's COPY does, in as few round trips and compilations as
// Firebird 3 allows: it has no multi-row VALUES and no batch API (that is
// Firebird 4's), so the rows go in blocks, each one EXECUTE BLOCK whose
// input parameters are declared TYPE OF COLUMN and whose body is one INSERT
// a row. The block is prepared once for its number of rows and executed
// again with each block's values: the server compiles it once, where a
// block of literals is parsed and compiled every time (on order_line's
// shape this halves the server's CPU a row; docs/backends/firebird.md).
// The connection keeps its blocks prepared for its next CopyFrom: TPC-C's
// load prepared about 115 blocks a warehouse, their prepares 5.1 s in all
// as the client timed them, when each CopyFrom prepared its own.
//
// In a transaction the caller opened, the rows go in it and the caller
// commits; otherwise CopyFrom commits every copyCommitRows rows, and rolls
// back the rows of the transaction that failed.
func (c *conn) CopyFrom(ctx context.Context, table string, columns []string, next func() ([]any, bool)) (int64, error) {
	if len(columns) == 0 {
		return 0, fmt.Errorf("firebird: copy into %s names no column", table)
	}
	own := c.tx == nil
	if own {
		if err := c.Begin(ctx); err != nil {
			return 0, err
		}
	}
	cp := &copier{c: c, table: table, columns: columns, cols: strings.Join(columns, ","),
		perBlock: max(1, min(copyBlockRows, copyBlockParams/len(columns)))}
	n, err := cp.run(ctx, own, next)
	if own {
		if err != nil {
			_ = c.end(false)
			return n, err
		}
		if err := c.end(true); err != nil {
			return n, err
		}
	}
	return n, err
}

// blockKey names a prepared block: its table, columns (joined) and rows.
type blockKey struct {
	table, cols string
	rows        int
}

// copier is one CopyFrom: the values of the block being filled.
type copier struct {
	c        *conn
	table    string
	columns  []string
	cols     string // columns joined, for blockKey
	perBlock int
	args     []any // the block's values, a row after another
	rows     int   // in args
	bytes    int   // of args, estimated by valueBytes
}

func (cp *copier) run(ctx context.Context, own bool, next func() ([]any, bool)) (int64, error) {
	var done, sinceCommit int64
	for {
		row, ok := next()
		if ok && len(row) != len(cp.columns) {
			return done, fmt.Errorf("firebird: copy into %s: a row of %d values for %d columns", cp.table, len(row), len(cp.columns))
		}
		size := 0
		for _, v := range row {
			size += valueBytes(v)
		}
		if cp.rows > 0 && (!ok || cp.rows == cp.perBlock || cp.bytes+size > copyBlockBytes) {
			if err := ctx.Err(); err != nil {
				return done, err
			}
			if err := cp.flush(); err != nil {
				return done, err
			}
			done += int64(cp.rows)
			sinceCommit += int64(cp.rows)
			cp.args, cp.rows, cp.bytes = cp.args[:0], 0, 0
			if own && sinceCommit >= copyCommitRows && ok {
				if err := cp.c.end(true); err != nil {
					return done, err
				}
				if err := cp.c.Begin(ctx); err != nil {
					return done, err
				}
				sinceCommit = 0
			}
		}
		if !ok {
			return done, nil
		}
		cp.args = append(cp.args, row...)
		cp.rows++
		cp.bytes += size
	}
}

// flush executes the block of the rows in args, prepared on the
// connection at its first use.
func (cp *copier) flush() error {
	key := blockKey{cp.table, cp.cols, cp.rows}
	st, ok := cp.c.blocks[key]
	if !ok {
		if len(cp.c.blocks) >= maxBlocks {
			cp.c.freeBlocks()
		}
		var err error
		if st, err = cp.c.c.PrepareContext(bg, copyBlock(cp.table, cp.columns, cp.rows)); err != nil {
			return classify(err)
		}
		cp.c.blocks[key] = st
	}
	_, err := st.ExecContext(bg, cp.args...)
	return classify(err)
}

// copyBlock is the EXECUTE BLOCK that inserts rows rows into table:
//
//	EXECUTE BLOCK (p0_0 TYPE OF COLUMN t.a = ?, p0_1 TYPE OF COLUMN t.b = ?, p1_0 …)
//	AS BEGIN
//	INSERT INTO t (a, b) VALUES (:p0_0, :p0_1);
//	…
//	END
func copyBlock(table string, columns []string, rows int) string {
	var b strings.Builder
	b.WriteString("EXECUTE BLOCK (")
	for r := range rows {
		for i, col := range columns {
			if r > 0 || i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "p%d_%d TYPE OF COLUMN %s.%s = ?", r, i, table, col)
		}
	}
	b.WriteString(")\nAS BEGIN\n")
	head := "INSERT INTO " + table + " (" + strings.Join(columns, ", ") + ") VALUES ("
	for r := range rows {
		b.WriteString(head)
		for i := range columns {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, ":p%d_%d", r, i)
		}
		b.WriteString(");\n")
	}
	b.WriteString("END")
	return b.String()
}

// valueBytes bounds what v takes in a block's message: the driver sends
// each value as its Go type says (a string as text of its own length).
func valueBytes(v any) int {
	switch x := v.(type) {
	case string:
		return min(len(x), copyBigValue) + 2 + copySlack
	case []byte:
		return min(len(x), copyBigValue) + 2 + copySlack
	case time.Time:
		return copyTimeBytes + copySlack
	default:
		return copyNumberBytes + copySlack
	}
}
