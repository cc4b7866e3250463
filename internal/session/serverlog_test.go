package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/result"
)

// TestScanServerLog: the server's log, kept in the result folder, is read
// after the run into the result: anomalies by kind, or clean.
func TestScanServerLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "postgres.log")
	text := "LOG:  database system is ready to accept connections\nERROR:  deadlock detected\nLOG:  checkpoint starting\nERROR:  deadlock detected\n"
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sl := scanServerLog(postgres.LogRules, result.Server{Engine: "postgres", Log: log}, nil)
	if sl == nil || sl.Lines != 4 || len(sl.Anomalies) != 1 {
		t.Fatalf("%+v", sl)
	}
	if a := sl.Anomalies[0]; a.Kind != "error" || a.Count != 2 || a.FirstLine != 2 || a.Sample != "ERROR:  deadlock detected" {
		t.Errorf("%+v", a)
	}
	// The lines dbgauge's own crash-recovery test made the server write are
	// left out; the line numbers of the others stay true.
	crash := "LOG:  server process (PID 7) was terminated by signal 9: Killed\nLOG:  database system was interrupted\n"
	if err := os.WriteFile(log, []byte(text+crash+"ERROR:  after\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sl = scanServerLog(postgres.LogRules, result.Server{Engine: "postgres", Log: log}, []logSpan{{int64(len(text)), int64(len(text) + len(crash))}})
	if sl == nil || len(sl.Anomalies) != 1 || sl.Anomalies[0].Count != 3 || sl.Lines != 7 {
		t.Fatalf("with the crash test's lines left out: %+v", sl)
	}
	if err := os.WriteFile(log, []byte("LOG:  ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sl := scanServerLog(postgres.LogRules, result.Server{Engine: "postgres", Log: log}, nil); sl == nil || sl.Anomalies == nil || len(sl.Anomalies) != 0 {
		t.Errorf("a clean log: %+v, want an empty list of anomalies", sl)
	}
	if sl := scanServerLog(nil, result.Server{Engine: "sqlite", Log: log}, nil); sl != nil {
		t.Errorf("an engine without rules: %+v, want nil", sl)
	}
}
