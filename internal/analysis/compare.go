package analysis

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/result"
)

// Input is one side of a comparison: a run (one group, key "") or a matrix.
type Input struct {
	Label  string
	Metric string // the headline: "calls/s"
	Groups []*Group
}

// LoadInput reads a result folder or a matrix folder.
func LoadInput(path string) (*Input, error) {
	label := filepath.Base(filepath.Clean(path))
	if _, err := os.Stat(filepath.Join(path, matrix.IndexFile)); err == nil {
		m, err := LoadMatrix(path)
		if err != nil {
			return nil, err
		}
		in := &Input{Label: label, Metric: m.Index.Metric}
		for _, g := range m.Groups {
			if len(g.Runs) > 0 {
				in.Groups = append(in.Groups, g)
			}
		}
		return in, nil
	}
	r, err := result.Load(path)
	if err != nil {
		return nil, err
	}
	metric := r.Summary.Metric
	return &Input{Label: label, Metric: metric, Groups: []*Group{NewGroup("", nil, []*result.Result{r}, []string{"."}, MetricsFor(metric))}}, nil
}

// ErrNoMatch is returned by Compare when the inputs share no cell.
var ErrNoMatch = errors.New("the inputs share no cell")

// Compare sets inputs side by side against the first. Cells are matched by
// their knob values; inputs that are one cell each (two runs, or a run and a
// one-cell matrix) are matched whatever their knobs.
func Compare(inputs []*Input, seed uint64) (*Comparison, error) {
	if len(inputs) < 2 {
		return nil, fmt.Errorf("compare needs two or more results")
	}
	c := &Comparison{Metric: inputs[0].Metric}
	for _, in := range inputs {
		c.Labels = append(c.Labels, in.Label)
	}
	lone := true
	for _, in := range inputs {
		lone = lone && len(in.Groups) == 1
	}
	if lone {
		labelDifferences(inputs, c.Labels)
	}
	costs := CostMetrics(inputs)
	for _, in := range inputs {
		for _, g := range in.Groups {
			g.summarize(costs)
		}
	}
	metrics := append(MetricsFor(c.Metric), costs...)
	for _, g0 := range inputs[0].Groups {
		row := []*Group{g0}
		for _, in := range inputs[1:] {
			var match *Group
			for _, g := range in.Groups {
				if lone || g.Key == g0.Key {
					match = g
					break
				}
			}
			if match == nil {
				break
			}
			row = append(row, match)
		}
		if len(row) < len(inputs) {
			continue
		}
		for _, m := range metrics {
			cr := CompareRow{Key: g0.Key, Metric: m}
			for _, g := range row {
				d := Diff(g0, g, m.Key, seed)
				cr.Stats = append(cr.Stats, g.Stats[m.Key])
				cr.Diffs = append(cr.Diffs, d)
				cr.Verdict = append(cr.Verdict, Verdict(d, m))
			}
			c.Rows = append(c.Rows, cr)
		}
	}
	if len(c.Rows) == 0 {
		return nil, ErrNoMatch
	}
	return c, nil
}

// labelDifferences adds to each lone run's label the knobs in which the runs
// differ: "20261122-010537-nms-sqlite (durability=off)".
func labelDifferences(inputs []*Input, labels []string) {
	knobs := make([]map[string]string, len(inputs))
	names := map[string]bool{}
	for i, in := range inputs {
		r := in.Groups[0].Runs[0]
		knobs[i] = map[string]string{"db": r.Config.Backend, "durability": r.Config.Durability, "commit": r.Config.Commit,
			"prepare": r.Config.Prepare, "clients": strconv.Itoa(r.Config.Clients), "engine": r.Engine.Version}
		for k := range r.Config.Knobs {
			if _, ok := knobs[i][k]; !ok && k != "results" && k != "seed" {
				knobs[i][k] = r.Config.Knobs.Text(k)
			}
		}
		for k := range knobs[i] {
			names[k] = true
		}
	}
	var differ []string
	for k := range names {
		for _, m := range knobs[1:] {
			if m[k] != knobs[0][k] {
				differ = append(differ, k)
				break
			}
		}
	}
	sort.Strings(differ)
	if len(differ) == 0 {
		return
	}
	for i := range labels {
		var parts []string
		for _, k := range differ {
			v := knobs[i][k]
			if v == "" {
				v = "(default)"
			}
			parts = append(parts, k+"="+v)
		}
		labels[i] += " (" + strings.Join(parts, " ") + ")"
	}
}
