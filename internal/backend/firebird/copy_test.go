package firebird

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

// TestCopyFrom: the rows CopyFrom sends in prepared blocks read back as
// their values, of every type a workload loads (a money value as a float is
// rounded to its column's scale, not truncated; a string with a quote, a
// percent sign or LIMIT is data, not SQL), across blocks, a short last
// block, and the transactions it commits itself.
func TestCopyFrom(t *testing.T) {
	ctx := context.Background()
	c := backendtest.Conn(t, ctx, openManaged(t)).(*conn)
	backendtest.Must(t, c.ExecScript(ctx, `CREATE TABLE cp (id INTEGER NOT NULL PRIMARY KEY, big BIGINT, money DECIMAL(12,2),
		rate DECIMAL(4,4), name VARCHAR(40), code CHAR(2), stamp TIMESTAMP, flag BOOLEAN, raw VARCHAR(20) CHARACTER SET OCTETS)`))
	at := time.Date(2026, 11, 29, 15, 4, 5, 123400000, time.UTC)
	cols := []string{"id", "big", "money", "rate", "name", "code", "stamp", "flag", "raw"}
	const n = 23456 // three transactions of its own, the last block short
	names := []string{"it's", "100% LIMIT 1", "plain", ""}
	moneys := []float64{12.34, 0.29, 1.15, 99999.99, -4.35}
	i := 0
	got, err := c.CopyFrom(ctx, "cp", cols, func() ([]any, bool) {
		if i == n {
			return nil, false
		}
		i++
		var name any = names[i%len(names)]
		if i%7 == 0 {
			name = nil
		}
		return []any{i, int64(i) << 33, moneys[i%len(moneys)], 0.1234, name, "ab", at, i%2 == 0, []byte{0, byte(i), 0xff}}, true
	})
	if err != nil || got != n {
		t.Fatalf("CopyFrom: %d rows, %v; want %d", got, err, n)
	}
	if c.tx != nil {
		t.Fatal("CopyFrom left its own transaction open")
	}
	var count int64
	backendtest.Must(t, c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT count(*) FROM cp"}, nil, &count))
	if count != n {
		t.Fatalf("%d rows in the table, want %d", count, n)
	}
	for k, m := range moneys {
		var s string
		backendtest.Must(t, c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT CAST(money AS VARCHAR(20)) FROM cp WHERE id = ?"}, []any{len(moneys) + k}, &s))
		if want := fmt.Sprintf("%.2f", m); s != want {
			t.Errorf("money %v read back %s", m, s)
		}
	}
	// Every row's values, as read back, against what was sent.
	seen := 0
	backendtest.Must(t, c.Query(ctx, &backend.Stmt{SQL: "SELECT id, big, name, code, flag, raw FROM cp"}, nil, func(scan func(...any) error) error {
		var id int
		var big int64
		var name *string
		var code string
		var flag bool
		var raw []byte
		if err := scan(&id, &big, &name, &code, &flag, &raw); err != nil {
			return err
		}
		seen++
		wantName := names[id%len(names)]
		switch {
		case big != int64(id)<<33, code != "ab", flag != (id%2 == 0), string(raw) != string([]byte{0, byte(id), 0xff}):
			t.Errorf("row %d read back %d %q %v %x", id, big, code, flag, raw)
		case id%7 == 0 && name != nil:
			t.Errorf("row %d: name %q, sent NULL", id, *name)
		case id%7 != 0 && (name == nil || *name != wantName):
			t.Errorf("row %d: name %v, sent %q", id, name, wantName)
		}
		return nil
	}))
	if seen != n {
		t.Fatalf("read %d rows back, want %d", seen, n)
	}
	var rate string
	backendtest.Must(t, c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT CAST(rate AS VARCHAR(10)) FROM cp WHERE id = 1"}, nil, &rate))
	if rate != "0.1234" {
		t.Errorf("rate 0.1234 read back %s", rate)
	}
	var stamp time.Time
	backendtest.Must(t, c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT stamp FROM cp WHERE id = 1"}, nil, &stamp))
	if !stamp.Equal(at) && stamp.Format("2006-01-02 15:04:05.0000") != at.Format("2006-01-02 15:04:05.0000") {
		t.Errorf("timestamp read back %v, sent %v", stamp, at)
	}
}

// TestCopyFromInATransaction: in a transaction the caller opened, the rows
// are the caller's to commit or roll back; a failing row (a duplicate key)
// ends CopyFrom with the engine's error classified, and CopyFrom's own
// transaction rolls back the rows it held.
func TestCopyFromInATransaction(t *testing.T) {
	ctx := context.Background()
	c := backendtest.Conn(t, ctx, openManaged(t)).(*conn)
	backendtest.Must(t, c.ExecScript(ctx, "CREATE TABLE cq (id INTEGER NOT NULL PRIMARY KEY, s VARCHAR(10))"))
	rows := func(ids ...int) func() ([]any, bool) {
		return func() ([]any, bool) {
			if len(ids) == 0 {
				return nil, false
			}
			id := ids[0]
			ids = ids[1:]
			return []any{id, strings.Repeat("x", id%10)}, true
		}
	}
	count := func() int64 {
		var n int64
		backendtest.Must(t, c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT count(*) FROM cq"}, nil, &n))
		return n
	}
	backendtest.Must(t, c.Begin(ctx))
	if _, err := c.CopyFrom(ctx, "cq", []string{"id", "s"}, rows(1, 2, 3)); err != nil {
		t.Fatal(err)
	}
	if c.tx == nil {
		t.Fatal("CopyFrom ended the caller's transaction")
	}
	backendtest.Must(t, c.Rollback(ctx))
	if n := count(); n != 0 {
		t.Fatalf("%d rows after the caller rolled back", n)
	}
	_, err := c.CopyFrom(ctx, "cq", []string{"id", "s"}, rows(1, 2, 3, 2, 4))
	if _, kind, _ := dberr.Describe(err); kind != dberr.Unique {
		t.Fatalf("a duplicate key: %v, want a constraint violation", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows after a copy that failed in its own transaction", n)
	}
	// The blocks stay prepared on the connection: a copy of a shape it has
	// copied before prepares nothing, and a DROP frees them (Firebird
	// refuses to drop a table a prepared statement uses).
	three := c.blocks[blockKey{"cq", "id,s", 3}]
	if three == nil || len(c.blocks) != 2 {
		t.Fatalf("%d blocks prepared after copies of 3 and 5 rows, want 2 (one of 3 rows)", len(c.blocks))
	}
	if _, err := c.CopyFrom(ctx, "cq", []string{"id", "s"}, rows(7, 8, 9)); err != nil {
		t.Fatal(err)
	}
	if c.blocks[blockKey{"cq", "id,s", 3}] != three || len(c.blocks) != 2 {
		t.Fatalf("a copy of 3 rows again prepared its block again (%d blocks)", len(c.blocks))
	}
	backendtest.Must(t, c.ExecScript(ctx, "DROP TABLE cq"))
	if len(c.blocks) != 0 {
		t.Fatalf("%d blocks still prepared after the DROP", len(c.blocks))
	}
}
