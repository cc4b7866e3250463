package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
)

var update = flag.Bool("update", false, "rewrite golden files and docs/knobs.md")

// runCLI runs dbgauge in-process and returns its exit status and output.
func runCLI(t *testing.T, sig <-chan os.Signal, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(Env{Args: args, Stdout: &out, Stderr: &errb, Signals: sig})
	return code, out.String(), errb.String()
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func TestBadInput(t *testing.T) {
	cases := map[string][]string{
		"unknown workload":         {"run", "nope", "--clients", "3"},
		"unknown backend":          {"run", "nms", "--db", "oracle://scott:tiger@db/x"},
		"unknown durability":       {"run", "nms", "--durability", "fast"},
		"duration without unit":    {"run", "nms", "--duration", "10"},
		"malformed require":        {"run", "nms", "--require", "calls/s>>16"},
		"require of another unit":  {"run", "nms", "--require", "inserts/s>=1"},
		"set without value":        {"run", "nms", "--set", "nokey"},
		"procedure on sqlite":      {"run", "nms", "--procedure"},
		"procedure on bbolt":       {"run", "nms", "--db", "bbolt", "--procedure"},
		"unknown pragma":           {"run", "nms", "--set", "no_such_pragma=1"},
		"unknown bbolt setting":    {"run", "nms", "--db", "bbolt", "--set", "Turbo=true"},
		"lines not a number":       {"run", "nms", "--lines", "abc"},
		"no clients":               {"run", "nms", "--clients", "0"},
		"unknown flag":             {"run", "nms", "--bogus-flag"},
		"commit every zero":        {"run", "nms", "--commit", "every:0"},
		"sql api on a kv engine":   {"run", "nms", "--api", "sql", "--db", "bbolt"},
		"stray argument":           {"run", "nms", "extra"},
		"unknown command":          {"nonsense"},
		"negative rate":            {"run", "insert", "--rate", "-5"},
		"ops per call below three": {"run", "nms", "--ops-per-call", "2"},
		"cpus without a part":      {"run", "insert", "--cpus", "0"},
		"cpus of no such cpu":      {"run", "insert", "--cpus", "harness=1000"},
		"cpus of an unknown part":  {"run", "insert", "--cpus", "client=0"},
		"cpus server on sqlite":    {"run", "insert", "--cpus", "server=0"},
		"cpus server on a dsn":     {"run", "insert", "--cpus", "server=0", "--db", "postgres://u:tiger@127.0.0.1:1/db"},
		"fault on sqlite":          {"run", "insert", "--fault", "kill-at=1s"},
		"fault without kill-at":    {"run", "insert", "--db", "postgres:managed", "--fault", "at=1s"},
		"fault after the run":      {"run", "insert", "--db", "postgres:managed", "--duration", "5s", "--fault", "kill-at=9s"},
		"fault node of no role":    {"run", "insert", "--db", "etcd:managed", "--fault", "kill-at=1s,node=boss"},
		"fault node on postgres":   {"run", "insert", "--db", "postgres:managed", "--fault", "kill-at=1s,node=leader"},
		"etcd lazy":                {"run", "insert", "--db", "etcd:managed", "--durability", "lazy"},
		"galera of one node":       {"run", "insert", "--db", "galera:managed", "--nodes", "1"},
		"galera of ten nodes":      {"run", "insert", "--db", "galera:managed", "--nodes", "10"},
		"galera sync wait of 16":   {"run", "insert", "--db", "galera:managed", "--sync-wait", "16"},
		"galera node of none":      {"run", "insert", "--db", "galera:managed", "--nodes", "3", "--fault", "kill-at=1s,node=node4"},
		"galera node of a role":    {"run", "insert", "--db", "galera:managed", "--fault", "kill-at=1s,node=leader"},
		"reconnect of zero":        {"run", "insert", "--reconnect", "0s"},
		"pause without its length": {"run", "insert", "--db", "postgres:managed", "--fault", "pause-at=1s"},
		"pause of no length":       {"run", "insert", "--db", "postgres:managed", "--fault", "pause-at=1s,for=0s"},
		"capacity without a goal":  {"capacity", "kv"},
		"slo of a rate":            {"run", "kv", "--slo", "records/s>=10"},
		"slo of steadiness":        {"run", "kv", "--slo", "steady"},
		"slo with a rate":          {"run", "kv", "--slo", "p99<1ms", "--rate", "10"},
		"slo with require":         {"run", "kv", "--slo", "p99<1ms", "--require", "p99<1ms"},
		"slo with duration":        {"run", "kv", "--slo", "p99<1ms", "--duration", "5s"},
		"slo step too short":       {"run", "kv", "--slo", "p99<1ms", "--step", "1s"},
		"slo resolution of none":   {"run", "kv", "--slo", "p99<1ms", "--resolution", "0"},
		"profile of no rate":       {"run", "kv", "--profile", "ramp 1..x/s over 5s"},
		"profile of no length":     {"run", "kv", "--profile", "constant 10/s"},
		"profile with duration":    {"run", "kv", "--profile", "constant 10/s 2s", "--duration", "5s"},
		"profile with a rate":      {"run", "kv", "--profile", "constant 10/s 2s", "--rate", "5"},
		"profile with slo":         {"run", "kv", "--profile", "constant 10/s 2s", "--slo", "p99<1ms"},
		"profile mix of no unit":   {"run", "kv", "--profile", "constant 10/s 2s mix nope=1"},
		"profile with auto warmup": {"run", "kv", "--profile", "constant 10/s 2s", "--warmup", "auto"},
		"poisson in a closed loop": {"run", "kv", "--arrivals", "poisson"},
		"steady with a ramp":       {"run", "kv", "--profile", "ramp 10..20/s over 2s", "--require", "steady"},
		// --db as users write it, pointing nowhere: refused before any folder.
		"sqlite in no folder":    {"run", "insert", "--db", "sqlite:/no/such/dir/x.db"},
		"pebble in no folder":    {"run", "kv", "--db", "pebble:/no/such/dir/kv"},
		"mysql url, no server":   {"run", "insert", "--db", "mysql://u:tiger@127.0.0.1:1/db"},
		"mariadb url, no host":   {"run", "insert", "--db", "mariadb://u:tiger@/db"},
		"postgresql no server":   {"run", "insert", "--db", "postgresql://u:tiger@127.0.0.1:1/db?sslmode=disable"},
		"postgres no socket":     {"run", "insert", "--db", "postgres://u:tiger@/db?host=/no/such/dir"},
		"firebird url no server": {"run", "insert", "--db", "firebird://u:tiger@127.0.0.1:1/x.fdb"},
		"redis url no server":    {"run", "insert", "--db", "redis://:tiger@127.0.0.1:1/0"},
		"load into no folder":    {"load", "kv", "--db", "sqlite:/no/such/dir/kv.db"},
	}
	for name, args := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			if args[0] == "run" || args[0] == "capacity" {
				args = append(args, "--results", dir)
			}
			code, out, errOut := runCLI(t, nil, args...)
			if code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr %q", code, ExitUsage, errOut)
			}
			if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 || !strings.HasPrefix(errOut, "dbgauge: ") {
				t.Fatalf("want one line on stderr, got %q", errOut)
			}
			if strings.Contains(errOut, "tiger") {
				t.Fatalf("a password reached stderr: %q", errOut)
			}
			if out != "" {
				t.Fatalf("bad input printed on stdout: %q", out)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("bad input left %d entries in the results folder", len(entries))
			}
		})
	}
	t.Run("unwritable_results", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "a-file")
		os.WriteFile(file, nil, 0o644)
		code, _, errOut := runCLI(t, nil, "run", "insert", "--units", "5", "--results", file+"/sub")
		if code != ExitUsage || !strings.Contains(errOut, "--results") {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
	})
}

