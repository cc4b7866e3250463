package oltpemul_test

import (
	"errors"
	"testing"

	"github.com/dbgauge/dbgauge/internal/bench"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload/oltpemul"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestSQLite runs every business action with four clients on SQLite after a
// fill, and the checks prove the books.
func TestSQLite(t *testing.T) {
	res := workloadtest.Run(t, oltpemul.Spec, map[string]string{"init-docs": "300", "clients": "4", "duration": "2s", "mode": "small", "wares": "50"})
	m := res.Phase("measure")
	for _, u := range m.Units {
		if u.Count == 0 && u.Name != "aggregate" {
			t.Errorf("no %s succeeded", u.Name)
		}
	}
	if res.Dataset.Facts["documents"] == "" || res.Summary.PerMinute != 60*res.Summary.Rate {
		t.Errorf("facts %v, P %v for %v/s", res.Dataset.Facts, res.Summary.PerMinute, res.Summary.Rate)
	}
	if len(res.Checks) != 7 {
		t.Errorf("%d checks", len(res.Checks))
	}
}

func TestBadKnobs(t *testing.T) {
	for _, args := range []map[string]string{{"mode": "huge"}, {"commit": "op"}, {"wares": "0"}, {"init-docs": "-1"}} {
		v := bench.NewValues(oltpemul.Spec)
		for k, s := range args {
			v.Set(k, s)
		}
		_, err := bench.NewPlan(bench.Request{Workload: oltpemul.Spec, Values: v})
		var bad *knob.Error
		if !errors.As(err, &bad) {
			t.Errorf("%v: %v, want bad input", args, err)
		}
	}
}
