package verdict

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
)

func TestParse(t *testing.T) {
	ok := map[string]Requirement{
		"calls/s>=16":      {Metric: "calls/s", Op: ">=", Want: 16, Unit: "/s"},
		" calls/s >= 16.5": {Metric: "calls/s", Op: ">=", Want: 16.5, Unit: "/s"},
		"units/s>1":        {Metric: "calls/s", Op: ">", Want: 1, Unit: "/s"},
		"p99<=20ms":        {Metric: "p99", Op: "<=", Want: 20, Unit: "ms"},
		"p99.9<1.5s":       {Metric: "p99.9", Op: "<", Want: 1500, Unit: "ms"},
		"max<500µs":        {Metric: "max", Op: "<", Want: 0.5, Unit: "ms"},
		"errors%<=1":       {Metric: "errors%", Op: "<=", Want: 1, Unit: "%"},
		"errors%=0%":       {Metric: "errors%", Op: "==", Want: 0, Unit: "%"},
	}
	for in, want := range ok {
		got, err := Parse(in, "calls/s")
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		got.Text = ""
		if got != want {
			t.Errorf("Parse(%q) = %+v, want %+v", in, got, want)
		}
	}
	for _, in := range []string{"", "calls/s", "calls/s>>16", "calls/s>=x", "p99<=20", "inserts/s>=1", "errors%<=101", "p99<=-1ms", "foo>=1"} {
		_, err := Parse(in, "calls/s")
		var ke *knob.Error
		if !errors.As(err, &ke) {
			t.Errorf("Parse(%q) = %v, want a bad-input error", in, err)
		}
	}
}

func TestJudge(t *testing.T) {
	res := &result.Result{
		Summary: result.Summary{Rate: 20, ErrorsPct: 0.5},
		Phases:  []result.Phase{{Name: "measure", All: result.Latency{Count: 10, P99Us: 30_000}}},
	}
	cases := map[string]bool{
		"calls/s>=16": true, "calls/s>=1000000000": false,
		"p99<=20ms": false, "p99<=30ms": true, "errors%<=1": true, "errors%==0": false,
	}
	for in, want := range cases {
		r, err := Parse(in, "calls/s")
		if err != nil {
			t.Fatal(err)
		}
		if v := Judge(r, res); v.OK != want {
			t.Errorf("Judge(%q) = %+v, want ok=%v", in, v, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"calls/s>=16", "p99<=20ms", "errors%<1", "max<1h", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s, "calls/s")
		if err != nil {
			var ke *knob.Error
			if !errors.As(err, &ke) {
				t.Fatalf("Parse(%q) error %v is not a bad-input error", s, err)
			}
			return
		}
		_ = Judge(r, &result.Result{}) // must not panic
	})
}

// TestParseSLO: "errors" stands for errors%, a latency keeps its unit, and
// a rate or steadiness is refused as a goal.
func TestParseSLO(t *testing.T) {
	r, err := ParseSLO("errors<0.1%", "calls/s")
	if err != nil || r.Metric != "errors%" || r.Op != "<" || r.Want != 0.1 || r.Unit != "%" {
		t.Fatalf("errors<0.1%%: %+v %v", r, err)
	}
	if r, err := ParseSLO(" p99<20ms ", "calls/s"); err != nil || r.Metric != "p99" || r.Want != 20 || r.Unit != "ms" {
		t.Fatalf("p99<20ms: %+v %v", r, err)
	}
	for _, bad := range []string{"calls/s>=10", "steady", "p99<soon"} {
		if _, err := ParseSLO(bad, "calls/s"); err == nil || !strings.Contains(err.Error(), "--slo") {
			t.Errorf("%q: %v, want an error naming --slo", bad, err)
		}
	}
}
