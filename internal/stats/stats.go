// Package stats summarises repeated measurements and tests differences:
// mean, standard deviation, a 95 % confidence interval and the coefficient of
// variation; Welch's t on repeats and a moving-block bootstrap over
// per-second samples when there is one run each.
package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// NoisyCV is the coefficient of variation above which a summary is noisy.
const NoisyCV = 0.05

// Summary describes a sample.
type Summary struct {
	N     int     `json:"n"`
	Mean  float64 `json:"mean"`
	SD    float64 `json:"sd"` // sample standard deviation (n-1); 0 when N < 2
	Lo    float64 `json:"lo"` // 95 % confidence interval of the mean (Student's t); Lo = Hi = Mean when N < 2
	Hi    float64 `json:"hi"`
	CV    float64 `json:"cv"` // SD / Mean; 0 when N < 2 or Mean = 0
	Noisy bool    `json:"noisy"`
}

// Diff is how sample B compares with sample A.
type Diff struct {
	Ratio       float64 `json:"ratio"` // mean(B) / mean(A)
	Lo          float64 `json:"lo"`    // 95 % interval of the ratio
	Hi          float64 `json:"hi"`
	P           float64 `json:"p"`           // two-sided p-value of "no difference"
	Significant bool    `json:"significant"` // the interval excludes 1
	Method      string  `json:"method"`      // "welch", "bootstrap", "identity", "figures" (two single figures: a ratio, no interval) or "none" (too little data: Significant is false)
	// Reason says, for Method "none", why there is no judgement: "too few
	// seconds: 2 and 40 (3 each needed)".
	Reason string `json:"reason,omitempty"`
}

// bootstrapIters is the number of bootstrap resamples.
const bootstrapIters = 2000

// tQuantile975 is the 0.975 quantile of Student's t with df degrees of freedom.
func tQuantile975(df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
}

// meanVar returns the mean and the sample variance (n-1; 0 when len < 2).
func meanVar(xs []float64) (mean, variance float64) {
	n := len(xs)
	if n == 0 {
		return 0, 0
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean = sum / float64(n)
	if n < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
	}
	return mean, ss / float64(n-1)
}

// Summarize describes xs.
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	mean, variance := meanVar(xs)
	s := Summary{N: n, Mean: mean, Lo: mean, Hi: mean}
	if n < 2 {
		return s
	}
	s.SD = math.Sqrt(variance)
	half := tQuantile975(float64(n-1)) * s.SD / math.Sqrt(float64(n))
	s.Lo, s.Hi = mean-half, mean+half
	if mean != 0 {
		s.CV = s.SD / mean
	}
	s.Noisy = s.CV > NoisyCV
	return s
}

// Figures is the comparison of two single figures (one run each of a
// figure a run has once, not per second): their ratio, with no interval
// and so no judgement.
func Figures(a, b float64) Diff {
	d := Diff{Method: "figures", P: 1, Reason: "one figure a run: repeats (--repeat 3) give an interval"}
	if a != 0 {
		d.Ratio = b / a
		d.Lo, d.Hi = d.Ratio, d.Ratio
	}
	return d
}

// Identity is the comparison of a sample with itself.
func Identity() Diff {
	return Diff{Ratio: 1, Lo: 1, Hi: 1, P: 1, Method: "identity"}
}

// none is the answer when there is too little data to test: the ratio of the
// means when it is defined (0 otherwise, so that the Diff stays encodable as
// JSON), a degenerate interval, P = 1, not significant, and why.
func none(a, b []float64, reason string) Diff {
	var r float64
	if len(a) > 0 && len(b) > 0 {
		ma, _ := meanVar(a)
		mb, _ := meanVar(b)
		if q := mb / ma; ma != 0 && !math.IsNaN(q) && !math.IsInf(q, 0) {
			r = q
		}
	}
	return Diff{Ratio: r, Lo: r, Hi: r, P: 1, Method: "none", Reason: reason}
}

// tooFew words a sample too small to test: "too few repeats: 1 and 3 (2
// each needed)".
func tooFew(what string, a, b []float64, need int) string {
	return fmt.Sprintf("too few %s: %d and %d (%d each needed)", what, len(a), len(b), need)
}

