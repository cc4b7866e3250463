package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSummarize(t *testing.T) {
	tests := []struct {
		name          string
		xs            []float64
		want          Summary
		halfCI, tolCI float64
	}{
		{name: "empty", xs: nil, want: Summary{}},
		{name: "one", xs: []float64{7}, want: Summary{N: 1, Mean: 7, Lo: 7, Hi: 7}},
		{
			// t(0.975, 2) = 4.302653; half-width 4.302653·2/√3.
			name: "three", xs: []float64{10, 12, 14},
			want:   Summary{N: 3, Mean: 12, SD: 2, CV: 2.0 / 12, Noisy: true},
			halfCI: 4.968275, tolCI: 1e-3,
		},
		{
			name: "quiet", xs: []float64{100, 101, 99, 100},
			want:   Summary{N: 4, Mean: 100, SD: math.Sqrt(2.0 / 3), CV: math.Sqrt(2.0/3) / 100},
			halfCI: 3.182446 * math.Sqrt(2.0/3) / 2, tolCI: 1e-4,
		},
		{
			name: "constant", xs: []float64{5, 5, 5},
			want: Summary{N: 3, Mean: 5, Lo: 5, Hi: 5},
		},
		{
			name: "zero mean", xs: []float64{-1, 1},
			want:   Summary{N: 2, Mean: 0, SD: math.Sqrt2},
			halfCI: 12.706205 * math.Sqrt2 / math.Sqrt2, tolCI: 1e-4,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Summarize(tc.xs)
			w := tc.want
			if got.N != w.N || !approx(got.Mean, w.Mean, 1e-12) || !approx(got.SD, w.SD, 1e-12) ||
				!approx(got.CV, w.CV, 1e-12) || got.Noisy != w.Noisy {
				t.Fatalf("Summarize(%v) = %+v, want %+v", tc.xs, got, w)
			}
			if w.N >= 2 && w.SD > 0 {
				if !approx(got.Mean-got.Lo, tc.halfCI, tc.tolCI) || !approx(got.Hi-got.Mean, tc.halfCI, tc.tolCI) {
					t.Errorf("CI = [%v, %v], want mean ± %v", got.Lo, got.Hi, tc.halfCI)
				}
			} else if got.Lo != w.Lo || got.Hi != w.Hi {
				t.Errorf("CI = [%v, %v], want [%v, %v]", got.Lo, got.Hi, w.Lo, w.Hi)
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	want := Diff{Ratio: 1, Lo: 1, Hi: 1, P: 1, Method: "identity"}
	if got := Identity(); got != want {
		t.Fatalf("Identity() = %+v, want %+v", got, want)
	}
}

func TestWelch(t *testing.T) {
	tests := []struct {
		name        string
		a, b        []float64
		ratio       float64
		significant bool
		method      string
	}{
		{"clearly lower", []float64{100, 101, 99, 100}, []float64{90, 91, 89, 90}, 0.9, true, "welch"},
		{"clearly higher", []float64{90, 91, 89, 90}, []float64{100, 101, 99, 100}, 100.0 / 90, true, "welch"},
		{"same distribution", []float64{100, 103, 98, 101, 99}, []float64{101, 99, 102, 98, 100}, 500.0 / 501, false, "welch"},
		{"overlapping", []float64{10, 12, 14, 11}, []float64{12, 15, 13, 16, 14, 13}, 83.0 / 6 / 11.75, false, "welch"},
		{"one repeat", []float64{100}, []float64{90, 91}, 0.905, false, "none"},
		{"empty", nil, []float64{90, 91}, 0, false, "none"},
		{"zero mean a", []float64{0, 0}, []float64{90, 91}, 0, false, "none"},
		{"negative mean b", []float64{1, 2}, []float64{-1, -2}, -1, false, "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Welch(tc.a, tc.b)
			if d.Method != tc.method || d.Significant != tc.significant || !approx(d.Ratio, tc.ratio, 1e-12) {
				t.Fatalf("Welch = %+v, want ratio %v significant %v method %q", d, tc.ratio, tc.significant, tc.method)
			}
			if !(d.Lo <= d.Ratio && d.Ratio <= d.Hi) {
				t.Errorf("ratio %v outside interval [%v, %v]", d.Ratio, d.Lo, d.Hi)
			}
			if d.P < 0 || d.P > 1 {
				t.Errorf("P = %v outside [0, 1]", d.P)
			}
			if d.Method == "welch" && d.Significant != (d.P < 0.05) {
				t.Errorf("Significant %v disagrees with P %v", d.Significant, d.P)
			}
			if d.Method == "none" && (d.P != 1 || d.Lo != d.Ratio || d.Hi != d.Ratio || d.Reason == "") {
				t.Errorf("none: got %+v, want P 1, Lo = Hi = Ratio and a reason", d)
			}
			if _, err := json.Marshal(d); err != nil {
				t.Errorf("json: %v", err)
			}
		})
	}
}

// Reference values computed independently (Python: Welch–Satterthwaite df on
// the log scale, Student's t density integrated with Simpson's rule).
func TestWelchKnownValues(t *testing.T) {
	tests := []struct {
		name      string
		a, b      []float64
		p, lo, hi float64
	}{
		{"significant", []float64{100, 103, 98, 101, 99}, []float64{104, 106, 101, 105, 103},
			0.0182239078682759, 1.00780559545, 1.06483544424},
		{"not significant", []float64{100, 103, 98, 101, 99}, []float64{101, 99, 102, 98, 100},
			0.862062471363159, 0.972572298719, 1.02410069605},
		{"unequal sizes", []float64{10, 12, 14, 11}, []float64{12, 15, 13, 16, 14, 13},
			0.110291064808656, 0.948642781124, 1.46108420062},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Welch(tc.a, tc.b)
			if !approx(d.P, tc.p, 1e-6) || !approx(d.Lo, tc.lo, 1e-6) || !approx(d.Hi, tc.hi, 1e-6) {
				t.Fatalf("Welch = %+v, want P %v interval [%v, %v]", d, tc.p, tc.lo, tc.hi)
			}
		})
	}
}

