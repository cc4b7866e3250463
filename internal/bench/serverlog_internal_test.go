package bench

import (
	"os"
	"path/filepath"
	"testing"

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
	sl := scanServerLog(result.Server{Engine: "postgres", Log: log})
	if sl == nil || sl.Lines != 4 || len(sl.Anomalies) != 1 {
		t.Fatalf("%+v", sl)
	}
	if a := sl.Anomalies[0]; a.Kind != "error" || a.Count != 2 || a.FirstLine != 2 || a.Sample != "ERROR:  deadlock detected" {
		t.Errorf("%+v", a)
	}
	if err := os.WriteFile(log, []byte("LOG:  ready\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if sl := scanServerLog(result.Server{Engine: "postgres", Log: log}); sl == nil || sl.Anomalies == nil || len(sl.Anomalies) != 0 {
		t.Errorf("a clean log: %+v, want an empty list of anomalies", sl)
	}
	if sl := scanServerLog(result.Server{Engine: "sqlite", Log: log}); sl != nil {
		t.Errorf("an engine without rules: %+v, want nil", sl)
	}
}
