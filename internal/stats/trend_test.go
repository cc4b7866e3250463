package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// line is n seconds of mean m changing by slope a second, with AR(1)
// noise of coefficient phi and innovations of sd sd: neighbouring
// seconds alike, as a run's are.
func line(seed uint64, n int, m, slope, phi, sd float64) (ts, xs []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	e := 0.0
	for i := range n {
		e = phi*e + rng.NormFloat64()*sd
		ts = append(ts, float64(i)+0.5)
		xs = append(xs, m+slope*float64(i)+e)
	}
	return ts, xs
}

// TestFitTrendFindsTheSlope: a clean line is found exactly; a noisy one
// within its interval.
func TestFitTrendFindsTheSlope(t *testing.T) {
	ts, xs := line(1, 600, 1000, -0.2, 0, 0)
	tr, err := FitTrend(ts, xs)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(tr.Slope+0.2) > 1e-9 || tr.Blocks != TrendBlocks || math.Abs(tr.Mean-(1000-0.2*299.5)) > 1e-9 {
		t.Fatalf("clean line: %+v, want slope -0.2 over %d blocks", tr, TrendBlocks)
	}
	ts, xs = line(2, 600, 1000, -0.2, 0.5, 20)
	if tr, err = FitTrend(ts, xs); err != nil || tr.Lo > -0.2 || tr.Hi < -0.2 || tr.Hi >= 0 {
		t.Fatalf("noisy falling line: %+v %v, want an interval round -0.2 below 0", tr, err)
	}
}

// TestFitTrendIntervalHoldsUnderCorrelation: with neighbouring seconds
// correlated (AR(1), φ = 0.8), the batch-means interval still holds the
// true slope about 95 % of the time; a fit through every second, whose
// interval assumes independent seconds, would hold it far less often.
func TestFitTrendIntervalHoldsUnderCorrelation(t *testing.T) {
	const runs, slope = 400, 0.05
	held, naive := 0, 0
	for seed := range uint64(runs) {
		ts, xs := line(seed+100, 300, 1000, slope, 0.8, 10)
		tr, err := FitTrend(ts, xs)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Lo <= slope && slope <= tr.Hi {
			held++
		}
		if lo, hi := everySecond(ts, xs); lo <= slope && slope <= hi {
			naive++
		}
	}
	t.Logf("the interval held the true slope in %d of %d runs by batch means, %d fitting every second", held, runs, naive)
	if got := float64(held) / runs; got < 0.88 || got > 0.995 {
		t.Fatalf("the 95 %% interval held the true slope in %.1f %% of %d runs", 100*got, runs)
	}
	if got := float64(naive) / runs; got > 0.8 {
		t.Fatalf("a fit through every second held the true slope in %.1f %% of %d runs: the series is not correlated enough to show why batches are needed", 100*got, runs)
	}
}

// everySecond is the 95 % interval of the least-squares slope through every
// point, as if the points were independent.
func everySecond(ts, xs []float64) (lo, hi float64) {
	mt, _ := meanVar(ts)
	mx, _ := meanVar(xs)
	var sxx, sxy, sse float64
	for i := range ts {
		sxx += (ts[i] - mt) * (ts[i] - mt)
		sxy += (ts[i] - mt) * (xs[i] - mx)
	}
	b := sxy / sxx
	for i := range ts {
		r := xs[i] - mx - b*(ts[i]-mt)
		sse += r * r
	}
	half := tQuantile975(float64(len(ts)-2)) * math.Sqrt(sse/float64(len(ts)-2)/sxx)
	return b - half, b + half
}

// TestFitTrendTooShort: fewer than 5 batches of 3 points get no trend.
func TestFitTrendTooShort(t *testing.T) {
	ts, xs := line(1, 14, 10, 0, 0, 1)
	if _, err := FitTrend(ts, xs); err == nil || !strings.Contains(err.Error(), "too short: 14 points") {
		t.Fatalf("14 points: %v, want too short", err)
	}
	ts, xs = line(1, 15, 10, 0, 0, 1)
	if tr, err := FitTrend(ts, xs); err != nil || tr.Blocks != 5 {
		t.Fatalf("15 points: %+v %v, want 5 blocks", tr, err)
	}
	if _, err := FitTrend(ts[:3], xs); err == nil {
		t.Fatal("3 times for 15 values: no error")
	}
}