func TestRequire(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, nil, "run", "insert", "--units", "30", "--results", dir, "--require", "inserts/s>=1000000000")
	if code != ExitUnmet {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitUnmet, errOut)
	}
	if !strings.Contains(out, "✗ inserts/s>=1000000000") || !strings.Contains(out, "verdict: FAIL") {
		t.Fatalf("the summary does not show the verdict:\n%s", out)
	}
	if lastLine(errOut) != "dbgauge: a requirement was not met" {
		t.Fatalf("stderr ends with %q", lastLine(errOut))
	}
	passed := t.TempDir()
	code, out, _ = runCLI(t, nil, "run", "insert", "--units", "30", "--results", passed, "--require", "inserts/s>=1", "--require", "p99<=1h")
	if code != ExitOK || !strings.Contains(out, "verdict: PASS") {
		t.Fatalf("exit %d for requirements that hold:\n%s", code, out)
	}
	// What each insert cost: dbgauge's CPU (the engine inside it), and at
	// --durability sync one xSync of the WAL a commit, as SQLite counts it.
	r := onlyResult(t, passed)
	costs := map[string]float64{}
	for _, c := range r.Cost {
		costs[c.Key] = c.Value
	}
	if costs[result.CostHarnessCPU] <= 0 || costs[result.CostFlushes] != 1 || !strings.Contains(out, "cost     per insert: dbgauge CPU ") {
		t.Fatalf("costs %+v; summary:\n%s", r.Cost, out)
	}
	// 30 units end the measure phase within its first seconds: too short
	// to say whether it held level, so "steady" is not met, and says why.
	code, out, _ = runCLI(t, nil, "run", "insert", "--units", "30", "--results", dir, "--require", "steady")
	if code != ExitUnmet || !strings.Contains(out, "✗ steady  measured cannot tell: too short to tell: 0 whole seconds measured") ||
		!strings.Contains(out, "trend    cannot tell: too short to tell") {
		t.Fatalf("exit %d for --require steady on a run of 30 units:\n%s", code, out)
	}
}

