package stats

import (
	"fmt"
	"math"
)

// TrendBlocks is how many batches Trend cuts a series into, and
// TrendMinPerBlock the fewest points a batch may hold: a shorter series
// gets no trend.
const (
	TrendBlocks      = 10
	TrendMinPerBlock = 3
)

// Trend is the straight line through a series in time, with the
// uncertainty of its slope.
type Trend struct {
	Mean   float64 `json:"mean"`  // the series' mean
	Slope  float64 `json:"slope"` // per second, least squares through the batch means
	Lo     float64 `json:"lo"`    // 95 % interval of the slope (Student's t, blocks-2 degrees of freedom)
	Hi     float64 `json:"hi"`
	Span   float64 `json:"span"`   // seconds from the first batch's middle to the last's
	Blocks int     `json:"blocks"` // the batches fitted
}

// FitTrend fits a line through xs observed at times ts (seconds, rising) by
// the method of batch means: the series is cut into TrendBlocks batches of
// consecutive points (fewer when it is short, never fewer than 5 of at
// least TrendMinPerBlock points), each batch is its mean time and mean
// value, and the slope is the least-squares line through those means. The
// batches take out most of the correlation between neighbouring seconds
// (a stall's seconds fall into one batch), so that the interval of the
// slope is honest where a fit through every second would be too narrow.
func FitTrend(ts, xs []float64) (Trend, error) {
	n := len(xs)
	if len(ts) != n {
		return Trend{}, fmt.Errorf("trend: %d times for %d values", len(ts), n)
	}
	k := min(TrendBlocks, n/TrendMinPerBlock)
	if k < 5 {
		return Trend{}, fmt.Errorf("too short: %d points (%d needed: 5 batches of %d)", n, 5*TrendMinPerBlock, TrendMinPerBlock)
	}
	bt, bx := make([]float64, k), make([]float64, k)
	for b := range k {
		lo, hi := b*n/k, (b+1)*n/k
		bt[b], _ = meanVar(ts[lo:hi])
		bx[b], _ = meanVar(xs[lo:hi])
	}
	mt, _ := meanVar(bt)
	mx, _ := meanVar(xs)
	mbx, _ := meanVar(bx)
	var sxx, sxy float64
	for b := range k {
		sxx += (bt[b] - mt) * (bt[b] - mt)
		sxy += (bt[b] - mt) * (bx[b] - mbx)
	}
	if sxx == 0 {
		return Trend{}, fmt.Errorf("trend: the series spans no time")
	}
	slope := sxy / sxx
	var sse float64
	for b := range k {
		r := bx[b] - (mbx + slope*(bt[b]-mt))
		sse += r * r
	}
	se := math.Sqrt(sse / float64(k-2) / sxx)
	half := tQuantile975(float64(k-2)) * se
	return Trend{Mean: mx, Slope: slope, Lo: slope - half, Hi: slope + half, Span: bt[k-1] - bt[0], Blocks: k}, nil
}
