package script

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// drawCounts draws samples of expr (whose values are lo..lo+n-1) and
// counts each value.
func drawCounts(t *testing.T, expr string, lo int64, n, samples int) []int {
	t.Helper()
	e, err := ParseExpr(expr, Pos{File: "chi.sql", Line: 1, Col: 1})
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv()
	env.r = rand.New(rand.NewPCG(20260101, 25)) // fixed: the test is deterministic
	counts := make([]int, n)
	for range samples {
		v, err := e.Eval(env)
		if err != nil {
			t.Fatal(err)
		}
		k := v.i - lo
		if v.kind != Int || k < 0 || k >= int64(n) {
			t.Fatalf("%s gave %s, outside [%d, %d]", expr, v.Debug(), lo, lo+int64(n)-1)
		}
		counts[k]++
	}
	return counts
}

// chiSquare draws samples of expr and returns Pearson's statistic against
// the probabilities p.
func chiSquare(t *testing.T, expr string, lo int64, p []float64, samples int) float64 {
	t.Helper()
	return chiSquareOf(drawCounts(t, expr, lo, len(p), samples), p)
}

// chiSquareN is the number of samples counted.
func chiSquareN(counts []int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// chiSquareOf is Pearson's statistic of counts against probabilities p.
func chiSquareOf(counts []int, p []float64) float64 {
	n := chiSquareN(counts)
	chi := 0.0
	for k, c := range counts {
		want := p[k] * float64(n)
		chi += (float64(c) - want) * (float64(c) - want) / want
	}
	return chi
}

// chiSquare2 is the two-sample statistic: do a and b come from one
// distribution? (len(a)-1 degrees of freedom.)
func chiSquare2(a, b []int) float64 {
	na, nb := 0, 0
	for k := range a {
		na += a[k]
		nb += b[k]
	}
	ka, kb := math.Sqrt(float64(nb)/float64(na)), math.Sqrt(float64(na)/float64(nb))
	chi := 0.0
	for k := range a {
		if a[k]+b[k] == 0 {
			continue
		}
		d := ka*float64(a[k]) - kb*float64(b[k])
		chi += d * d / float64(a[k]+b[k])
	}
	return chi
}

// zipfProbs is random_zipfian's definition over ten keys: key k with
// probability proportional to 1/k^s.
func zipfProbs(s float64) []float64 {
	p := make([]float64, 10)
	sum := 0.0
	for k := range p {
		p[k] = 1 / math.Pow(float64(k+1), s)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

// exponentialProbs is random_exponential's over ten keys: key j with
// probability (e^(-a·j/n) - e^(-a·(j+1)/n)) / (1 - e^(-a)).
func exponentialProbs(a float64) []float64 {
	p := make([]float64, 10)
	n := float64(len(p))
	for j := range p {
		p[j] = (math.Exp(-a*float64(j)/n) - math.Exp(-a*float64(j+1)/n)) / (1 - math.Exp(-a))
	}
	return p
}

// chi2Crit999 is the chi-squared distribution's 99.9th percentile for 9
// degrees of freedom (ten keys).
const chi2Crit999 = 27.877

const samples = 100_000

// TestZipfianFrequencies: random_zipfian(lb, ub, s) gives lb+k-1 with
// probability proportional to 1/k^s (pgbench docs, "random_zipfian").
func TestZipfianFrequencies(t *testing.T) {
	for _, s := range []float64{1.1, 1.5, 3} {
		t.Run(fmt.Sprintf("s=%g", s), func(t *testing.T) {
			counts := drawCounts(t, fmt.Sprintf("random_zipfian(11, 20, %g)", s), 11, 10, samples)
			if chi := chiSquareOf(counts, zipfProbs(s)); chi > chi2Crit999 {
				t.Errorf("chi² = %.1f > %.1f: the frequencies are not zipfian", chi, chi2Crit999)
			}
			// the test has power: a parameter 0.1 away is rejected
			if chi := chiSquareOf(counts, zipfProbs(s+0.1)); chi < chi2Crit999 {
				t.Errorf("chi² = %.1f against s=%g: the test cannot tell them apart", chi, s+0.1)
			}
		})
	}
}

// TestExponentialFrequencies: random_exponential(lb, ub, a) gives lb+j
// with probability (e^(-a·j/n) - e^(-a·(j+1)/n)) / (1 - e^(-a)), n keys
// (pgbench docs, "random_exponential").
func TestExponentialFrequencies(t *testing.T) {
	for _, a := range []float64{0.5, 3, 10} {
		t.Run(fmt.Sprintf("parameter=%g", a), func(t *testing.T) {
			p := exponentialProbs(a)
			if chi := chiSquare(t, fmt.Sprintf("random_exponential(-5, 4, %g)", a), -5, p, samples); chi > chi2Crit999 {
				t.Errorf("chi² = %.1f > %.1f: the frequencies are not exponential", chi, chi2Crit999)
			}
		})
	}
}

// TestGaussianFrequencies: random_gaussian(lb, ub, a) is a normal
// distribution over [lb, ub] cut at ±a standard deviations.
func TestGaussianFrequencies(t *testing.T) {
	phi := func(z float64) float64 { return 0.5 * (1 + math.Erf(z/math.Sqrt2)) }
	a := 2.5
	p := make([]float64, 10)
	n := float64(len(p))
	for j := range p {
		lo, hi := -a+2*a*float64(j)/n, -a+2*a*float64(j+1)/n
		p[j] = (phi(hi) - phi(lo)) / (phi(a) - phi(-a))
	}
	if chi := chiSquare(t, "random_gaussian(1, 10, 2.5)", 1, p, samples); chi > chi2Crit999 {
		t.Errorf("chi² = %.1f > %.1f: the frequencies are not a cut normal", chi, chi2Crit999)
	}
}

func TestUniformFrequencies(t *testing.T) {
	p := make([]float64, 10)
	for j := range p {
		p[j] = 0.1
	}
	if chi := chiSquare(t, "random(0, 9)", 0, p, samples); chi > chi2Crit999 {
		t.Errorf("chi² = %.1f > %.1f: random is not uniform", chi, chi2Crit999)
	}
}

// TestPermuteIsPermutation: for each size and seed, permute maps [0, size)
// onto itself, and i+size as i.
func TestPermuteIsPermutation(t *testing.T) {
	for _, size := range []int64{1, 2, 3, 7, 16, 100, 1000} {
		for _, seed := range []int64{0, 5, -3, math.MaxInt64} {
			seen := make([]bool, size)
			for i := range size {
				v := Permute(i, size, seed)
				if v < 0 || v >= size || seen[v] {
					t.Fatalf("permute(%d, %d, %d) = %d: not a permutation", i, size, seed, v)
				}
				seen[v] = true
				if w := Permute(i+size, size, seed); w != v {
					t.Fatalf("permute(%d) = %d but permute(%d) = %d (size %d)", i, v, i+size, w, size)
				}
			}
		}
	}
}

// TestZipfianOneKey: a one-value range draws nothing, as pgbench's.
func TestZipfianOneKey(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	if v := Zipfian(r, 5, 5, 2); v != 5 {
		t.Errorf("Zipfian(5, 5) = %d", v)
	}
}
