package catalog

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/sqlkv"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// pythonEnvs makes the Python environments of the engines run through a
// worker, when they are missing, as .ci/run does.
func pythonEnvs(t *testing.T) {
	for _, e := range Environments() {
		testenv.PythonEnv(t, e)
	}
}

// TestConformance runs the backend suite against every registered backend,
// on the real engine, and against every SQL backend again as key-value.
func TestConformance(t *testing.T) {
	pythonEnvs(t)
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { backendtest.Run(t, b, sqlkv.Wrap) })
	}
}

// TestDurabilityVerdict runs the durability verdict on a sync run and an
// off run of every registered engine (backendtest.DurabilityVerdict): what
// each counts of its flushes, and where it comes from, must make it true.
func TestDurabilityVerdict(t *testing.T) {
	pythonEnvs(t)
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { backendtest.DurabilityVerdict(t, b) })
	}
}
