package listappend_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload/listappend"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestSQLite: SQLite is serializable, so a run of concurrent clients has
// dependencies, and not one anomaly among them.
func TestSQLite(t *testing.T) {
	res := workloadtest.Run(t, listappend.Spec, map[string]string{"clients": "4", "units": "600", "keys": "3"})
	if !strings.Contains(res.Checks[0].Detail, "wr") || res.Checks[0].Name != "history" {
		t.Fatalf("no history check: %+v", res.Checks[0])
	}
	if len(res.Summary.Figures) != 7 {
		t.Fatalf("figures %+v, want the 7 anomaly counts", res.Summary.Figures)
	}
}

// TestBadInput: a range of operations that is none is bad input.
func TestBadInput(t *testing.T) {
	for _, ops := range []string{"5-2", "0-3", "x", "1-500"} {
		v := session.NewValues(listappend.Spec)
		v.Set("ops", ops)
		_, err := session.NewPlan(session.Request{Workload: listappend.Spec, Values: v})
		var bad *knob.Error
		if !errors.As(err, &bad) {
			t.Errorf("--ops %s: %v, want bad input", ops, err)
		}
	}
}
