package knob

import (
	"errors"
	"testing"
	"time"
)

func TestValues(t *testing.T) {
	v := NewValues([]Spec{
		{Name: "n", Default: "5"}, {Name: "d", Default: "30s"}, {Name: "r", Repeat: true}, {Name: "c", Default: "a"},
	})
	if n, err := v.Int("n", 1, 10); err != nil || n != 5 {
		t.Fatalf("default Int = %d, %v", n, err)
	}
	v.Set("n", "1_000")
	if _, err := v.Int("n", 1, 10); !errors.As(err, new(*Error)) {
		t.Fatalf("out of range: %v", err)
	}
	if d, err := v.Duration("d"); err != nil || d != 30*time.Second {
		t.Fatalf("Duration = %v, %v", d, err)
	}
	for _, bad := range []string{"30", "-1s", "soon"} {
		v.Set("d", bad)
		if _, err := v.Duration("d"); !errors.As(err, new(*Error)) {
			t.Errorf("Duration(%q) = %v, want bad input", bad, err)
		}
	}
	v.Set("r", "a=1")
	v.Set("r", "b=2")
	if l := v.List("r"); len(l) != 2 || l[1] != "b=2" {
		t.Fatalf("List = %v", l)
	}
	if _, err := v.Choice("c", "x", "y"); err == nil {
		t.Fatal("Choice accepted a value outside the list")
	}
	if !v.IsSet("r") || v.IsSet("c") {
		t.Fatal("IsSet")
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "30s", "1h30m", "-5s", "5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDuration(s); err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %v < 0", s, d)
		}
	})
}
