package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// TestCrashKill kills insert on SQLite and bbolt, synchronous and not, twice
// each: under kill -9 the operating system keeps every write the engine made,
// so nothing acknowledged may be lost, and each database must open again and
// pass its own integrity check.
func TestCrashKill(t *testing.T) {
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "crash", "insert", "--db", "sqlite,bbolt", "--durability", "sync,off",
		"--cycles", "2", "--fault-after", "200ms-500ms", "--seed", "42", "--results", root)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "*-crash-insert"))
	if len(dirs) != 1 {
		t.Fatalf("crash folders %v", dirs)
	}
	b, err := os.ReadFile(filepath.Join(dirs[0], result.CrashFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec result.Crash
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Status != result.Completed || len(rec.Configs) != 4 || rec.Seed != 42 {
		t.Fatalf("status %s, %d configs, seed %d", rec.Status, len(rec.Configs), rec.Seed)
	}
	for _, c := range rec.Configs {
		if len(c.Cycles) != 2 || !strings.Contains(c.Summary, "0 lost in 2 cycles") {
			t.Errorf("%s: %d cycles, %q", c.Key, len(c.Cycles), c.Summary)
		}
		for _, cy := range c.Cycles {
			if !cy.Started || !cy.IntegrityOK || cy.Acknowledged == 0 || cy.Unknown > 1 || cy.Phantom != 0 || cy.Error != "" {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
			if cy.FaultAt < 0.2 || cy.FaultAt > 0.5 {
				t.Errorf("%s cycle %d: fault at %.3f s, outside 0.2–0.5", c.Key, cy.N, cy.FaultAt)
			}
		}
	}
	for _, want := range []string{"db=sqlite durability=sync: 0 lost", "db=bbolt durability=off: 0 lost"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

func TestCrashBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"crash", "nms"}, // cannot keep a ledger
		{"crash", "insert", "--db", "postgres:managed"},  // not yet
		{"crash", "insert", "--power-loss"},              // not yet
		{"crash", "insert", "--fault-after", "3s-1s"},    // backwards
		{"crash", "insert", "--durability", "sync,fast"}, // a bad value in one configuration
	} {
		code, _, errs := runCLI(t, nil, append(args, "--results", t.TempDir())...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}