// Welch compares the means of two samples of repeats (each N ≥ 2).
//
// The test is done on the log of the ratio of the means, so that the p-value
// and the interval of the ratio agree: the variance of log(mean) is taken as
// s²/(n·mean²) (delta method), the degrees of freedom by Welch–Satterthwaite,
// and the interval is exp(log r ± t·se). Samples with N < 2 or a mean ≤ 0
// give Method "none".
func Welch(a, b []float64) Diff {
	na, nb := len(a), len(b)
	if na < 2 || nb < 2 {
		return none(a, b, tooFew("repeats", a, b, 2))
	}
	ma, sa2 := meanVar(a)
	mb, sb2 := meanVar(b)
	if ma <= 0 || mb <= 0 {
		return none(a, b, "a mean of 0: no ratio")
	}
	r := mb / ma
	va := sa2 / (float64(na) * ma * ma)
	vb := sb2 / (float64(nb) * mb * mb)
	se := math.Sqrt(va + vb)
	if se == 0 {
		if r == 1 {
			return Diff{Ratio: 1, Lo: 1, Hi: 1, P: 1, Method: "welch"}
		}
		return Diff{Ratio: r, Lo: r, Hi: r, P: 0, Significant: true, Method: "welch"}
	}
	df := (va + vb) * (va + vb) / (va*va/float64(na-1) + vb*vb/float64(nb-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	lr := math.Log(r)
	p := math.Min(1, 2*t.CDF(-math.Abs(lr/se)))
	q := t.Quantile(0.975)
	return ratioDiff("welch", r, math.Exp(lr-q*se), math.Exp(lr+q*se), p)
}

// ratioDiff is the Diff of a ratio r with its 95 % interval [lo, hi] and
// p-value, by method: significant when the interval leaves 1 out.
func ratioDiff(method string, r, lo, hi, p float64) Diff {
	return Diff{Ratio: r, Lo: lo, Hi: hi, P: p, Significant: lo > 1 || hi < 1, Method: method}
}

// blockResampler draws moving-block bootstrap resamples of one series and
// returns their sums.
type blockResampler struct {
	n, l   int
	prefix []float64 // prefix[i] = xs[0] + … + xs[i-1]
}

func newBlockResampler(xs []float64) blockResampler {
	n := len(xs)
	l := max(2, int(math.Round(math.Sqrt(float64(n)))))
	l = min(l, n)
	prefix := make([]float64, n+1)
	for i, x := range xs {
		prefix[i+1] = prefix[i] + x
	}
	return blockResampler{n: n, l: l, prefix: prefix}
}

// mean concatenates blocks of length l, each starting uniformly in [0, n-l],
// until the resample has n values (the last block cut short), and returns
// the resample's mean.
func (br blockResampler) mean(rng *rand.Rand) float64 {
	var sum float64
	for filled := 0; filled < br.n; {
		k := min(br.l, br.n-filled)
		start := rng.IntN(br.n - br.l + 1)
		sum += br.prefix[start+k] - br.prefix[start]
		filled += k
	}
	return sum / float64(br.n)
}

// percentile is the p-quantile (0 ≤ p ≤ 1) of sorted xs, interpolating
// linearly between order statistics.
func percentile(sorted []float64, p float64) float64 {
	pos := p * float64(len(sorted)-1)
	i := int(math.Floor(pos))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	if f == 0 {
		return sorted[i]
	}
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}

// Bootstrap compares the means of two series of per-second samples.
//
// The samples of a series are autocorrelated, so each series is resampled
// independently with a moving-block bootstrap (block length round(√n), at
// least 2 and at most n) and the ratio of the resampled means is taken
// 2000 times; the interval is its 2.5 and 97.5 percentiles and P is twice
// the smaller tail fraction at 1. The result depends only on the data and
// seed. Series with fewer than 3 samples or mean(a) ≤ 0 give Method "none",
// as does the rare case where so many resamples of a have a mean ≤ 0 that
// the interval is unbounded.
func Bootstrap(a, b []float64, seed uint64) Diff {
	if len(a) < 3 || len(b) < 3 {
		return none(a, b, tooFew("seconds", a, b, 3))
	}
	ma, _ := meanVar(a)
	mb, _ := meanVar(b)
	if ma <= 0 {
		return none(a, b, "the base's mean is 0: no ratio")
	}
	r := mb / ma

	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	ra, rb := newBlockResampler(a), newBlockResampler(b)
	ratios := make([]float64, bootstrapIters)
	var le, ge int
	for i := range ratios {
		sa := ra.mean(rng)
		sb := rb.mean(rng)
		var q float64
		switch {
		case sa > 0:
			q = sb / sa
		case sb > 0:
			q = math.Inf(1)
		case sb == 0:
			q = 1 // 0/0: both resamples are all zero, no difference
		default:
			q = math.Inf(-1)
		}
		ratios[i] = q
		if q <= 1 {
			le++
		}
		if q >= 1 {
			ge++
		}
	}
	sort.Float64s(ratios)
	lo, hi := percentile(ratios, 0.025), percentile(ratios, 0.975)
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return none(a, b, "the base's seconds are mostly 0: the interval of the ratio is unbounded")
	}
	return ratioDiff("bootstrap", r, lo, hi, math.Min(1, 2*float64(min(le, ge))/float64(bootstrapIters)))
}
