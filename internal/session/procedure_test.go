package session_test

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/firebird"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestSlottedProcedures: nms --procedure on the engines whose procedures take
// no arrays (one parameter per field of each update, made for --ops-per-call),
// per unit and every:5; the checks prove every update of every call landed.
func TestSlottedProcedures(t *testing.T) {
	dbs := map[string]func() error{
		"mariadb:managed":  func() error { _, _, err := mariadb.FindServer(); return err },
		"firebird:managed": func() error { _, _, _, _, err := firebird.FindServer(); return err },
	}
	for db, find := range dbs {
		t.Run(db, func(t *testing.T) {
			testenv.Need(t, find()) // .ci/run installs both servers: in CI this never skips
			res := workloadtest.Run(t, spec(t, "nms"), map[string]string{"db": db, "procedure": "true", "units": "60", "lines": "300", "ops-per-call": "9"})
			if m := res.Phase("measure"); m.Ops[len(m.Ops)-1].Count != 60 {
				t.Fatalf("%d procedure calls, want 60", m.Ops[len(m.Ops)-1].Count)
			}
			workloadtest.Run(t, spec(t, "nms"), map[string]string{"db": db, "procedure": "true", "commit": "every:5", "units": "50", "lines": "300"})
		})
	}
}