func TestWelchConstant(t *testing.T) {
	same := Welch([]float64{5, 5, 5}, []float64{5, 5})
	if want := (Diff{Ratio: 1, Lo: 1, Hi: 1, P: 1, Method: "welch"}); same != want {
		t.Errorf("identical constants: %+v, want %+v", same, want)
	}
	diff := Welch([]float64{5, 5, 5}, []float64{6, 6})
	if want := (Diff{Ratio: 1.2, Lo: 1.2, Hi: 1.2, P: 0, Significant: true, Method: "welch"}); !approx(diff.Ratio, 1.2, 1e-12) ||
		diff.Lo != diff.Ratio || diff.Hi != diff.Ratio || diff.P != 0 || !diff.Significant || diff.Method != "welch" {
		t.Errorf("different constants: %+v, want %+v", diff, want)
	}
}

// series returns n per-second samples around mean with relative noise cv,
// AR(1)-correlated (φ = 0.5) like a real run, deterministic from seed.
func series(n int, mean, cv float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 42))
	xs := make([]float64, n)
	const phi = 0.5
	e := rng.NormFloat64()
	for i := range xs {
		xs[i] = mean * (1 + cv*e)
		e = phi*e + math.Sqrt(1-phi*phi)*rng.NormFloat64()
	}
	return xs
}

func TestBootstrap(t *testing.T) {
	tests := []struct {
		name        string
		a, b        []float64
		significant bool
		method      string
	}{
		{"same mean", series(30, 1000, 0.05, 1), series(30, 1000, 0.05, 2), false, "bootstrap"},
		{"20% higher", series(30, 1000, 0.05, 3), series(30, 1200, 0.05, 4), true, "bootstrap"},
		{"20% lower", series(30, 1000, 0.05, 5), series(30, 800, 0.05, 6), true, "bootstrap"},
		{"unequal lengths", series(30, 1000, 0.05, 7), series(45, 1000, 0.05, 8), false, "bootstrap"},
		{"too short", []float64{1, 2}, series(30, 1000, 0.05, 9), false, "none"},
		{"zero mean a", []float64{0, 0, 0, 0}, series(30, 1000, 0.05, 10), false, "none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Bootstrap(tc.a, tc.b, 7)
			if d.Method != tc.method || d.Significant != tc.significant {
				t.Fatalf("Bootstrap = %+v, want significant %v method %q", d, tc.significant, tc.method)
			}
			ma, mb := Summarize(tc.a).Mean, Summarize(tc.b).Mean
			if ma > 0 && !approx(d.Ratio, mb/ma, 1e-12) {
				t.Errorf("Ratio = %v, want %v", d.Ratio, mb/ma)
			}
			if !(d.Lo <= d.Ratio && d.Ratio <= d.Hi) {
				t.Errorf("ratio %v outside interval [%v, %v]", d.Ratio, d.Lo, d.Hi)
			}
			if tc.method == "bootstrap" {
				if d.Significant && d.P >= 0.05 || !d.Significant && d.P < 0.05 {
					t.Errorf("Significant %v disagrees with P %v", d.Significant, d.P)
				}
			} else if d.P != 1 || d.Lo != d.Ratio || d.Hi != d.Ratio || d.Reason == "" {
				t.Errorf("none: got %+v, want P 1, Lo = Hi = Ratio and a reason", d)
			}
		})
	}
}

