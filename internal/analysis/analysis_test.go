package analysis

import (
	"path/filepath"
	"testing"

	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
)

// writeMatrix writes a matrix folder whose cells hold the given rates, by
// knob values key, one per repeat.
func writeMatrix(t *testing.T, axes []result.Axis, repeat int, rates map[string][]float64) string {
	t.Helper()
	dir := t.TempDir()
	m := matrix.New("m", "insert", "inserts/s", nil, nil, axes, repeat, false, 1)
	for i := range m.Cells {
		c := &m.Cells[i]
		w, err := result.Create(filepath.Join(dir, "cells"), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		rate := rates[c.Key][c.Repeat-1]
		r := &result.Result{Schema: result.Schema, ID: c.ID, Status: result.Completed,
			Summary: result.Summary{Metric: "inserts/s", Rate: rate, P50Us: int64(1e6 / rate), P99Us: int64(3e6 / rate)}}
		if err := w.Save(r); err != nil {
			t.Fatal(err)
		}
		c.Status = result.Completed
	}
	if err := matrix.Save(dir, m); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestScalingAndEffects(t *testing.T) {
	axes := []result.Axis{{Knob: "durability", Values: []string{"sync", "off"}}, {Knob: "clients", Values: []string{"4", "1", "2"}}}
	dir := writeMatrix(t, axes, 3, map[string][]float64{
		"durability=sync clients=1": {100, 102, 98},
		"durability=sync clients=2": {190, 188, 192},
		"durability=sync clients=4": {195, 197, 193},
		"durability=off clients=1":  {1000, 1010, 990},
		"durability=off clients=2":  {1500, 1490, 1510},
		"durability=off clients=4":  {2000, 2020, 1980},
	})
	m, err := LoadMatrix(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Groups) != 6 || m.Missing != 0 {
		t.Fatalf("%d groups, %d missing", len(m.Groups), m.Missing)
	}
	s := m.Scaling
	if s == nil || len(s.Clients) != 3 || s.Clients[0] != 1 || s.Clients[2] != 4 {
		t.Fatalf("scaling %+v", s)
	}
	if s.Lines[0].Others != "durability=sync" || s.Lines[0].Plateau != 2 || s.Lines[1].Plateau != 4 {
		t.Errorf("plateaus: %+v / %+v", s.Lines[0], s.Lines[1])
	}
	d := m.Effects[0]
	if d.Knob != "durability" || len(d.Rows) != 3 || d.Rows[0].Others != "clients=4" {
		t.Fatalf("durability effect %+v", d)
	}
	off := d.Rows[1].Diffs[1] // clients=1: off against sync, about ×10
	if off.Method != "welch" || !off.Significant || off.Ratio < 9.5 || off.Ratio > 10.5 || off.Lo > 10 || off.Hi < 10 {
		t.Errorf("off against sync at one client: %+v", off)
	}
	if v := Verdict(off, m.Metrics[0]); v != "faster" {
		t.Errorf("verdict %q", v)
	}
	// clients 4 against 2 at sync: 195 against 190, within the noise of three repeats? No:
	// the spread is 2, so it is a real 2.6 % — and Welch says so.
	c := m.Effects[1].Rows[0] // sync: clients 4 (base), 1, 2
	if c.Diffs[0].Method != "identity" || c.Diffs[2].Ratio > 1 || !c.Diffs[2].Significant {
		t.Errorf("clients effect at sync: %+v", c.Diffs)
	}
}

func TestCompareLoneRunsNotSignificant(t *testing.T) {
	// Two runs whose seconds differ by 3 %, with little noise: the bootstrap
	// alone would call it, the single-run margin does not.
	mk := func(rate float64) *Input {
		r := &result.Result{Summary: result.Summary{Metric: "inserts/s", Rate: rate}, Config: result.Config{Clients: 1}}
		for i := 0; i < 20; i++ {
			x := rate * (1 + 0.002*float64(i%3-1))
			r.Series = append(r.Series, result.Second{Phase: "measure", Dt: 1, OK: int64(x), P50Us: 100, P99Us: 300})
		}
		return &Input{Label: "x", Metric: "inserts/s", Groups: []*Group{NewGroup("", nil, []*result.Result{r}, []string{"."}, MetricsFor("inserts/s"))}}
	}
	c, err := Compare([]*Input{mk(1000), mk(1030)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Rows[0].Diffs[1]; d.Method != "bootstrap" || d.Significant || c.Rows[0].Verdict[1] != "not significant" {
		t.Errorf("3 %% apart, single runs: %+v %s", d, c.Rows[0].Verdict[1])
	}
	c, _ = Compare([]*Input{mk(1000), mk(1300)}, 1)
	if c.Rows[0].Verdict[1] != "faster" {
		t.Errorf("30 %% apart, single runs: %+v", c.Rows[0])
	}
}

// TestVerdictCannotJudge: too little data is worded as such, with its
// reason, never as "not significant".
func TestVerdictCannotJudge(t *testing.T) {
	d := stats.Welch([]float64{100}, []float64{90, 91})
	if got, want := Verdict(d, Metric{Key: "rate", HigherBetter: true}), "cannot judge: too few repeats: 1 and 2 (2 each needed)"; got != want {
		t.Errorf("Verdict = %q, want %q", got, want)
	}
}

// TestCompareCosts: the costs per unit every run counted are compared too,
// after the headline; one run each gives their ratio with no interval,
// repeats give Welch's; a cost one side did not count is left out.
func TestCompareCosts(t *testing.T) {
	mk := func(label string, written ...float64) *Input {
		var runs []*result.Result
		for _, w := range written {
			r := &result.Result{Summary: result.Summary{Metric: "inserts/s", Rate: 1000}, Config: result.Config{Clients: 1},
				Cost: []result.UnitCost{{Key: result.CostWritten, Label: "written", Value: w, Unit: "KiB"}}}
			if label != "off" {
				r.Cost = append(r.Cost, result.UnitCost{Key: result.CostFlushes, Label: "flushes", Value: 1})
			}
			runs = append(runs, r)
		}
		return &Input{Label: label, Metric: "inserts/s", Groups: []*Group{NewGroup("", nil, runs, []string{"."}, MetricsFor("inserts/s"))}}
	}
	c, err := Compare([]*Input{mk("sync", 8), mk("off", 0.2)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	last := c.Rows[len(c.Rows)-1]
	if len(c.Rows) != 4 || last.Metric.Key != "cost:"+result.CostWritten || !last.Metric.Cost || last.Metric.HigherBetter {
		t.Fatalf("rows %+v: want rate, p50, p99 and written (flushes counted on one side only)", c.Rows)
	}
	if d := last.Diffs[1]; d.Method != "figures" || d.Ratio != 0.025 || d.Significant || last.Verdict[1] != "no interval" {
		t.Fatalf("one run each: %+v %s", d, last.Verdict[1])
	}
	c, err = Compare([]*Input{mk("sync", 8, 8.2, 7.9), mk("sync2", 4, 4.1, 3.9)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	last = c.Rows[len(c.Rows)-1]
	if d := last.Diffs[1]; last.Metric.Key != "cost:"+result.CostFlushes || d.Method != "welch" {
		t.Fatalf("repeats: %s %+v", last.Metric.Key, d)
	}
	if d := c.Rows[len(c.Rows)-2].Diffs[1]; !d.Significant || d.Ratio > 0.51 || c.Rows[len(c.Rows)-2].Verdict[1] != "less" {
		t.Fatalf("half the bytes written, over repeats: %+v %s", d, c.Rows[len(c.Rows)-2].Verdict[1])
	}
}
