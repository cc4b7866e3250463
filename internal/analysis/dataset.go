package analysis

import (
	"slices"
	"sort"

	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// DataCurve is throughput and p99 against the data's size (bytes after the
// load), one line per combination of the other knobs: a matrix over
// --dataset (or --records).
type DataCurve struct {
	Knob  string     `json:"knob"` // the axis: "dataset" or "records"
	Lines []DataLine `json:"lines"`
}

// DataLine is one curve, its points in order of size.
type DataLine struct {
	Others string      `json:"others"`
	Points []DataPoint `json:"points"`
	// Cache is the engine's cache in bytes (the same in every point of the
	// line, else 0).
	Cache int64 `json:"cache,omitempty"`
	// Memory is a managed server's memory limit (--server-memory, its page
	// cache included), the same in every point of the line, else 0.
	Memory int64 `json:"server_memory,omitempty"`
	// Knee is the index of the first point whose throughput falls below
	// KneeShare of the best throughput of the smaller sizes; -1 if none.
	Knee int `json:"knee"`
}

// DataPoint is one cell of the curve.
type DataPoint struct {
	Value  string        `json:"value"` // the axis value: "4x"
	Bytes  int64         `json:"bytes"` // mean data size after the load
	Rate   stats.Summary `json:"rate"`
	P99    stats.Summary `json:"p99"`
	HitPct *float64      `json:"hit_pct,omitempty"`
}

// KneeShare is the share of the best throughput below which the curve has
// turned the knee.
const KneeShare = 0.8

// CacheHitPct is the mean cache hit ratio of runs that count one, or nil.
func CacheHitPct(runs []*result.Result) *float64 {
	sum, n := 0.0, 0
	for _, r := range runs {
		if r != nil && r.Summary.CacheHitPct != nil {
			sum += *r.Summary.CacheHitPct
			n++
		}
	}
	if n == 0 {
		return nil
	}
	m := sum / float64(n)
	return &m
}

// DataBytes is the mean data size after the load of runs (0 when unknown).
func DataBytes(runs []*result.Result) int64 {
	var sum, n int64
	for _, r := range runs {
		if r != nil && r.Dataset.Bytes > 0 {
			sum += r.Dataset.Bytes
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// cacheOf is the engine's cache in bytes of runs, when they agree.
func cacheOf(runs []*result.Result) int64 {
	var c int64
	for _, r := range runs {
		if r == nil {
			continue
		}
		if c != 0 && r.Engine.CacheBytes != c {
			return 0
		}
		c = r.Engine.CacheBytes
	}
	return c
}

// memoryOf is a managed server's memory limit of runs, when they agree.
func memoryOf(runs []*result.Result) int64 {
	var m int64
	for i, r := range runs {
		var n int64
		if r != nil && r.Server != nil {
			n = r.Server.MemoryLimit
		}
		if i > 0 && n != m {
			return 0
		}
		m = n
	}
	return m
}

// dataCurve lays out throughput against data size when --dataset (or
// --records) is an axis with two values or more.
func dataCurve(idx *result.Matrix, byKey map[string]*Group) *DataCurve {
	ai := slices.IndexFunc(idx.Axes, func(a result.Axis) bool { return a.Knob == "dataset" && a.Flag == "" })
	if ai < 0 {
		ai = slices.IndexFunc(idx.Axes, func(a result.Axis) bool { return a.Knob == "records" && a.Flag == "" })
	}
	if ai < 0 || len(idx.Axes[ai].Values) < 2 {
		return nil
	}
	a := idx.Axes[ai]
	dc := &DataCurve{Knob: a.Knob}
	combos, names := others(idx.Axes, ai)
	for ci, c := range combos {
		line := DataLine{Others: names[ci], Knee: -1}
		var all []*result.Result
		for _, v := range a.Values {
			g := byKey[matrix.Key(idx.Axes, with(c, a.Knob, v))]
			if g == nil || len(g.Runs) == 0 {
				continue
			}
			all = append(all, g.Runs...)
			line.Points = append(line.Points, DataPoint{Value: v, Bytes: DataBytes(g.Runs),
				Rate: g.Stats["rate"], P99: g.Stats["p99_us"], HitPct: CacheHitPct(g.Runs)})
		}
		sort.SliceStable(line.Points, func(i, j int) bool { return line.Points[i].Bytes < line.Points[j].Bytes })
		line.Cache, line.Memory = cacheOf(all), memoryOf(all)
		best := 0.0
		for i, p := range line.Points {
			if i > 0 && best > 0 && p.Rate.Mean < KneeShare*best {
				line.Knee = i
				break
			}
			best = max(best, p.Rate.Mean)
		}
		dc.Lines = append(dc.Lines, line)
	}
	return dc
}
