package knob

import (
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestValues(t *testing.T) {
	v := NewValues([]Spec{
		{Name: "n", Default: "5"}, {Name: "d", Default: "30s"}, {Name: "r", Repeat: true}, {Name: "c", Kind: Choice, Choices: []string{"x", "y"}, Default: "a"},
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
	if _, err := v.Choice("c"); err == nil {
		t.Fatal("Choice accepted a value outside the declared choices")
	}
	if !v.IsSet("r") || v.IsSet("c") {
		t.Fatal("IsSet")
	}
	v.Set("c", "y")
	if c, err := v.Choice("c"); err != nil || c != "y" {
		t.Fatalf("Choice = %q, %v, want a declared choice", c, err)
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

// TestType: the type --help shows comes from the declaration: the kind,
// the choices, a text's form, a range, and "[,...]" when a list makes the
// knob a matrix axis (not a switch, not a knob whose commas are its own).
func TestType(t *testing.T) {
	cases := []struct {
		spec Spec
		want string
	}{
		{Spec{Name: "clients", Kind: Int}, "int[,...]"},
		{Spec{Name: "workers", Kind: Int, Values: "1..64"}, "int 1..64[,...]"},
		{Spec{Name: "durability", Kind: Choice, Choices: []string{"sync", "lazy", "off"}}, "sync|lazy|off[,...]"},
		{Spec{Name: "warmup", Kind: Duration}, "duration[,...]"},
		{Spec{Name: "cache", Kind: Size}, "size[,...]"},
		{Spec{Name: "procedure", Kind: Switch}, "switch"},
		{Spec{Name: "backup", Values: "at=D[,to=D]", Single: true}, "at=D[,to=D]"},
		{Spec{Name: "set", Values: "key=value", Repeat: true}, "key=value"},
		{Spec{Name: "note"}, "text[,...]"},
	}
	for _, c := range cases {
		if got := c.spec.Type(); got != c.want {
			t.Errorf("%s: Type() = %q, want %q", c.spec.Name, got, c.want)
		}
		if c.spec.Axis() != (c.spec.Kind != Switch && !c.spec.Single) {
			t.Errorf("%s: Axis() = %v", c.spec.Name, c.spec.Axis())
		}
	}
}

// TestTyped: the knobs given are recorded as their declarations type them;
// a value that does not parse stays text.
func TestTyped(t *testing.T) {
	v := NewValues([]Spec{
		{Name: "n", Kind: Int}, {Name: "r", Kind: Number}, {Name: "s", Kind: Switch}, {Name: "d", Kind: Duration},
		{Name: "set", Repeat: true}, {Name: "bad", Kind: Int}, {Name: "unset", Kind: Int, Default: "3"},
	})
	for name, val := range map[string]string{"n": "1_000", "r": "2.5", "s": "true", "d": "30s", "bad": "many"} {
		v.Set(name, val)
	}
	v.Set("set", "a=1")
	v.Set("set", "b=2")
	got := v.Typed()
	want := map[string]any{"n": int64(1000), "r": 2.5, "s": true, "d": "30s", "set": []string{"a=1", "b=2"}, "bad": "many"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Typed() = %#v, want %#v", got, want)
	}
}
