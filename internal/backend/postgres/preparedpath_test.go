package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// managedConns opens a managed server and one connection on each path: the
// prepared path of preparedpath.go (--prepare once) and pgx's own (--prepare each).
func managedConns(t *testing.T) (fast, plain *conn) {
	t.Helper()
	if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(m) == 0 {
		testenv.Skip(t, "no PostgreSQL server installed (apt-get install postgresql)")
	}
	ctx := context.Background()
	db, err := open(ctx, backend.Options{DB: managed, Dir: t.TempDir(), Durability: backend.Lazy, Prepare: backend.Once})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	d := db.(managedDB).db
	if fast, err = d.openConn(ctx, d.cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fast.Close() })
	// pgx's own path, in its statement-cache mode (as --prepare once was
	// before the prepared path).
	if plain, err = d.openConn(ctx, d.cfg, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plain.Close() })
	if fast.prepared == nil || fast.px != nil || plain.px == nil {
		t.Fatal("the connections are not on the paths asked for")
	}
	return fast, plain
}

// TestPreparedPathAgreesWithPgx: every parameter and column type the
// workloads use, and some they may, read and written through the prepared
// path give what pgx's own path gives.
func TestPreparedPathAgreesWithPgx(t *testing.T) {
	fast, plain := managedConns(t)
	ctx := context.Background()
	if err := fast.ExecScript(ctx, `CREATE TABLE types (id int PRIMARY KEY, i2 smallint, i8 bigint, f8 float8, f4 real, n numeric(12,3),
		t text, vc varchar(20), ch char(5), b bytea, bo bool, ts timestamp, tz timestamptz, j jsonb)`); err != nil {
		t.Fatal(err)
	}
	ins := &backend.Stmt{SQL: "INSERT INTO types VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"}
	when := time.Date(2026, 11, 25, 9, 30, 1, 123456000, time.UTC)
	rows := [][]any{
		{1, int64(-7), int64(math.MaxInt64), 1.0 / 3, 2.5, 12.345, "ünïcode 'q' ?", "vc", "ab", []byte{0, 1, 2, 255}, true, when, when, `{"a": 1}`},
		{2, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{3, int32(3), 3, math.Inf(-1), float32(0.5), "1.5", "", "", "", []byte{}, false, when.Add(time.Hour), when, `{}`},
	}
	for i, r := range rows {
		c := fast
		if i%2 == 1 {
			c = plain
		}
		if n, err := c.Exec(ctx, ins, r...); err != nil || n != 1 {
			t.Fatalf("insert %v: %d rows, %v", r[0], n, err)
		}
	}
	// Row 1 again, written through pgx's path: both writes must read back the same.
	if _, err := plain.Exec(ctx, ins, append([]any{11}, rows[0][1:]...)...); err != nil {
		t.Fatal(err)
	}
	get := &backend.Stmt{SQL: "SELECT i2, i8, f8, f4, n, t, vc, ch, b, bo, ts, tz, j FROM types WHERE id = ?"}
	dests := func() []any {
		var (
			i2     int32
			i8     int64
			f8, f4 float64
			n      float64
			s, vc  string
			ch     string
			b      []byte
			bo     bool
			ts, tz time.Time
			j      map[string]any
		)
		return []any{&i2, &i8, &f8, &f4, &n, &s, &vc, &ch, &b, &bo, &ts, &tz, &j}
	}
	for _, id := range []int{1, 3, 11} {
		want, got := dests(), dests()
		wantID := id
		if id == 1 {
			wantID = 11 // written by pgx, read by pgx
		}
		if err := plain.QueryRow(ctx, get, []any{wantID}, want...); err != nil {
			t.Fatalf("pgx's path, row %d: %v", id, err)
		}
		if err := fast.QueryRow(ctx, get, []any{id}, got...); err != nil {
			t.Fatalf("the prepared path, row %d: %v", id, err)
		}
		for i := range want {
			w, g := reflect.ValueOf(want[i]).Elem().Interface(), reflect.ValueOf(got[i]).Elem().Interface()
			if !reflect.DeepEqual(w, g) {
				t.Errorf("row %d column %d: pgx's path read %#v, the prepared path %#v", id, i+1, w, g)
			}
		}
	}
	// NULL into a plain destination is an error on both paths; into a
	// pointer or *any it is nil on both.
	var i2 int32
	one := &backend.Stmt{SQL: "SELECT i2 FROM types WHERE id = ?"}
	if errF, errP := fast.QueryRow(ctx, one, []any{2}, &i2), plain.QueryRow(ctx, one, []any{2}, &i2); errF == nil || errP == nil {
		t.Errorf("NULL into *int32: prepared path %v, pgx's %v; want errors on both", errF, errP)
	}
	nullable := &backend.Stmt{SQL: "SELECT i8, t, b FROM types WHERE id = ?"}
	for _, c := range []*conn{fast, plain} {
		var p *int64
		var s any = "not nil"
		b := []byte("not nil")
		if err := c.QueryRow(ctx, nullable, []any{2}, &p, &s, &b); err != nil {
			t.Fatalf("prepared path %v: %v", c.prepared != nil, err)
		}
		if p != nil || s != nil || b != nil {
			t.Errorf("prepared path %v: NULLs read as %v, %v, %v", c.prepared != nil, p, s, b)
		}
	}
	// An empty bytea is empty, not NULL, on both paths.
	for _, c := range []*conn{fast, plain} {
		var b []byte
		if err := c.QueryRow(ctx, &backend.Stmt{SQL: "SELECT b FROM types WHERE id = ?"}, []any{3}, &b); err != nil || b == nil || len(b) != 0 {
			t.Errorf("prepared path %v: empty bytea read as %#v (%v)", c.prepared != nil, b, err)
		}
	}
	// Query: rows in order, and the callback's error stops it.
	var ids []int
	all := &backend.Stmt{SQL: "SELECT id FROM types ORDER BY id"}
	if err := fast.Query(ctx, all, nil, func(scan func(...any) error) error {
		var id int
		err := scan(&id)
		ids = append(ids, id)
		return err
	}); err != nil || !reflect.DeepEqual(ids, []int{1, 2, 3, 11}) {
		t.Fatalf("query: %v, %v", ids, err)
	}
	stop := errors.New("enough")
	if err := fast.Query(ctx, all, nil, func(func(...any) error) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("the callback's error came back as %v", err)
	}
	// The connection is usable after all of this, and a wrong parameter
	// count is an error, not a hang.
	if _, err := fast.Exec(ctx, ins, 9); err == nil {
		t.Error("one parameter for fourteen was accepted")
	}
	var n int64
	if err := fast.QueryRow(ctx, &backend.Stmt{SQL: "SELECT count(*) FROM types"}, nil, &n); err != nil || n != 4 {
		t.Errorf("count %d, %v", n, err)
	}
}

// TestIntegersAndBooleansAsText: on both paths an integer or a boolean
// parameter goes as its text, which the server reads as the type it gave
// the parameter, as libpq's users (pgbench) send every parameter: SELECT ?
// is text, an integer binds into a boolean (1 is true), and a boolean into
// a number is the server's own error (22P02), not one of encoding.
func TestIntegersAndBooleansAsText(t *testing.T) {
	fast, plain := managedConns(t)
	ctx := context.Background()
	cases := []struct {
		sql  string
		arg  any
		want string // the text of the one column, or the SQLSTATE of the error
	}{
		{"SELECT ?", int64(-42), "-42"},
		{"SELECT ?", 7, "7"},
		{"SELECT ?", int32(7), "7"},
		{"SELECT ?", true, "true"},
		{"SELECT ? || 'x'", false, "falsex"},
		{"SELECT (? + 1)::text", int64(41), "42"},
		{"SELECT (NOT ?)::text", 1, "false"},
		{"SELECT (? AND true)::text", true, "true"},
		{"SELECT (? + 1)::text", true, "22P02"},
	}
	for _, c := range []*conn{fast, plain} {
		path := map[bool]string{true: "prepared path", false: "pgx's path"}[c.prepared != nil]
		for _, tc := range cases {
			var got string
			err := c.QueryRow(ctx, &backend.Stmt{SQL: tc.sql}, []any{tc.arg}, &got)
			if err != nil {
				got = sqlState(err)
			}
			if got != tc.want {
				t.Errorf("%s: %s with %T %v: %q (%v), want %q", path, tc.sql, tc.arg, tc.arg, got, err, tc.want)
			}
		}
	}
}

// TestPreparedPathKeepsFewStatements: statements made on the fly do not pile
// up on the server, and a schema change that invalidates a prepared
// statement costs one error, not the connection.
func TestPreparedPathKeepsFewStatements(t *testing.T) {
	fast, _ := managedConns(t)
	ctx := context.Background()
	for i := range 3 * maxPrepared {
		var n int64
		if err := fast.QueryRow(ctx, &backend.Stmt{SQL: fmt.Sprintf("SELECT %d::bigint", i)}, nil, &n); err != nil || n != int64(i) {
			t.Fatalf("statement %d: %d, %v", i, n, err)
		}
	}
	var kept int64
	if err := fast.QueryRow(ctx, &backend.Stmt{SQL: "SELECT count(*) FROM pg_prepared_statements"}, nil, &kept); err != nil {
		t.Fatal(err)
	}
	if kept > maxPrepared+1 {
		t.Errorf("%d statements prepared on the server after %d made on the fly, want at most %d", kept, 3*maxPrepared, maxPrepared+1)
	}

	if err := fast.ExecScript(ctx, "CREATE TABLE s (a int); INSERT INTO s VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	star := &backend.Stmt{SQL: "SELECT * FROM s"}
	var a, b int64
	if err := fast.QueryRow(ctx, star, nil, &a); err != nil {
		t.Fatal(err)
	}
	if err := fast.ExecScript(ctx, "ALTER TABLE s ADD COLUMN b int DEFAULT 2"); err != nil {
		t.Fatal(err)
	}
	err := fast.QueryRow(ctx, star, nil, &a, &b)
	if err != nil {
		t.Logf("after the schema change: %v (class %v)", err, dberr.ClassOf(err))
		err = fast.QueryRow(ctx, star, nil, &a, &b)
	}
	if err != nil || a != 1 || b != 2 {
		t.Fatalf("the statement was not prepared again after the schema change: %d, %d, %v", a, b, err)
	}
}

// TestCopyOnThePreparedPath: the prepared path's own binary COPY loads what
// pgx's CopyFrom loads: many rows (several buffers), NULLs, bytea, text,
// numbers and times.
func TestCopyOnThePreparedPath(t *testing.T) {
	fast, plain := managedConns(t)
	ctx := context.Background()
	when := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for _, c := range []*conn{fast, plain} {
		table := "copied_fast"
		if c == plain {
			table = "copied_pgx"
		}
		if err := c.ExecScript(ctx, "CREATE TABLE "+table+" (id int, b bytea, t text, f float8, ts timestamptz)"); err != nil {
			t.Fatal(err)
		}
		i := 0
		n, err := c.CopyFrom(ctx, table, []string{"id", "b", "t", "f", "ts"}, func() ([]any, bool) {
			if i == 20000 {
				return nil, false
			}
			i++
			if i%1000 == 0 {
				return []any{i, nil, nil, nil, nil}, true
			}
			return []any{i, []byte{byte(i), 0, 255}, fmt.Sprintf("row\t%d\n", i), float64(i) / 3, when.Add(time.Duration(i) * time.Second)}, true
		})
		if err != nil || n != 20000 {
			t.Fatalf("%s: %d rows, %v", table, n, err)
		}
	}
	var differ int64
	q := &backend.Stmt{SQL: `SELECT count(*) FROM copied_fast f FULL JOIN copied_pgx p USING (id)
		WHERE f.b IS DISTINCT FROM p.b OR f.t IS DISTINCT FROM p.t OR f.f IS DISTINCT FROM p.f OR f.ts IS DISTINCT FROM p.ts`}
	if err := fast.QueryRow(ctx, q, nil, &differ); err != nil || differ != 0 {
		t.Fatalf("%d rows differ between the two COPYs (%v)", differ, err)
	}
	// A value the column's type cannot take fails the COPY, in one line.
	_, err := fast.CopyFrom(ctx, "copied_fast", []string{"id"}, func() ([]any, bool) { return []any{"not a number"}, true })
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("a bad value: %v", err)
	}
	var n int64
	if err := fast.QueryRow(ctx, &backend.Stmt{SQL: "SELECT count(*) FROM copied_fast"}, nil, &n); err != nil || n != 20000 {
		t.Errorf("after the failed COPY: %d rows, %v", n, err)
	}
}
