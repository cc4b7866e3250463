package knob

import (
	"errors"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"8192", 8192}, {"0", 0}, {"1_000", 1000}, {"100B", 100},
		{"64KiB", 64 << 10}, {"64kb", 64 << 10}, {"64K", 64 << 10},
		{"256MB", 256 << 20}, {"256 MiB", 256 << 20}, {"256m", 256 << 20},
		{"1GiB", 1 << 30}, {"1gb", 1 << 30}, {"1.5GiB", 3 << 29}, {"2TiB", 2 << 40},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseSize(c.in)
			if err != nil || got != c.want {
				t.Fatalf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
			}
		})
	}
	for _, bad := range []string{"", "MB", "-1", "-1MB", "1.5", "0.1KB", "1e9", "inf", "NaN", "12 apples", "0x10", "99999999TiB", "4611686018427387904"} {
		t.Run("bad="+bad, func(t *testing.T) {
			if n, err := ParseSize(bad); err == nil {
				t.Fatalf("ParseSize(%q) = %d, want an error", bad, n)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 1000: "1000B", 4096: "4KiB", 256 << 20: "256MiB", 3 << 29: "1536MiB", 1 << 30: "1GiB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestValuesSize(t *testing.T) {
	v := NewValues([]Spec{{Name: "cache", Values: "SIZE"}})
	v.Set("cache", "256MB")
	if n, err := v.Size("cache", 1, 1<<40); err != nil || n != 256<<20 {
		t.Fatalf("Size = %d, %v", n, err)
	}
	for _, bad := range []string{"lots", "0"} {
		v.Set("cache", bad)
		if _, err := v.Size("cache", 1, 1<<40); !errors.As(err, new(*Error)) {
			t.Errorf("Size(%q) = %v, want bad input", bad, err)
		}
	}
}

// FuzzParseSize: never panics; a size it accepts is within range and reads
// back the same once formatted.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"256MB", "64KiB", "1GiB", "1.5GiB", "8192", "-1", "1e3", "0.5k", " 7 tb "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n < 0 || n >= 1<<62 {
			t.Fatalf("ParseSize(%q) = %d: out of range", s, n)
		}
		back, err := ParseSize(FormatSize(n))
		if err != nil || back != n {
			t.Fatalf("ParseSize(FormatSize(%d)) = %d, %v", n, back, err)
		}
	})
}
