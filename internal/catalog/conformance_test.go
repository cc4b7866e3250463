package catalog

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/sqlkv"
)

// TestConformance runs the backend suite against every registered backend,
// on the real engine, and against every SQL backend again as key-value.
func TestConformance(t *testing.T) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { backendtest.Run(t, b, sqlkv.Wrap) })
	}
}

// TestDurabilityVerdict runs the durability verdict on a sync run and an
// off run of every registered engine (backendtest.DurabilityVerdict): what
// each counts of its flushes, and where it comes from, must make it true.
func TestDurabilityVerdict(t *testing.T) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { backendtest.DurabilityVerdict(t, b) })
	}
}
