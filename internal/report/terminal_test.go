package report

import (
	"bytes"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func sample() *result.Result {
	rot := true
	pass := false
	start := time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)
	return &result.Result{
		Schema: result.Schema, ID: "20261121-220000-nms-sqlite", Status: result.Completed,
		Config: result.Config{
			Workload: "nms", Unit: "call", UnitRate: "calls/s", Backend: "sqlite", DB: "sqlite", API: "sql",
			Clients: 4, Warmup: result.Duration(2 * time.Second), Duration: result.Duration(30 * time.Second),
			Seed: 42, Durability: "sync", Commit: "unit", Prepare: "once", Knobs: map[string]string{"lines": "2500", "clients": "4"},
		},
		Engine:      result.Engine{Name: "sqlite", Version: "3.54.1", Settings: map[string]string{"synchronous": "FULL", "journal_mode": "wal"}},
		Environment: result.Environment{DataDir: result.Device{Path: "/data", FS: "ext4", Device: "vda", Rotational: &rot, WriteCache: "write back"}},
		Summary: result.Summary{
			Metric: "calls/s", Rate: 1234.5, OK: 37035, Failed: 3, ErrorsPct: 0.0081, Retries: 12, Seconds: 30,
			P50Us: 640, P95Us: 2700, P99Us: 5930, MaxUs: 16600, ChecksOK: true, Pass: &pass,
		},
		Phases: []result.Phase{{
			Name: "measure", Start: start, End: start.Add(30 * time.Second), Seconds: 30, OK: 37035, Failed: 3, Retries: 12, Rate: 1234.5,
			All: result.Latency{Name: "all", Count: 37035, P50Us: 640, P95Us: 2700, P99Us: 5930, MaxUs: 16600},
			Ops: []result.Latency{
				{Name: "begin", Count: 37035, P50Us: 15, P95Us: 124, P99Us: 234, MaxUs: 3720},
				{Name: "commit", Count: 37035, P50Us: 405, P95Us: 2120, P99Us: 5490, MaxUs: 15800},
			},
			Failures: []result.Failure{{Class: "retryable", Kind: "busy", Code: "SQLITE_BUSY", Count: 3, Samples: []string{"SQLITE_BUSY: database is locked"}}},
			Retried:  []result.Failure{{Class: "retryable", Kind: "busy", Code: "SQLITE_BUSY", Count: 12}},
		}},
		Stats:  &result.Stats{Delta: map[string]int64{"commits": 37035, "rollbacks": 3}},
		Checks: []result.Check{{Name: "lines", OK: true, Detail: "2500 VSATs and 2500 CUs"}},
		Durability: &result.Durability{
			Ceiling: 118, Method: "fdatasync", ProbedAt: "2026-11-21T21:00:00Z", Cached: true, Verdict: "flagged",
			Detail: "commits faster than this disk can make durable: 1235 commits/s from one client against 118 flushes/s (10.5×): the device or the engine acknowledges writes it has not stored",
		},
		Verdicts: []result.Verdict{{Require: "calls/s>=16", OK: true, Got: 1234.5, Unit: "/s"}, {Require: "p99<=5ms", OK: false, Got: 5.93, Unit: "ms"}},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./internal/report -update to accept):\n%s", name, got)
	}
}

func TestSummaryGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Summary(&b, sample(), "results/20261121-220000-nms-sqlite"); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.golden", b.Bytes())
}

func TestProgress(t *testing.T) {
	got := Progress(sample(), result.Second{T: 12, Dt: 0.5, Phase: "measure", OK: 600, Failed: 2, P50Us: 700, P99Us: 2300, MaxUs: 15000})
	want := "  12.0s measure calls/s 1200  ok 600  failed 2  p50 700µs  p99 2.30ms  max 15.0ms"
	if got != want {
		t.Fatalf("Progress =\n%q, want\n%q", got, want)
	}
}

func TestUs(t *testing.T) {
	for us, want := range map[int64]string{712: "712µs", 1234: "1.23ms", 45600: "45.6ms", 1_250_000: "1.25s"} {
		if got := Us(us); got != want {
			t.Errorf("Us(%d) = %q, want %q", us, got, want)
		}
	}
}
