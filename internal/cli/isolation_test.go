package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIsolationCommand: dbgauge isolation on SQLite prints the table and
// records it, level by level, in isolation.json; bad input is refused
// before anything is written.
func TestIsolationCommand(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, nil, "isolation", "--db", "sqlite", "--case", "G1a,G2-item", "--block-after", "100ms", "--results", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "serializable") || !strings.Contains(out, "G2-item") || !strings.Contains(out, "✓ blocked") {
		t.Fatalf("no table of outcomes:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-isolation", "isolation.json"))
	if len(files) != 1 {
		t.Fatalf("isolation.json: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec isolationRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Engines) != 1 || len(rec.Engines[0].Levels) != 1 || len(rec.Engines[0].Levels[0].Outcomes) != 2 || rec.Engines[0].Levels[0].ReadBack != "serializable" {
		t.Fatalf("recorded %+v", rec.Engines)
	}
	for _, bad := range [][]string{
		{"--db", "bbolt"}, {"--db", "nosuch"}, {"--case", "G9"}, {"--isolation", "snapshot"},
		{"--db", "sqlite", "--isolation", "read-committed"}, {"--block-after", "1ms"},
	} {
		empty := t.TempDir()
		code, _, errs := runCLI(t, nil, append(append([]string{"isolation"}, bad...), "--results", empty)...)
		entries, _ := os.ReadDir(empty)
		if code != ExitUsage || len(entries) > 0 {
			t.Errorf("%v: exit %d, %d files written: %s", bad, code, len(entries), errs)
		}
	}
}
