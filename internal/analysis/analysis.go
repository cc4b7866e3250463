// Package analysis turns result files into decisions: the runs of a matrix
// grouped by cell with their noise, each knob's effect, the scaling curve
// over clients, and comparisons that say "faster", "slower" or "not
// significant". It reads results only; reports (terminal and HTML) are views
// of what it returns.
package analysis

import (
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// Metric is one number compared across runs.
type Metric struct {
	Key          string `json:"key"`   // "rate", "p50_us", "p99_us"
	Label        string `json:"label"` // "calls/s", "p50", "p99"
	Unit         string `json:"unit"`  // "" for rates, "µs" for latencies
	HigherBetter bool   `json:"higher_better"`
	// Cost marks a cost per unit (result.UnitCost): one figure a run, in
	// Unit ("µs", "KiB", "B", "" a count), lower is better.
	Cost bool `json:"cost,omitempty"`
}

// Group is one cell of a matrix: the runs of one combination of knob values.
type Group struct {
	Key    string                   `json:"key"`    // "durability=sync commit=op"; "" for a lone run
	Values map[string]string        `json:"values"` // axis knob → value
	Runs   []*result.Result         `json:"-"`      // its completed runs, one per repeat
	Dirs   []string                 `json:"dirs"`   // their folders
	Stats  map[string]stats.Summary `json:"stats"`  // metric key → summary over the runs
}

// Matrix is a matrix folder, analysed.
type Matrix struct {
	Dir     string         `json:"dir"`
	Index   *result.Matrix `json:"index"`
	Metrics []Metric       `json:"metrics"` // Metrics[0] is the headline (rate)
	Groups  []*Group       `json:"groups"`  // in the axes' order
	Effects []Effect       `json:"effects"` // one per axis
	Scaling *Scaling       `json:"scaling,omitempty"`
	Data    *DataCurve     `json:"data,omitempty"` // throughput against data size (--dataset or --records an axis)
	// Versions compares the versions of one engine that an axis ran.
	Versions *Versions `json:"versions,omitempty"`
	Missing  int       `json:"missing"` // cells with no completed result
	// Failures are the completed cells whose consistency checks failed or
	// whose requirements were not met, combination by combination.
	Failures []Failure `json:"failures,omitempty"`
}

// Failure is a completed cell that failed: each of its checks that failed,
// with what it found (its detail leads with the figure: "3, e.g. …"), and
// each requirement it did not meet, with what was measured.
type Failure struct {
	Cell     string           `json:"cell"` // "007-r2"
	Key      string           `json:"key"`  // "isolation=read-committed"
	Dir      string           `json:"dir"`  // its result folder, relative to the matrix folder
	Checks   []result.Check   `json:"checks,omitempty"`
	Verdicts []result.Verdict `json:"verdicts,omitempty"`
}

// FailureOf returns r's failed checks and unmet requirements as cell's
// Failure, and whether it has any.
func FailureOf(cell result.Cell, r *result.Result) (Failure, bool) {
	f := Failure{Cell: cell.ID, Key: cell.Key, Dir: cell.Dir}
	for _, c := range r.Checks {
		if !c.OK {
			f.Checks = append(f.Checks, c)
		}
	}
	for _, v := range r.Verdicts {
		if !v.OK {
			f.Verdicts = append(f.Verdicts, v)
		}
	}
	return f, len(f.Checks)+len(f.Verdicts) > 0
}

// Effect is what changing one knob does, everything else held equal.
type Effect struct {
	Knob   string      `json:"knob"`
	Values []string    `json:"values"`
	Rows   []EffectRow `json:"rows"` // one per combination of the other knobs
}

// EffectRow is the headline for each value of the knob, at one combination of
// the other knobs.
type EffectRow struct {
	Others string          `json:"others"` // "commit=op prepare=once"; "" when the knob is the only axis
	Stats  []stats.Summary `json:"stats"`  // per value of the knob, the headline over repeats
	Diffs  []stats.Diff    `json:"diffs"`  // per value, against the first value (Diffs[0] is the identity)
}

// Scaling is the curve of throughput and p99 against clients, one line per
// combination of the other knobs.
type Scaling struct {
	Clients []int         `json:"clients"`
	Lines   []ScalingLine `json:"lines"`
}

// ScalingLine is one curve.
type ScalingLine struct {
	Others  string          `json:"others"`
	Rate    []stats.Summary `json:"rate"`    // per Clients entry
	P99     []stats.Summary `json:"p99"`     // per Clients entry, µs
	Plateau int             `json:"plateau"` // the fewest clients reaching 95 % of the best throughput; 0 if none
}

// Comparison sets two or more results or matrices side by side.
type Comparison struct {
	Labels []string     `json:"labels"` // one per input, the first is the base
	Metric string       `json:"metric"` // the headline's name: "calls/s"
	Rows   []CompareRow `json:"rows"`
}

// CompareRow is one metric of one matched cell across the inputs.
type CompareRow struct {
	Key     string          `json:"key"` // the matched cell; "" for lone runs
	Metric  Metric          `json:"metric"`
	Stats   []stats.Summary `json:"stats"`   // per input
	Diffs   []stats.Diff    `json:"diffs"`   // per input against the first (Diffs[0] is the identity)
	Verdict []string        `json:"verdict"` // per input: "faster", "slower", "not significant" ("better"/"worse" wording for latencies is the report's)
}
