package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
)

// lockedBuffer is a buffer a test reads while the command writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waiting runs dbgauge in-process until its stderr says want, then sends
// SIGTERM through Env.Signals; it returns the exit status, stderr, and how
// long the command took after the signal.
func waiting(t *testing.T, want string, args ...string) (int, string, time.Duration) {
	t.Helper()
	sig := make(chan os.Signal, 1)
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() { done <- Main(Env{Args: args, Stdout: &out, Stderr: &errb, Signals: sig}) }()
	limit := time.After(2 * time.Minute)
	for !strings.Contains(errb.String(), want) {
		select {
		case code := <-done:
			t.Fatalf("dbgauge ended (exit %d) before it waited: %s", code, errb.String())
		case <-limit:
			t.Fatalf("dbgauge never said %q: %s", want, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	time.Sleep(200 * time.Millisecond) // inside the wait, not at its door
	sig <- syscall.SIGTERM
	at := time.Now()
	select {
	case code := <-done:
		return code, errb.String(), time.Since(at)
	case <-time.After(time.Minute):
		t.Fatalf("dbgauge did not end a minute after SIGTERM, waiting for %q: %s", want, errb.String())
	}
	return 0, "", 0
}

// TestShardsApartWaitOut: two shards given different --results: shard 1
// waits for shard 0's dataset-loaded where shard 0 never writes it, for
// --shard-wait, and then says what it waited for and the likely cause;
// a shard 1 given shard 0's --results but another seed is told the marker
// is another run's; a start file never written is waited for as long.
func TestShardsApartWaitOut(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "kv.db")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	common := []string{"run", "kv", "--db", db, "--records", "300", "--clients", "1", "--units", "20", "--ceiling", "off", "--seed", "7"}
	code, _, stderr := runCLI(t, nil, append(common, "--shard", "0/2", "--results", a)...)
	if code != ExitOK {
		t.Fatalf("shard 0: exit %d: %s", code, stderr)
	}
	start := time.Now()
	code, _, stderr = runCLI(t, nil, append(common, "--shard", "1/2", "--results", b, "--shard-wait", "1s")...)
	took := time.Since(start)
	want := "waited 1s for shard 0's dataset-loaded in " + b + ": do all shards share --results?"
	if code != ExitFailed || !strings.Contains(stderr, want) {
		t.Fatalf("shard 1 with --results of its own: exit %d after %s, stderr %q; want 3 and %q", code, took, stderr, want)
	}
	if took > time.Minute {
		t.Errorf("shard 1 ended %s after it began, with --shard-wait 1s", took)
	}
	t.Logf("shard 1 ended after %s, exit %d: %s", took.Round(time.Millisecond), code, lastLine(stderr))
	code, _, stderr = runCLI(t, nil, append(common[:len(common)-1], "8", "--shard", "1/2", "--results", a, "--shard-wait", "1s")...)
	if code != ExitFailed || !strings.Contains(stderr, "it holds \"kv ") || !strings.Contains(stderr, "seed=8") {
		t.Fatalf("shard 1 of another seed: exit %d, stderr %q; want 3 and both runs' lines", code, stderr)
	}
	never := filepath.Join(dir, "never")
	code, _, stderr = runCLI(t, nil, append(common, "--start-at", "file:"+never, "--shard-wait", "1s", "--results", b)...)
	if want := "waited 1s for a start time in " + never + ": is the coordinator writing it"; code != ExitFailed || !strings.Contains(stderr, want) {
		t.Fatalf("a start file never written: exit %d, stderr %q; want 3 and %q", code, stderr, want)
	}
	code, _, stderr = runCLI(t, nil, append(common, "--shard-wait", "1s")...)
	if code != ExitUsage || !strings.Contains(stderr, "--shard-wait: nothing waits") {
		t.Fatalf("--shard-wait alone: exit %d, stderr %q; want 2", code, stderr)
	}
}

// TestInterruptEndsWaits: the first SIGTERM ends a wait on another process
// (shard 0's load, a coordinator's start time), which is bounded by an hour
// here, as it ends a run: exit 130, the result saying interrupted, long
// before the bound (the mechanism allows 2 s; a minute keeps a loaded
// machine from failing the test).
func TestInterruptEndsWaits(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "kv.db")
	common := []string{"run", "kv", "--db", db, "--records", "300", "--clients", "1", "--units", "20", "--ceiling", "off"}
	cases := []struct {
		name, want string
		args       []string
	}{
		{"shard 1 waits for shard 0", "waiting for shard 0's load", []string{"--shard", "1/2", "--seed", "7"}},
		{"a start file", "waiting for a start time in", []string{"--start-at", "file:" + filepath.Join(dir, "never")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			results := t.TempDir()
			code, stderr, took := waiting(t, c.want, append(append(common, c.args...), "--results", results)...)
			if code != ExitInterrupted {
				t.Fatalf("exit %d after SIGTERM, want %d: %s", code, ExitInterrupted, stderr)
			}
			if took > time.Minute {
				t.Errorf("dbgauge took %s to end after SIGTERM", took)
			}
			t.Logf("ended %s after SIGTERM, exit %d: %s", took.Round(time.Millisecond), code, lastLine(stderr))
			if !strings.Contains(lastLine(stderr), "interrupted") {
				t.Errorf("its last line does not say it was interrupted: %q", lastLine(stderr))
			}
			entries, _ := os.ReadDir(results)
			var res *result.Result
			for _, e := range entries {
				if e.IsDir() {
					res, _ = result.Load(filepath.Join(results, e.Name()))
				}
			}
			if res == nil || res.Status != result.Interrupted {
				t.Fatalf("result %+v; want one that says interrupted", res)
			}
		})
	}
}
