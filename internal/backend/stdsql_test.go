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
		{"int<-bytes", []byte("77"), func() any { return new(int) }},
		{"int32<-nil", nil, func() any { return new(int32) }},
		{"float64<-nil", nil, func() any { return new(float64) }},
		{"bool<-bytes", []byte("true"), func() any { return new(bool) }},
		{"bool<-nil", nil, func() any { return new(bool) }},
		{"time<-nil", nil, func() any { return new(time.Time) }},
		{"time<-string", "2026-11-26", func() any { return new(time.Time) }},
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
		return scanNullable(d, src)
	case *any:
		return scanNullable(d, src)
	}
	for _, scan := range []func(any, driver.Value) (bool, error){
		refNotNull[string], refNotNull[int64], refNotNull[int], refNotNull[int32], refNotNull[float64], refNotNull[bool], refNotNull[time.Time],
	} {
		if ok, err := scan(dest, src); ok {
			return err
		}
	}
	panic("no such destination")
}

// scanNullable stores src in *d as sql.Null[T] converts it, NULL as T's
// zero value.
func scanNullable[T any](d *T, src driver.Value) error {
	var n sql.Null[T]
	err := n.Scan(src)
	*d = n.V
	return err
}

// refNotNull stores src in dest, a *T (false: dest is not), as sql.Null[T]
// converts it, and refuses NULL, as database/sql does for a T.
func refNotNull[T any](dest any, src driver.Value) (bool, error) {
	d, ok := dest.(*T)
	if !ok {
		return false, nil
	}
	var n sql.Null[T]
	if err := n.Scan(src); err != nil {
		return true, err
	}
	if !n.Valid {
		return true, sql.ErrNoRows // any error: database/sql refuses NULL here
	}
	*d = n.V
	return true, nil
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
	case *time.Time:
		return x.Equal(*b.(*time.Time))
	}
	for _, same := range []func(a, b any) (bool, bool){
		sameAs[sql.NullString], sameAs[sql.NullInt64], sameAs[string], sameAs[int64], sameAs[int], sameAs[int32], sameAs[float64], sameAs[bool],
	} {
		if eq, ok := same(a, b); ok {
			return eq
		}
	}
	return false
}

// sameAs compares a and b where both are a *T (false: a is not).
func sameAs[T comparable](a, b any) (equal, ok bool) {
	x, ok := a.(*T)
	if !ok {
		return false, false
	}
	return *x == *b.(*T), true
}
