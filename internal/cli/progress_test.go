package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/report"
)

// TestProgressLines: -P N prints a line every N seconds of the measure
// phase, counted from its start as pgbench -P counts, each a line of its
// own that stays (no carriage return), after a note on the warm-up; --live
// on a terminal rewrites one line in place; -P 0 prints none. A load
// says how far it got, at its pace, with the time left.
func TestProgressLines(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runCLI(t, nil, "run", "insert", "-T", "2s", "-P", "1", "--warmup", "1s", "--ceiling", "off", "--results", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := regexp.MustCompile(`(?m)^progress: ([0-9.]+) s, [0-9.]+ inserts/s, ok [0-9]+, lat \S+ sd \S+ p99 \S+ max \S+, 0 failed$`).FindAllStringSubmatch(errs, -1)
	// A tick may come a little after the phase's start: about 1 s and 2 s.
	if len(lines) != 2 || !strings.HasPrefix(lines[0][1], "1.") || !strings.HasPrefix(lines[1][1], "2.") || strings.Contains(errs, "\r") {
		t.Fatalf("want two progress lines, at 1 and 2 s, and no carriage return:\n%s", errs)
	}
	if !regexp.MustCompile(`(?m)^dbgauge: warm-up: 1\.[0-9] s, [0-9.]+ inserts/s, p99 \S+ \(discarded\)\nprogress: 1\.`).MatchString(errs) {
		t.Errorf("no note on the warm-up before the first line:\n%s", errs)
	}

	var out, stderr bytes.Buffer
	code = Main(Env{Args: []string{"run", "insert", "-T", "2s", "--warmup", "0", "--live", "--ceiling", "off", "--results", dir}, Stdout: &out, Stderr: &stderr, IsTTY: true})
	if code != 0 || strings.Count(stderr.String(), "\r\033[Kprogress: ") != 2 {
		t.Fatalf("--live on a terminal: exit %d, stderr %q", code, stderr.String())
	}

	code, _, errs = runCLI(t, nil, "run", "kv", "--records", "20000", "-T", "1s", "--warmup", "0", "-P", "0", "--ceiling", "off", "--results", dir)
	if code != 0 || strings.Contains(errs, "progress:") || strings.Contains(errs, "loading:") || !strings.Contains(errs, "dbgauge: ") {
		t.Fatalf("-P 0: exit %d, stderr %q", code, errs)
	}
	// The load says how far it got, its last line when it is done.
	code, _, errs = runCLI(t, nil, "run", "kv", "--records", "20000", "-T", "1s", "--warmup", "0", "--ceiling", "off", "--results", dir)
	if code != 0 || !regexp.MustCompile(`(?m)^loading: 20000 of 20000 records \(100 %\), [0-9]+ records/s, [0-9]+ s\ndbgauge: kv on`).MatchString(errs) {
		t.Fatalf("the load's progress: exit %d, stderr %q", code, errs)
	}
}

// TestQuietJSON: --quiet leaves stderr empty and --json prints the
// summary as JSON, its figures those of result.json; -t N runs N units on
// each client, as pgbench -t does (units.csv.gz says which client ran each).
func TestQuietJSON(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "-c", "3", "-t", "40", "--quiet", "--json", "--log-units", "--ceiling", "off", "--results", dir)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var s report.RunSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	r := onlyResult(t, dir)
	m := r.Phase("measure")
	if s.Summary.OK != 120 || s.Summary.OK != r.Summary.OK || s.Latency == nil || s.Latency.Count != m.All.Count ||
		s.Latency.MeanUs != m.All.MeanUs || s.Latency.SdUs <= 0 || s.Latency.SdUs != m.All.SdUs || s.Latency.Hist != "" {
		t.Fatalf("--json %+v against result.json %+v", s, m.All)
	}
	if s.Result != filepath.Join(dir, r.ID) || r.Config.Transactions != 40 || r.Config.Units != 120 {
		t.Errorf("result %s, config %+v", s.Result, r.Config)
	}
	f, err := os.Open(filepath.Join(s.Result, "units.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(gz).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, row := range rows[1:] {
		per[row[1]]++
	}
	if len(per) != 3 || per["0"] != 40 || per["1"] != 40 || per["2"] != 40 {
		t.Errorf("units per client: %v, want 40 each of 3", per)
	}
}

// TestVersion: dbgauge version says its version, its Go and the driver of
// every engine, as text and as JSON.
func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "dbgauge ") || !strings.Contains(out, "go1.") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, b := range catalog.Backends() {
		if !regexp.MustCompile(`(?m)^ +(drivers +)?` + b.Name + ` +` + regexp.QuoteMeta(b.Driver)).MatchString(out) {
			t.Errorf("no driver of %s:\n%s", b.Name, out)
		}
	}
	code, out, _ = runCLI(t, nil, "version", "--json")
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil || len(v.Drivers) != len(catalog.Backends()) || v.Go == "" {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	for _, d := range v.Drivers {
		// A Go module's path (a dot, no space: as version reads it) has a
		// version; a test binary's modules say "unknown". A worker's
		// description (NEO's "Python 2.7 … neo.client.Storage") has none.
		if d.Driver == "" || strings.Contains(d.Driver, ".") && !strings.Contains(d.Driver, " ") && d.Version == "" {
			t.Errorf("driver %+v", d)
		}
	}
}
