package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/sqlite"
	"github.com/dbgauge/dbgauge/internal/isolation"
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
	if !strings.Contains(out, "serializable") || !strings.Contains(out, "G2-item") || !strings.Contains(out, "✓ blocked") || !strings.Contains(out, "not confirmed: sqlite has no lock view") {
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

// TestIsolationPlantedError: a case whose statement fails for another
// reason than isolation (here a syntax error planted in G1a's first write)
// is an error, not a prevention, and the command's end is exit 3 with a
// last line that names the case and the cause. The cases run through
// isolation.Run as the command runs them; only the list is the test's.
func TestIsolationPlantedError(t *testing.T) {
	var cs []isolation.Case
	for _, c := range isolation.Cases() {
		switch c.Name {
		case "G1a":
			c.Steps = append([]isolation.Step(nil), c.Steps...)
			c.Steps[2].SQL = "UPDAT dbgauge_hermitage SET val = 101 WHERE id = 1"
			cs = append(cs, c)
		case "P4":
			cs = append(cs, c)
		}
	}
	e, err := isolation.Run(context.Background(), isolation.Request{
		Spec: sqlite.Spec, Options: backend.Options{DB: "sqlite", Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once},
		Levels: []backend.Isolation{backend.Serializable}, Cases: cs, Config: isolation.Config{BlockAfter: 100 * time.Millisecond, Drain: 10 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := isolation.Table(&table, e); err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{} // case: its line of the table, from the verdict on
	for _, l := range strings.Split(table.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 {
			verdicts[f[0]] = strings.Join(f[1:], " ")
		}
	}
	if !strings.HasPrefix(verdicts["G1a"], "? error not an isolation error: T1 write: other: SQLITE_ERROR") {
		t.Errorf("the table does not show G1a as an error with its cause:\n%s", table.String())
	}
	if !strings.HasPrefix(verdicts["P4"], "✓ blocked") {
		t.Errorf("P4 should be judged blocked:\n%s", table.String())
	}
	code, msg := exitStatus(isolationEnd([]isolation.Engine{e}, "isolation.json"))
	if code != ExitFailed || !strings.Contains(msg, "sqlite at serializable, case G1a: not an isolation error: T1 write: other: SQLITE_ERROR") {
		t.Errorf("exit %d, %q; want %d naming G1a and its syntax error", code, msg, ExitFailed)
	}
	if !strings.HasPrefix(msg, "1 level(s) or case(s) could not be judged") {
		t.Errorf("%q: only G1a should be unjudged", msg)
	}
}
