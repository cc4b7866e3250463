package report

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
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
			Seed: 42, Durability: "sync", Commit: "unit", Prepare: "once", Knobs: result.Knobs{"lines": int64(2500), "clients": int64(4)},
		},
		Engine:      result.Engine{Name: "sqlite", Version: "3.54.1", Settings: map[string]string{"synchronous": "FULL", "journal_mode": "wal"}},
		Environment: result.Environment{DataDir: result.Device{Path: "/data", FS: "ext4", Device: "vda", Rotational: &rot, WriteCache: "write back"}},
		Summary: result.Summary{
			Metric: "calls/s", Rate: 1234.5, OK: 37035, Failed: 3, ErrorsPct: 0.0081, Retries: 12, Seconds: 30,
			P50Us: 640, P95Us: 2700, P99Us: 5930, MaxUs: 16600, ChecksOK: true, Pass: &pass,
		},
		Phases: []result.Phase{{
			Name: "measure", Start: start, End: start.Add(30 * time.Second), Seconds: 30, OK: 37035, Failed: 3, Retries: 12, Rate: 1234.5,
			All: result.Latency{Name: "all", Count: 37035, MeanUs: 1102.6, SdUs: 1421.3, P50Us: 640, P95Us: 2700, P99Us: 5930, MaxUs: 16600},
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

// TestProgress: a progress line as pgbench -P prints one, its time counted
// from the measure phase's start (after a warm-up too).
func TestProgress(t *testing.T) {
	sec := result.Second{T: 12, Dt: 0.5, Phase: "measure", OK: 600, Failed: 2, P50Us: 700, P99Us: 2300, MaxUs: 15000, MeanUs: 812.4, SdUs: 401}
	got := Progress(sample(), sec)
	want := "progress: 12.0 s, 1200 calls/s, ok 600, lat 812µs sd 401µs p99 2.30ms max 15.0ms, 2 failed"
	if got != want {
		t.Fatalf("Progress =\n%q, want\n%q", got, want)
	}
	r := sample()
	m := r.Phases[0]
	r.Phases = []result.Phase{{Name: "warmup", Start: m.Start.Add(-2 * time.Second), End: m.Start}, m}
	if got := Progress(r, sec); !strings.HasPrefix(got, "progress: 10.0 s, 1200 calls/s,") {
		t.Errorf("after a 2 s warm-up, Progress = %q", got)
	}
	sec.Phase = "warmup"
	if got := Progress(r, sec); !strings.HasPrefix(got, "progress: 12.0 s, warmup, 1200 calls/s,") {
		t.Errorf("in the warm-up, Progress = %q", got)
	}
}

func TestUs(t *testing.T) {
	for us, want := range map[int64]string{712: "712µs", 1234: "1.23ms", 45600: "45.6ms", 1_250_000: "1.25s"} {
		if got := Us(us); got != want {
			t.Errorf("Us(%d) = %q, want %q", us, got, want)
		}
	}
}

// TestNothingToDo: units that found nothing to do are shown apart, in the
// progress line, the headline and the table of unit kinds, and the rate
// counts only the ok ones.
func TestNothingToDo(t *testing.T) {
	got := Progress(sample(), result.Second{T: 3, Dt: 1, Phase: "measure", OK: 0, Nothing: 950})
	if want := "progress: 3.0 s, 0.00 calls/s, ok 0, 0 failed, 950 found nothing to do"; got != want {
		t.Errorf("Progress =\n%q, want\n%q", got, want)
	}
	r := sample()
	r.Config.Workload, r.Config.Unit, r.Config.UnitRate = "oltp-emul", "action", "actions/s"
	r.Summary = result.Summary{Metric: "actions/s", Rate: 2, OK: 60, Nothing: 28440, Seconds: 30, ChecksOK: true, P50Us: 800, P95Us: 900, P99Us: 990, MaxUs: 1000}
	m := &r.Phases[0]
	m.OK, m.Nothing, m.Failed, m.Retries, m.Rate, m.Failures, m.Retried = 60, 28440, 0, 0, 2, nil, nil
	m.All = result.Latency{Name: "all", Count: 60, P50Us: 800, P95Us: 900, P99Us: 990, MaxUs: 1000}
	m.Units = []result.Latency{
		{Name: "customer_order", Count: 60, P50Us: 800, P95Us: 900, P99Us: 990, MaxUs: 1000},
		{Name: "reserve", Nothing: 28440},
	}
	var b bytes.Buffer
	if err := Summary(&b, r, "results/20261121-220000-oltp-emul-sqlite"); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary-nothing.golden", b.Bytes())
}

// TestProgressPartial: an interval of a few milliseconds shows its counts,
// not their count ÷ dt as a rate.
func TestProgressPartial(t *testing.T) {
	got := Progress(sample(), result.Second{T: 30.004, Dt: 0.004, Partial: true, Phase: "measure", OK: 5, P50Us: 700, P99Us: 900, MaxUs: 900, MeanUs: 760, SdUs: 80})
	want := "progress: 30.0 s, — calls/s (the last 0.004 s: too short for a rate), ok 5, lat 760µs sd 80µs p99 900µs max 900µs, 0 failed"
	if got != want {
		t.Fatalf("Progress =\n%q, want\n%q", got, want)
	}
}

// TestRatioLineCannotJudge: a difference with too little data says why, not "—".
func TestRatioLineCannotJudge(t *testing.T) {
	d := stats.Bootstrap([]float64{10, 11}, []float64{10, 11}, 1)
	if got, want := RatioLine(d, "not significant"), "cannot judge: too few seconds: 2 and 2 (3 each needed)"; got != want {
		t.Errorf("RatioLine = %q, want %q", got, want)
	}
}

// TestMinutes cuts a series into minutes: a warm-up of 90 s and a measure
// phase of 150 s, 2 units a second and a failed one every tenth second;
// P at each minute's end is the phase's units so far per minute so far,
// the last minutes partial.
func TestMinutes(t *testing.T) {
	r := &result.Result{}
	for i := 1; i <= 240; i++ {
		s := result.Second{T: float64(i), Dt: 1, Phase: "warmup", OK: 2}
		if i > 90 {
			s.Phase, s.OK = "measure", 3
		}
		if i%10 == 0 {
			s.Failed = 1
		}
		r.Series = append(r.Series, s)
	}
	got := Minutes(r)
	want := []Minute{
		{Phase: "warmup", N: 1, Secs: 60, OK: 120, Failed: 6, Rate: 120, Running: 120},
		{Phase: "warmup", N: 2, Secs: 30, OK: 60, Failed: 3, Rate: 120, Running: 120},
		{Phase: "measure", N: 1, Secs: 60, OK: 180, Failed: 6, Rate: 180, Running: 180},
		{Phase: "measure", N: 2, Secs: 60, OK: 180, Failed: 6, Rate: 180, Running: 180},
		{Phase: "measure", N: 3, Secs: 30, OK: 90, Failed: 3, Rate: 180, Running: 180},
	}
	if len(got) != len(want) {
		t.Fatalf("%d minutes: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("minute %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	r.Series[100].OK = 63 // 60 more units in the measure phase's first minute
	if m := Minutes(r); m[2].Rate != 240 || m[3].Running != 210 || m[4].Running != 204 {
		t.Errorf("after 60 more units in minute 1: %+v", m[2:])
	}
}

// TestFigureNA: a figure with no value in the run (TPC-C's efficiency
// without --wait) says n/a and why, never a number ("69714 %").
func TestFigureNA(t *testing.T) {
	r := sample()
	r.Summary.Figures = []result.Figure{
		{Name: "tpmC", Value: 1234.5, Unit: "New-Orders/min", Detail: "every New-Order"},
		{Name: "efficiency", Unit: "%", NA: "no keying or think times (--wait)", Detail: "tpmC against the spec's maximum"},
	}
	var b bytes.Buffer
	if err := Summary(&b, r, "/results/x"); err != nil {
		t.Fatal(err)
	}
	want := "    efficiency            n/a: no keying or think times (--wait)\n"
	if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "efficiency           0") {
		t.Errorf("the summary lacks %q:\n%s", want, b.String())
	}
}

// TestAboveBound: latencies over the histograms' bound are said under the
// latency line, with the bound; none, no line.
func TestAboveBound(t *testing.T) {
	r := sample()
	m := &r.Phases[0]
	m.All.Above, m.All.BoundUs = 2, 3_600_000_000
	m.Ops[1].Above, m.Ops[1].BoundUs = 1, 3_600_000_000
	var b bytes.Buffer
	if err := Summary(&b, r, "results/x"); err != nil {
		t.Fatal(err)
	}
	want := "  above the bound  2 call(s) and 1 operation(s) took longer than 1h0m0s, the latency histograms' bound"
	if !strings.Contains(b.String(), want) {
		t.Errorf("the summary does not say it:\n%s", b.String())
	}
	b.Reset()
	if err := Summary(&b, sample(), "results/x"); err != nil || strings.Contains(b.String(), "above the bound") {
		t.Errorf("a run without them has the line (%v)", err)
	}
}
