package objects_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/workload/objects"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestPhases runs every phase for real on SQLite and bbolt, each engine's
// phases on one dataset (as a matrix's cells reuse it); the checks prove
// every object decodes with valid references, every acknowledged write is
// there, and every read found its object.
func TestPhases(t *testing.T) {
	for _, db := range []string{"sqlite", "bbolt"} {
		path := db + ":" + filepath.Join(t.TempDir(), db+".db")
		for _, phase := range []string{"add", "update", "warm", "cold", "hot", "steamin", "app"} {
			t.Run(db+"/"+phase, func(t *testing.T) {
				args := map[string]string{"db": path, "phase": phase, "conferences": "60", "contributions": "4",
					"objects": "60", "clients": "3", "duration": "300ms", "durability": "off", "ceiling": "off", "object-bytes": "300"}
				res := workloadtest.Run(t, objects.Spec, args)
				if phase != "add" && !res.Dataset.Reused {
					t.Errorf("the dataset of the add phase was not reused")
				}
				// Where adds resume: past none on the new dataset, past the
				// add phase's on the one reused after it (its hw.* records).
				added := res.Dataset.Facts["added_before"]
				if n, err := strconv.Atoi(added); err != nil || (phase == "add") != (n == 0) {
					t.Errorf("added_before = %q", added)
				}
				m := res.Phase("measure")
				if m.Units[0].Name != phase {
					t.Errorf("unit kind %q, want %q", m.Units[0].Name, phase)
				}
				f := res.Dataset.Facts["caches_cleared"]
				if (phase == "cold") != (f != "") || (phase == "cold" && !strings.Contains(f, "opened again")) {
					t.Errorf("caches_cleared = %q", f)
				}
				if phase == "app" {
					var seen bool
					for _, c := range res.Checks {
						seen = seen || strings.HasPrefix(c.Name, "throughput_at_")
					}
					if !seen {
						t.Error("no throughput checkpoint reported")
					}
				}
			})
		}
	}
}
