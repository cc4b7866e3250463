package catalog

import (
	"strings"
	"testing"
)

// TestEveryLevelPromises: each durability level an engine offers says what
// its documentation promises it keeps (dbgauge crash holds it to that), and
// a level that keeps commits through a power loss keeps them through a
// crash too.
func TestEveryLevelPromises(t *testing.T) {
	for _, b := range Backends() {
		for level, doc := range b.Durability {
			if strings.HasPrefix(doc, "refused") {
				continue
			}
			p, ok := b.Promises[level]
			if !ok || p.Doc == "" {
				t.Errorf("%s %s: no documented promise", b.Name, level)
			}
			if p.Power && !p.Crash {
				t.Errorf("%s %s: keeps commits through a power loss but not a crash", b.Name, level)
			}
		}
	}
}