func TestBootstrapRatioInInterval(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []float64
		target float64
	}{
		{"20% higher", series(30, 1000, 0.05, 3), series(30, 1200, 0.05, 4), 1.2},
		{"20% higher, other data", series(30, 1000, 0.05, 11), series(30, 1200, 0.05, 12), 1.2},
		{"20% lower", series(30, 1000, 0.05, 5), series(30, 800, 0.05, 6), 0.8},
		{"20% higher, long", series(300, 1000, 0.05, 15), series(300, 1200, 0.05, 16), 1.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Bootstrap(tc.a, tc.b, 1)
			if !d.Significant || d.P >= 0.05 || !approx(d.Ratio, tc.target, 0.05) ||
				!(d.Lo < tc.target && tc.target < d.Hi) || !(d.Lo < d.Ratio && d.Ratio < d.Hi) {
				t.Fatalf("Bootstrap = %+v, want significant with ratio ≈ %v and %v in the interval", d, tc.target, tc.target)
			}
		})
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	a, b := series(40, 1000, 0.1, 13), series(40, 1030, 0.1, 14)
	d1, d2 := Bootstrap(a, b, 99), Bootstrap(a, b, 99)
	if d1 != d2 {
		t.Fatalf("same seed, different results: %+v vs %+v", d1, d2)
	}
	if d3 := Bootstrap(a, b, 100); d3.Lo == d1.Lo && d3.Hi == d1.Hi && d3.P == d1.P {
		t.Errorf("different seeds gave identical intervals %+v", d3)
	}
}

// Over many pairs of autocorrelated series with the same mean, few should
// come out significant. Nominally 5 %, but the moving-block bootstrap with
// blocks of √n underestimates the variance of the mean by about L/n, so on
// 30 samples it is liberal: about 20 % here (about 11 % on independent
// samples). Ignoring the autocorrelation (blocks of 1) gives about 30 %.
func TestBootstrapFalsePositiveRate(t *testing.T) {
	const pairs = 200
	var sig int
	for i := range uint64(pairs) {
		if Bootstrap(series(30, 1000, 0.05, 1000+2*i), series(30, 1000, 0.05, 1001+2*i), i).Significant {
			sig++
		}
	}
	t.Logf("%d of %d same-mean pairs significant", sig, pairs)
	if sig > pairs*27/100 {
		t.Errorf("%d of %d same-mean pairs significant, want at most 27 %%", sig, pairs)
	}
}

// TestTooLittleDataSaysWhy: a comparison that cannot judge says what it
// lacks, in repeats or seconds.
func TestTooLittleDataSaysWhy(t *testing.T) {
	if d := Welch([]float64{100}, []float64{90, 91, 92}); d.Reason != "too few repeats: 1 and 3 (2 each needed)" {
		t.Errorf("Welch: %q", d.Reason)
	}
	if d := Bootstrap([]float64{1, 2}, []float64{1, 2, 3, 4}, 1); d.Reason != "too few seconds: 2 and 4 (3 each needed)" {
		t.Errorf("Bootstrap: %q", d.Reason)
	}
	if d := Welch([]float64{100, 101}, []float64{90, 91}); d.Reason != "" {
		t.Errorf("a judged difference has a reason: %q", d.Reason)
	}
}
