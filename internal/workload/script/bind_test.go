package script

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/dbgauge/dbgauge/internal/workload"
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

// debugSink gathers the lines debug() prints.
type debugSink struct {
	mu    sync.Mutex
	lines []string
}

func (d *debugSink) print(line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lines = append(d.lines, line)
}

// TestDebugLines: debug() prints pgbench's line for each value type, the
// script by its place in the mix from 0 and the command by its place in
// the script from 1 (meta-commands and a comment's line as pgbench counts
// them), in \set, \if and \elif; without SetDebug it prints nothing.
func TestDebugLines(t *testing.T) {
	first, err := ParseScript("first.sql", "\\set a 1\n")
	if err != nil {
		t.Fatal(err)
	}
	second, err := ParseScript("second.sql", `-- a comment is no command
\set i debug(7)
\set d debug(1.0 / 3)
\if debug(:i < 5)
\set x 1
\elif debug(NULL IS NULL)
\set b debug(:i = 7)
\endif
\set s debug(:missing)
\set z debug(NULL)
`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProgram([]*Script{first, second}, map[string]string{"missing": "2.5"})
	if err != nil {
		t.Fatal(err)
	}
	cl := p.NewClient(nil, workload.Commit{Mode: workload.PerOp}, 0, 1, 1, rand.New(rand.NewPCG(1, 2)))
	if err := cl.Do(t.Context(), 1, nil); err != nil {
		t.Fatal(err)
	}
	var sink debugSink
	p.SetDebug(sink.print)
	for _, kind := range []int{0, 1} {
		if err := cl.Do(t.Context(), kind, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"debug(script=1,command=1): int 7",
		"debug(script=1,command=2): double 0.333333333333333",
		"debug(script=1,command=3): boolean false",
		"debug(script=1,command=5): boolean true",
		"debug(script=1,command=6): boolean true",
		"debug(script=1,command=8): double 2.5",
		"debug(script=1,command=9): null",
	}
	if !reflect.DeepEqual(sink.lines, want) {
		t.Errorf("debug() printed\n%s\nwant\n%s", strings.Join(sink.lines, "\n"), strings.Join(want, "\n"))
	}
}
