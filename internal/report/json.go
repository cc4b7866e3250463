package report

import (
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/result"
)

// RunSummary is what --json prints at the end of a run: the terminal
// summary's figures as data, for a script (result.json holds everything,
// the series and the histograms too).
type RunSummary struct {
	Result   string         `json:"result"` // the result folder
	Report   string         `json:"report"` // its report.html
	ID       string         `json:"id"`
	Status   result.Status  `json:"status"`
	Reason   string         `json:"reason,omitempty"`
	Workload string         `json:"workload"`
	Backend  string         `json:"backend"`
	Engine   string         `json:"engine"` // name and version, as the engine reports them
	Clients  int            `json:"clients"`
	Summary  result.Summary `json:"summary"`
	// Latency is the measure phase's latency of every unit (µs: count,
	// mean, sd, percentiles); Units the same per unit kind.
	Latency   *result.Latency  `json:"latency,omitempty"`
	Units     []result.Latency `json:"units,omitempty"`
	FailedBy  map[string]int64 `json:"failed_by_class,omitempty"` // failed units by error class
	Checks    []result.Check   `json:"checks"`
	Verdicts  []result.Verdict `json:"requirements"`
	Durable   string           `json:"durability_verdict,omitempty"` // the commit rate against the flush ceiling
	Harness   string           `json:"harness_verdict,omitempty"`    // whether dbgauge could have been the limit
	PerClient float64          `json:"per_client,omitempty"`         // the headline rate per client
}

// NewRunSummary returns r's summary as --json prints it; dir is r's folder.
func NewRunSummary(r *result.Result, dir string) RunSummary {
	s := RunSummary{
		Result: dir, Report: filepath.Join(dir, "report.html"), ID: r.ID, Status: r.Status, Reason: r.Reason,
		Workload: r.Config.Workload, Backend: r.Config.Backend, Engine: r.Engine.Name + " " + r.Engine.Version,
		Clients: r.Config.Clients, Summary: r.Summary, Checks: r.Checks, Verdicts: r.Verdicts, PerClient: r.PerClient(),
	}
	if m := r.Phase("measure"); m != nil {
		all := m.All
		all.Hist = ""
		s.Latency = &all
		for _, u := range m.Units {
			u.Hist = ""
			s.Units = append(s.Units, u)
		}
		for _, f := range m.Failures {
			if s.FailedBy == nil {
				s.FailedBy = map[string]int64{}
			}
			s.FailedBy[f.Class] += f.Count
		}
	}
	if r.Durability != nil {
		s.Durable = r.Durability.Verdict
	}
	if r.Harness != nil {
		s.Harness = r.Harness.Limit
	}
	return s
}

// JSON writes r's summary as JSON (--json), in place of Summary's text.
func JSON(out io.Writer, r *result.Result, dir string) error {
	return writeJSON(out, NewRunSummary(r, dir))
}

// MatrixJSON writes an analysed matrix as JSON (--json), in place of
// Matrix's text: its cells' groups with their summaries over the repeats,
// each knob's effect, the scaling curve.
func MatrixJSON(out io.Writer, m *analysis.Matrix, htmlPath string) error {
	return writeJSON(out, struct {
		*analysis.Matrix
		Report string `json:"report"`
	}{m, htmlPath})
}

func writeJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
