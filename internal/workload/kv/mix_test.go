package kv

import (
	"errors"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
)

func TestParseMix(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" means bad input
	}{
		{"read=100", "read=100"},
		{"read=95,update=5", "read=95,update=5"},
		{" update = 5 , READ=95 ", "read=95,update=5"},
		{"rmw=1,scan=2,insert=3,update=4,read=5", "read=5,update=4,insert=3,scan=2,rmw=1"},
		{"read=100,scan=0", "read=100"},
		{"read=10000", "read=10000"},
		{"", ""}, {"read", ""}, {"read=", ""}, {"read=-1", ""}, {"read=1.5", ""},
		{"read=10001", ""}, {"delete=5", ""}, {"read=5,read=5", ""}, {"read=0", ""},
		{"read=50,,update=50", ""},
	} {
		t.Run("mix="+tc.in, func(t *testing.T) {
			m, err := ParseMix(tc.in)
			if tc.want == "" {
				var bad *knob.Error
				if !errors.As(err, &bad) {
					t.Fatalf("ParseMix(%q) = %v, %v; want bad input", tc.in, m, err)
				}
				return
			}
			if err != nil || m.String() != tc.want {
				t.Fatalf("ParseMix(%q) = %q, %v; want %q", tc.in, m, err, tc.want)
			}
		})
	}
}

func FuzzParseMix(f *testing.F) {
	for _, s := range []string{"read=95,update=5", "scan=95,insert=5", "rmw=1", "read=0,update=", "x=1,,", "read=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMix(s)
		if err != nil {
			var bad *knob.Error
			if !errors.As(err, &bad) {
				t.Fatalf("ParseMix(%q): %v is not bad input", s, err)
			}
			return
		}
		if m.total() <= 0 {
			t.Fatalf("ParseMix(%q) accepted a mix of no weight", s)
		}
		back, err := ParseMix(m.String())
		if err != nil || back != m {
			t.Fatalf("ParseMix(%q) = %v, whose form %q parses to %v, %v", s, m, m.String(), back, err)
		}
	})
}

func TestPresets(t *testing.T) {
	want := map[string]string{
		"ycsb-a": "read=50,update=50", "ycsb-b": "read=95,update=5", "ycsb-c": "read=100",
		"ycsb-d": "read=95,insert=5", "ycsb-e": "insert=5,scan=95", "ycsb-f": "read=50,rmw=50",
	}
	for _, p := range Presets {
		if p.Mix.String() != want[p.Name] {
			t.Errorf("%s: mix %s, want %s", p.Name, p.Mix, want[p.Name])
		}
		if wantD := map[bool]string{true: "latest", false: "zipfian"}[p.Name == "ycsb-d"]; p.Distribution != wantD {
			t.Errorf("%s: distribution %s, want %s", p.Name, p.Distribution, wantD)
		}
	}
	if len(Presets) != len(want) {
		t.Errorf("%d presets, want %d", len(Presets), len(want))
	}
}
