package pyworker

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// echo is a worker of the protocol's own, in Python: the package's tests
// run a real process, whatever an engine's worker does.
const echo = `
import json, os, sys, time
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
send({"hello": {"protocol": PROTO, "python": "%d.%d.%d" % sys.version_info[:3], "packages": {}, "pid": os.getpid()}})
for line in sys.stdin:
    r = json.loads(line)
    op, a, rid = r["op"], r.get("a"), r["id"]
    cpu = time.process_time()
    if op == "echo":
        send({"id": rid, "ok": a, "cpu": cpu})
    elif op == "three":
        for i in range(3):
            send({"id": rid, "ok": {"n": i}, "cpu": cpu, "more": i < 2})
    elif op == "boom":
        send({"id": rid, "err": {"type": "ConflictError", "module": "ZODB.POSException", "msg": "no"}, "cpu": cpu})
    elif op == "hang":
        time.sleep(30)
    elif op == "die":
        sys.stderr.write("the worker's last words\n"); sys.stderr.flush()
        os._exit(3)
`

func python(t *testing.T) string {
	t.Helper()
	// Any python3 speaks the protocol's JSON (testenv, which makes the
	// engines' environments, imports this package: it cannot be used here).
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("no python3: %v (.ci/run installs it)", err)
	}
	return p
}

func start(t *testing.T, proto string) (*Worker, error) {
	t.Helper()
	w, err := Start(context.Background(), Config{Name: "test worker", Python: python(t), File: "echo_test.py",
		Script: []byte(strings.Replace(echo, "PROTO", proto, 1)), Limit: 5 * time.Second})
	if err == nil {
		t.Cleanup(func() { _ = w.Close() })
	}
	return w, err
}

func TestCallStreamAndCost(t *testing.T) {
	w, err := start(t, "1")
	if err != nil {
		t.Fatal(err)
	}
	if h := w.Hello(); h.Protocol != Protocol || h.Python == "" || h.PID != w.PID() {
		t.Fatalf("hello %+v (pid %d)", h, w.PID())
	}
	ctx := context.Background()
	var got map[string]string
	if err := w.Call(ctx, w.Session(), "echo", map[string]string{"k": "v"}, &got); err != nil || got["k"] != "v" {
		t.Fatalf("echo: %v %v", got, err)
	}
	var ns []int
	err = w.Stream(ctx, 0, "three", nil, func(ok json.RawMessage) error {
		var r struct{ N int }
		err := json.Unmarshal(ok, &r)
		ns = append(ns, r.N)
		return err
	})
	if err != nil || !slices.Equal(ns, []int{0, 1, 2}) {
		t.Fatalf("three: %v %v", ns, err)
	}
	var pe *Error
	if err := w.Call(ctx, 1, "boom", nil, nil); !errors.As(err, &pe) || pe.Type != "ConflictError" || pe.Op != "boom" {
		t.Fatalf("boom gave %v, want the worker's ConflictError", err)
	}
	// Three requests answered (a stream is one), and the CPU time the last
	// reply carried.
	if w.Requests() != 3 || w.CPU() <= 0 {
		t.Errorf("requests %d, cpu %s", w.Requests(), w.CPU())
	}
}

func TestWaitIsBoundedAndSaysWhat(t *testing.T) {
	w, err := start(t, "1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err = w.Call(ctx, 1, "hang", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "gave up waiting for the reply to hang") || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hang gave %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the wait took %s, past its bound", d)
	}
	w.Kill() // still asleep: Close would wait CloseWithin for it
}

func TestDeadWorkerIsAnErrorWithItsStderr(t *testing.T) {
	w, err := start(t, "1")
	if err != nil {
		t.Fatal(err)
	}
	err = w.Call(context.Background(), 1, "die", nil, nil)
	var died *DiedError
	if !errors.As(err, &died) || !strings.Contains(died.Stderr, "the worker's last words") || !strings.Contains(died.How, "exit status 3") {
		t.Fatalf("die gave %v, want a DiedError with its stderr", err)
	}
	// Every later call fails at once with the same error.
	if err := w.Call(context.Background(), 1, "echo", nil, nil); !errors.As(err, &died) {
		t.Fatalf("a call after the death gave %v", err)
	}
}

func TestKilledWorkerIsAnError(t *testing.T) {
	w, err := start(t, "1")
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(100 * time.Millisecond); w.Kill() }()
	err = w.Call(context.Background(), 1, "hang", nil, nil)
	var died *DiedError
	if !errors.As(err, &died) || !strings.Contains(died.How, "killed") {
		t.Fatalf("a killed worker gave %v", err)
	}
}

func TestOtherProtocolRefused(t *testing.T) {
	if _, err := start(t, "99"); err == nil || !strings.Contains(err.Error(), "protocol 99") {
		t.Fatalf("a worker of protocol 99 gave %v", err)
	}
}

func TestMissingEnvIsBadInputWithTheCommand(t *testing.T) {
	e := Env{Name: "zodb", Python: "3.11", Requirements: []byte("ZODB==6.4\n"), Engines: "zodb and zeo"}
	_, err := e.Find(t.TempDir(), "--zodb-env")
	var bad *knob.Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "--zodb-env") {
		t.Fatalf("a folder without a virtualenv gave %v", err)
	}
	e.Requirements = []byte("a requirement no environment was made with " + t.Name())
	_, err = e.Find("", "--zodb-env")
	if !errors.As(err, &bad) || !strings.Contains(bad.Hint, "dbgauge engines install zodb") {
		t.Fatalf("a missing environment gave %v, want the command that makes it", err)
	}
}

func TestReadableByAll(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "bin")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"bin/runzeo": 0o700, "data": 0o600} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := readableByAll(dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{"bin": 0o755, "bin/runzeo": 0o755, "data": 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", name, fi.Mode().Perm(), err, want)
		}
	}
}

// TestInstallNeverClearsAFolderOfTheUsers: --dir naming a folder that holds
// files and no virtualenv is refused, the files left.
func TestInstallNeverClearsAFolderOfTheUsers(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := Env{Name: "zodb", Python: "3.11", Requirements: []byte("ZODB==6.4\n")}
	if _, err := FindPython(e.Python); err != nil {
		// Without it Install stops before it looks at the folder.
		t.Fatalf("%v (.ci/run installs python3.11-venv)", err)
	}
	_, err := e.Install(context.Background(), dir, io.Discard)
	var bad *knob.Error
	if !errors.As(err, &bad) {
		t.Fatalf("install into a folder of files gave %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Fatalf("the user's file is gone: %v", err)
	}
}
