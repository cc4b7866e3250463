package script

import (
	"math"
	"reflect"
	"testing"
)

// TestParametersAsPgbenchPassesThem: a variable of each type is the
// parameter pgbench's getVariable makes of it: a double as its text by
// %.15g (NaN and the infinities as PostgreSQL spells them), an integer,
// a boolean, NULL; text as it was given, even when it reads as a number.
// TestScriptAgainstPgbench (internal/cli) holds them to real pgbench.
func TestParametersAsPgbenchPassesThem(t *testing.T) {
	cases := []struct {
		s    slot
		want any
	}{
		{slot{v: IntValue(-42)}, int64(-42)},
		{slot{v: DoubleValue(1.0 / 3)}, "0.333333333333333"},
		{slot{v: DoubleValue(2)}, "2"},
		{slot{v: DoubleValue(1e20)}, "1e+20"},
		{slot{v: DoubleValue(-2.5e-5)}, "-2.5e-05"},
		{slot{v: DoubleValue(math.Inf(-1))}, "-Infinity"},
		{slot{v: DoubleValue(math.NaN())}, "NaN"},
		{slot{v: BoolValue(true)}, true},
		{slot{v: BoolValue(false)}, false},
		{slot{}, nil},
		{textSlot("042"), "042"},
		{textSlot("hello"), "hello"},
		{textSlot("7"), int64(7)},
		{textSlot("0.5"), "0.5"},
	}
	for _, c := range cases {
		if got := c.s.arg(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: parameter %#v, want %#v", c.s, got, c.want)
		}
	}
}
