package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// histograms returns histograms of every shape the runs make: empty, one
// value, the range's ends, tight and long-tailed spreads, huge counts.
func histograms() map[string]*hdrhistogram.Histogram {
	rng := rand.New(rand.NewPCG(7, 11))
	out := map[string]*hdrhistogram.Histogram{}
	add := func(name string, fill func(h *hdrhistogram.Histogram)) {
		h := NewHistogram()
		fill(h)
		out[name] = h
	}
	add("empty", func(*hdrhistogram.Histogram) {})
	add("one", func(h *hdrhistogram.Histogram) { recordUs(h, 250*time.Microsecond) })
	add("lowest", func(h *hdrhistogram.Histogram) { _ = h.RecordValue(lowestUs) })
	add("highest", func(h *hdrhistogram.Histogram) { _ = h.RecordValues(highestUs, 3) })
	add("ends", func(h *hdrhistogram.Histogram) { _ = h.RecordValue(lowestUs); _ = h.RecordValue(highestUs) })
	add("below_2048", func(h *hdrhistogram.Histogram) {
		for range 5000 {
			_ = h.RecordValue(1 + rng.Int64N(2047))
		}
	})
	add("long_tail", func(h *hdrhistogram.Histogram) {
		for range 100_000 {
			recordUs(h, time.Duration(50+rng.ExpFloat64()*400)*time.Microsecond)
		}
		for range 20 {
			recordUs(h, time.Duration(rng.Int64N(int64(5*time.Minute))))
		}
	})
	add("huge_counts", func(h *hdrhistogram.Histogram) {
		_ = h.RecordValues(90, 1<<40)
		_ = h.RecordValues(3_000_000, 1<<58) // a nine-byte LEB128 count
		_ = h.RecordValues(3_000_001, 1)
	})
	add("zero_runs", func(h *hdrhistogram.Histogram) { // runs of one zero and of many
		for _, v := range []int64{10, 12, 13, 15, 4000, 4004, 90_000} {
			_ = h.RecordValue(v)
		}
	})
	return out
}

func TestSummaryMatchesLibrary(t *testing.T) {
	for name, h := range histograms() {
		t.Run(name, func(t *testing.T) {
			v, ok := viewOf(h)
			if !ok {
				t.Fatal("viewOf refused the histogram")
			}
			if got, want := Max(h), h.Max(); got != want {
				t.Errorf("Max %d, library %d", got, want)
			}
			if got, want := v.mean(), h.Mean(); got != want {
				t.Errorf("mean %v, library %v", got, want)
			}
			for _, hist := range []bool{false, true} {
				l := Summarize(name, h, hist)
				want := []int64{h.ValueAtQuantile(50), h.ValueAtQuantile(90), h.ValueAtQuantile(95), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9), h.Max(), h.Min()}
				got := []int64{l.P50Us, l.P90Us, l.P95Us, l.P99Us, l.P999Us, l.MaxUs, l.MinUs}
				if h.TotalCount() == 0 {
					want = make([]int64, len(got))
				}
				if !slices.Equal(got, want) {
					t.Errorf("hist %v: p50 p90 p95 p99 p99.9 max min %v, library %v", hist, got, want)
				}
				if h.TotalCount() > 0 && l.MeanUs != h.Mean() {
					t.Errorf("hist %v: mean %v, library %v", hist, l.MeanUs, h.Mean())
				}
				if sd := h.StdDev(); math.Abs(l.SdUs-sd) > 1e-9*max(sd, 1) {
					t.Errorf("hist %v: sd %v, library %v", hist, l.SdUs, sd)
				}
			}
			dec, err := hdrhistogram.Decode([]byte(v.encode()))
			if err != nil {
				t.Fatalf("the encoding does not decode: %v", err)
			}
			if !dec.Equals(h) {
				t.Errorf("the encoding decodes to another histogram: %d values, min %d max %d", dec.TotalCount(), dec.Min(), dec.Max())
			}
			lib, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				t.Fatal(err)
			}
			fromLib, err := hdrhistogram.Decode(lib)
			if err != nil {
				t.Fatal(err)
			}
			if !fromLib.Equals(dec) {
				t.Error("the library's encoding and ours decode to different histograms")
			}
			// A decoded histogram (compare, a matrix's repeats) takes the fast path too.
			if _, ok := viewOf(dec); !ok {
				t.Error("viewOf refused a decoded histogram")
			}
		})
	}
}

func TestMergeMatchesLibrary(t *testing.T) {
	hs := histograms()
	for name, src := range hs {
		t.Run(name, func(t *testing.T) {
			got, want := NewHistogram(), NewHistogram()
			for _, dst := range []*hdrhistogram.Histogram{got, want} {
				_ = dst.RecordValues(777, 5)
			}
			Merge(got, src)
			want.Merge(src)
			if !got.Equals(want) {
				t.Errorf("merge: %d values, max %d; library: %d values, max %d", got.TotalCount(), got.Max(), want.TotalCount(), want.Max())
			}
		})
	}
}

// Another geometry takes the library's own paths.
func TestOtherGeometry(t *testing.T) {
	h := hdrhistogram.New(1, 1000, 2)
	_ = h.RecordValue(500)
	if _, ok := viewOf(h); ok {
		t.Fatal("viewOf accepted a histogram of another geometry")
	}
	if got := Max(h); got != h.Max() {
		t.Errorf("Max %d, library %d", got, h.Max())
	}
	l := Summarize("x", h, true)
	if l.MaxUs != h.Max() || l.MeanUs != h.Mean() || l.Hist == "" {
		t.Errorf("summary of another geometry: %+v", l)
	}
}

// BenchmarkRecord is the per-second work of a tpcb run at 5,000
// transactions a second: a phase record with encoded histograms.
func BenchmarkRecord(b *testing.B) {
	shape := Shape{Units: []string{"tpcb"}, Ops: []string{"a", "b", "c", "d", "e", "f", "g"}}
	set := NewSet(shape, 8)
	p := NewPhase("measure", shape, time.Now())
	rng := rand.New(rand.NewPCG(1, 2))
	set.Start(time.Now())
	for id := range 8 {
		r := set.Recorder(id)
		for range 3000 {
			for op := range 7 {
				r.Op(op, time.Duration(50+rng.ExpFloat64()*300)*time.Microsecond)
			}
			r.Unit(0, time.Duration(800+rng.ExpFloat64()*2000)*time.Microsecond)
		}
	}
	p.Add(set.Tick(time.Now()))
	for b.Loop() {
		p.Record(true)
	}
}

// TestAtOrBelow: the values at or below each limit, as the library's own
// distribution counts them.
func TestAtOrBelow(t *testing.T) {
	h := NewHistogram()
	for _, v := range []int64{1, 99, 100, 101, 999, 1000, 5000, 123456, 9_000_000} {
		_ = h.RecordValue(v)
	}
	limits := []int64{0, 100, 1000, 10_000, 1_000_000, 600_000_000}
	got := AtOrBelow(h, limits)
	want := make([]int64, len(limits))
	for _, b := range h.Distribution() {
		for j, l := range limits {
			if b.To <= l {
				want[j] += b.Count
			}
		}
	}
	if !slices.Equal(got, want) || got[1] != 3 || got[2] != 6 || got[len(got)-1] != 9 {
		t.Errorf("AtOrBelow = %v, library %v", got, want)
	}
}