func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	sig := make(chan os.Signal, 1)
	go func() {
		// Once the result written as the run goes holds two seconds of
		// measure (however long the load and the probe took), or after
		// 30 s at the latest.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			paths, _ := filepath.Glob(filepath.Join(dir, "*", "result.json"))
			if len(paths) == 1 {
				if r, err := result.Load(filepath.Dir(paths[0])); err == nil && len(r.Series) >= 2 {
					break
				}
			}
		}
		sig <- syscall.SIGINT
	}()
	start := time.Now()
	code, out, errOut := runCLI(t, sig, "run", "nms", "--duration", "60s", "--warmup", "0", "--lines", "200", "--results", dir)
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d; stderr %s", code, ExitInterrupted, errOut)
	}
	if time.Since(start) > 50*time.Second {
		t.Fatal("the interrupt did not stop the run")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("want one result folder, got %d", len(entries))
	}
	res, err := result.Load(filepath.Join(dir, entries[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != result.Interrupted || res.Reason != "interrupted" || len(res.Series) < 2 || res.Summary.OK == 0 {
		t.Fatalf("status %s (%s), %d seconds, %d ok", res.Status, res.Reason, len(res.Series), res.Summary.OK)
	}
	if !strings.Contains(out, "interrupted") {
		t.Fatalf("the summary does not say the run was interrupted:\n%s", out)
	}
	for _, c := range res.Checks {
		if !c.OK {
			t.Errorf("after a clean stop, check %s failed: %s", c.Name, c.Detail)
		}
	}
}

func TestStopFile(t *testing.T) {
	dir := t.TempDir()
	stop := filepath.Join(t.TempDir(), "STOPTEST.TXT")
	go func() {
		time.Sleep(1500 * time.Millisecond)
		os.WriteFile(stop, nil, 0o644)
	}()
	code, _, errOut := runCLI(t, nil, "run", "insert", "--duration", "60s", "--results", dir, "--stop-file", stop)
	if code != ExitOK {
		t.Fatalf("exit %d after the stop file, want 0; stderr %s", code, errOut)
	}
	entries, _ := os.ReadDir(dir)
	res, err := result.Load(filepath.Join(dir, entries[0].Name()))
	if err != nil || res.Reason != "stop file" {
		t.Fatalf("result %v reason %q", err, res.Reason)
	}
	code, _, errOut = runCLI(t, nil, "run", "insert", "--duration", "60s", "--results", dir, "--stop-file", stop)
	if code != ExitUsage || !strings.Contains(errOut, "exists already") {
		t.Fatalf("a stop file present at the start: exit %d, %q", code, errOut)
	}
}

func TestList(t *testing.T) {
	code, out, _ := runCLI(t, nil, "list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"nms", "insert", "sqlite", "bbolt", "synchronous=FULL", "NoSync=true", "--lines", "--commit", "calls/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("dbgauge list does not mention %q", want)
		}
	}
}

// TestKnobsDoc keeps docs/knobs.md generated from the catalog.
func TestKnobsDoc(t *testing.T) {
	var b bytes.Buffer
	if err := writeKnobsMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	path := "../../docs/knobs.md"
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("docs/knobs.md is stale: run go test ./internal/cli -run TestKnobsDoc -update (%v)", err)
	}
}

func TestDiskBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o644)
	cases := map[string][]string{
		"block zero":         {"--block", "0"},
		"unknown method":     {"--method", "fsync,turbo"},
		"unknown pattern":    {"--pattern", "random"},
		"missing path":       {"--path", "/no/such/folder"},
		"a file, not folder": {"--path", file},
		"not writable":       {"--path", "/proc"},
		"direct odd block":   {"--direct", "--block", "1000"},
		"duration no unit":   {"--duration", "5"},
	}
	for name, args := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runCLI(t, nil, append([]string{"disk", "--results", dir}, args...)...)
			if code != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line", code, out, errOut)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatal("bad input left a result folder")
			}
		})
	}
}

func TestDisk(t *testing.T) {
	path, results := t.TempDir(), t.TempDir()
	code, out, errOut := runCLI(t, nil, "disk", "--path", path, "--results", results,
		"--duration", "200ms", "--block", "4k,8k", "--method", "fdatasync,osync,none")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"rewriting one block", "appending", "write, fdatasync", "O_SYNC write", "ops/s", "ceiling:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not say %q:\n%s", want, out)
		}
	}
	entries, _ := os.ReadDir(results)
	res, err := result.Load(filepath.Join(results, entries[0].Name()))
	if err != nil || res.Disk == nil || len(res.Disk.Cells) != 12 || res.Disk.Ceiling <= 0 {
		t.Fatalf("result: %v; %+v", err, res.Disk)
	}
	if left, _ := filepath.Glob(filepath.Join(path, ".dbgauge-probe-*")); len(left) != 0 {
		t.Fatalf("scratch files left: %v", left)
	}
}

func TestDiskInterrupted(t *testing.T) {
	path := t.TempDir()
	sig := make(chan os.Signal, 1)
	go func() {
		time.Sleep(700 * time.Millisecond)
		sig <- syscall.SIGINT
	}()
	code, _, _ := runCLI(t, sig, "disk", "--path", path, "--results", t.TempDir(), "--duration", "30s")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d", code, ExitInterrupted)
	}
	if left, _ := filepath.Glob(filepath.Join(path, ".dbgauge-probe-*")); len(left) != 0 {
		t.Fatalf("an interrupted probe left its scratch file: %v", left)
	}
}
