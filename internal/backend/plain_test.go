package backend

import (
	"math"
	"testing"
)

// TestPlainNumbers: every Go integer a driver returns becomes an int64 of
// the same value; a uint64 beyond int64 becomes its decimal text; a float32
// the float64 its text says.
func TestPlainNumbers(t *testing.T) {
	for _, c := range []struct {
		in   any
		want any
	}{
		{int(-5), int64(-5)},
		{int8(-128), int64(-128)},
		{int16(32767), int64(32767)},
		{int32(math.MinInt32), int64(math.MinInt32)},
		{uint8(255), int64(255)},
		{uint16(65535), int64(65535)},
		{uint32(math.MaxUint32), int64(math.MaxUint32)},
		{uint64(7), int64(7)},
		{uint64(math.MaxUint64), "18446744073709551615"},
		{float32(1.1), 1.1},
	} {
		if got := Plain(c.in, "INTEGER"); got != c.want {
			t.Errorf("Plain(%T %v) = %T %v, want %T %v", c.in, c.in, got, got, c.want, c.want)
		}
	}
}
