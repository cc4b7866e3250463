package catalog

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// TestManagedIsDeclared: an engine whose server dbgauge starts says so in
// its Spec (Manages), its throwaway form among them, and can restart it on
// a killed server's data (Reopen); an engine without one declares none,
// and no refusal is written but through backend.Refuse.
func TestManagedIsDeclared(t *testing.T) {
	for _, b := range Backends() {
		switch {
		case b.Serves() && !b.Managed(b.Throwaway):
			t.Errorf("%s manages %v but its throwaway form %q is not among them", b.Name, b.Manages, b.Throwaway)
		case b.Serves() && b.Reopen == nil:
			t.Errorf("%s manages a server but cannot reopen a killed one's data (Spec.Reopen)", b.Name)
		case !b.Serves() && b.Reopen != nil:
			t.Errorf("%s reopens a killed server's data but declares no managed server (Spec.Manages)", b.Name)
		}
		for _, db := range b.Manages {
			if !b.Match(db) {
				t.Errorf("%s manages %q but does not match it", b.Name, db)
			}
		}
		for level := range b.Durability {
			if why, ok := b.DurabilityRefusal(level); ok && backend.Refuse(why) != b.Durability[level] {
				t.Errorf("%s %s: a refusal not written by backend.Refuse", b.Name, level)
			}
		}
	}
}
