package disk

import (
	"context"
	"os"
	"testing"

	"github.com/dbgauge/dbgauge/internal/workload"
)

func TestProbeCounts(t *testing.T) {
	cfg := Config{Dir: t.TempDir(), Blocks: []int{4096}, Methods: Methods, Patterns: []Pattern{Rewrite, Append}, Ops: 50}
	cells, err := Probe(context.Background(), cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 2*len(Methods) {
		t.Fatalf("%d cells, want %d", len(cells), 2*len(Methods))
	}
	for _, c := range cells {
		if c.Error != "" || c.Ops != 50 || c.Write.Count != 50 {
			t.Errorf("method=%s/pattern=%s: ops %d, writes %d, error %q", c.Method, c.Pattern, c.Ops, c.Write.Count, c.Error)
		}
		flushes := Method(c.Method) == Fsync || Method(c.Method) == Fdatasync
		if got := c.Flush.Count; flushes && got != 50 || !flushes && got != 0 {
			t.Errorf("method=%s/pattern=%s: %d flushes timed", c.Method, c.Pattern, got)
		}
	}
}

// plainOps runs each operation untimed.
type plainOps struct{}

func (plainOps) Time(_ int, fn func() error) error { return fn() }

func TestWriterAllocatesNothing(t *testing.T) {
	for _, p := range []Pattern{Rewrite, Append} {
		f, err := os.CreateTemp(t.TempDir(), "w")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w := newWriter(f, Fdatasync, p, alignedBlock(512), 1<<20)
		var ops workload.Ops = plainOps{}
		if n := testing.AllocsPerRun(100, func() { _ = w.Do(context.Background(), 0, ops) }); n != 0 {
			t.Errorf("pattern=%s: %.1f allocations a unit, want 0", p, n)
		}
	}
}
