package backend

import (
	"bytes"
	"database/sql"
	"database/sql/driver"
	"testing"
	"time"
)

// TestAssign holds the direct path's assign to what database/sql's Scan
// stores for the same driver value.
func TestAssign(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		src  driver.Value
		new  func() any // a fresh destination
	}{
		{"bytes<-bytes", []byte("abc"), func() any { return new([]byte) }},
		{"bytes<-empty", []byte{}, func() any { return new([]byte) }},
		{"bytes<-nil", nil, func() any { return new([]byte) }},
		{"bytes<-string", "abc", func() any { return new([]byte) }},
		{"string<-bytes", []byte("abc"), func() any { return new(string) }},
		{"string<-int64", int64(42), func() any { return new(string) }},
		{"int64<-int64", int64(-7), func() any { return new(int64) }},
		{"int64<-bytes", []byte("123"), func() any { return new(int64) }},
		{"int64<-uint64", uint64(5), func() any { return new(int64) }},
		{"int<-int64", int64(9), func() any { return new(int) }},
		{"int32<-bytes", []byte("12"), func() any { return new(int32) }},
		{"float64<-float64", 1.5, func() any { return new(float64) }},
		{"float64<-float32", float32(2.5), func() any { return new(float64) }},
		{"float64<-bytes", []byte("3.25"), func() any { return new(float64) }},
		{"bool<-int64", int64(1), func() any { return new(bool) }},
		{"time<-time", now, func() any { return new(time.Time) }},
		{"any<-bytes", []byte("xyz"), func() any { return new(any) }},
		{"any<-nil", nil, func() any { return new(any) }},
		{"scanner<-bytes", []byte("s"), func() any { return new(sql.NullString) }},
		{"scanner<-nil", nil, func() any { return new(sql.NullInt64) }},
		{"int64<-nil", nil, func() any { return new(int64) }},
		{"string<-nil", nil, func() any { return new(string) }},
		{"int64<-text", []byte("x"), func() any { return new(int64) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, got := c.new(), c.new()
			werr := scanLikeDatabaseSQL(want, c.src)
			gerr := assign(got, c.src)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("assign error %v, database/sql's %v", gerr, werr)
			}
			if werr != nil {
				return
			}
			if !equal(want, got) {
				t.Fatalf("assign stored %#v, database/sql %#v", got, want)
			}
		})
	}
	t.Run("bytes_are_copied", func(t *testing.T) {
		src := []byte("abc")
		var b []byte
		if err := assign(&b, src); err != nil {
			t.Fatal(err)
		}
		src[0] = 'x'
		if string(b) != "abc" {
			t.Fatalf("the destination shares the driver's buffer: %q", b)
		}
	})
}

// scanLikeDatabaseSQL stores src in dest through database/sql's own
// conversion (sql.Null's Scan), as Rows.Scan does.
func scanLikeDatabaseSQL(dest any, src driver.Value) error {
	switch d := dest.(type) {
	case sql.Scanner:
		return d.Scan(src)
	case *[]byte:
		var n sql.Null[[]byte]
		err := n.Scan(src)
		*d = n.V
		return err
	case *string:
		return nullCheck(&sql.Null[string]{}, src, func(v string) { *d = v })
	case *int64:
		return nullCheck(&sql.Null[int64]{}, src, func(v int64) { *d = v })
	case *int:
		return nullCheck(&sql.Null[int]{}, src, func(v int) { *d = v })
	case *int32:
		return nullCheck(&sql.Null[int32]{}, src, func(v int32) { *d = v })
	case *float64:
		return nullCheck(&sql.Null[float64]{}, src, func(v float64) { *d = v })
	case *bool:
		return nullCheck(&sql.Null[bool]{}, src, func(v bool) { *d = v })
	case *time.Time:
		return nullCheck(&sql.Null[time.Time]{}, src, func(v time.Time) { *d = v })
	case *any:
		var n sql.Null[any]
		err := n.Scan(src)
		*d = n.V
		return err
	}
	panic("no such destination")
}

func nullCheck[T any](n *sql.Null[T], src driver.Value, set func(T)) error {
	if err := n.Scan(src); err != nil {
		return err
	}
	if !n.Valid {
		return sql.ErrNoRows // any error: database/sql refuses NULL here
	}
	set(n.V)
	return nil
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case *[]byte:
		y := *b.(*[]byte)
		return bytes.Equal(*x, y) && (*x == nil) == (y == nil)
	case *any:
		xb, ok1 := (*x).([]byte)
		yb, ok2 := (*b.(*any)).([]byte)
		if ok1 || ok2 {
			return ok1 && ok2 && bytes.Equal(xb, yb)
		}
		return *x == *b.(*any)
	case *sql.NullString:
		return *x == *b.(*sql.NullString)
	case *sql.NullInt64:
		return *x == *b.(*sql.NullInt64)
	case *string:
		return *x == *b.(*string)
	case *int64:
		return *x == *b.(*int64)
	case *int:
		return *x == *b.(*int)
	case *int32:
		return *x == *b.(*int32)
	case *float64:
		return *x == *b.(*float64)
	case *bool:
		return *x == *b.(*bool)
	case *time.Time:
		return x.Equal(*b.(*time.Time))
	}
	return false
}
