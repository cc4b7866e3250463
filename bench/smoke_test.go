// Package bench holds no code of its own: the comparisons are the shell
// scripts beside this file (README.md), and this test runs each of them in
// its smoke mode, so that a change of dbgauge's command line or output that
// breaks one fails the suite instead of the next person who measures.
package bench

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/testenv"
)

// need says what a script lacks on this machine ("" when nothing).
type need func() string

// tool: a command on PATH, from Debian's package pkg.
func tool(name, pkg string) need {
	return func() string {
		if _, err := exec.LookPath(name); err != nil {
			return name + " is missing: apt-get install " + pkg
		}
		return ""
	}
}

// pg: one of PostgreSQL's programs, where the scripts look for them.
func pg(name string) need {
	return func() string {
		if m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name); len(m) == 0 {
			return "/usr/lib/postgresql/*/bin/" + name + " is missing: apt-get install postgresql"
		}
		return ""
	}
}

func root() string {
	if os.Geteuid() != 0 {
		return "not root: the script makes network namespaces (ip netns)"
	}
	return ""
}

// syscallsCounted: perf counts a command's system calls (vs-floor's own pass).
func syscallsCounted() string {
	if err := exec.Command("perf", "stat", "-e", "raw_syscalls:sys_enter", "-x,", "true").Run(); err != nil {
		return "perf stat -e raw_syscalls:sys_enter true: " + err.Error() + " (apt-get install linux-perf; root)"
	}
	return ""
}

var (
	mariadb = []need{tool("mariadbd", "mariadb-server"), tool("mariadb-install-db", "mariadb-server"), tool("mariadb", "mariadb-client")}
	python  = tool("python3", "python3")
	// python311 makes the virtualenvs of ZODB's environments.
	python311 = func() string {
		if exec.Command("python3.11", "-c", "import ensurepip").Run() != nil {
			return "python3.11 with its venv module is missing: apt-get install python3.11-venv"
		}
		return ""
	}
	// needs: what each script needs of the machine, beyond go; .ci/run installs it all.
	needs = map[string][]need{
		"clients.sh":      {python, pg("initdb")},
		"shards-netns.sh": {root, tool("ip", "iproute2"), tool("jq", "jq"), tool("runuser", "util-linux"), pg("pg_ctl")},
		"telemetry.sh":    {python, pg("initdb")},
		"vs-fio.sh":       {python, tool("fio", "fio"), pg("pg_test_fsync")},
		"vs-floor.sh":     append([]need{python, pg("pgbench"), tool("sysbench", "sysbench"), tool("gcc", "gcc"), syscallsCounted}, mariadb...),
		"vs-gotpc.sh":     append([]need{python, pg("initdb")}, mariadb...),
		"vs-goycsb.sh":    append([]need{python, pg("initdb")}, mariadb...),
		"vs-pgbench.sh":   {python, pg("pgbench")},
		"vs-sqlite3.sh":   {python, tool("sqlite3", "sqlite3")},
		"vs-sysbench.sh":  append([]need{python, tool("sysbench", "sysbench")}, mariadb...),
		// zodbshootout's environment and dbgauge's zodb one, each made
		// when missing: Python 3.11's venv, and PyPI.
		"vs-zodbshootout.sh": {python, python311},
	}
)

// scriptTime bounds one script's smoke run: the slowest takes under a
// minute on a 2-CPU machine beside the rest of the suite.
const scriptTime = 5 * time.Minute

// TestSmoke runs every script in bench/ with SMOKE=1 against one dbgauge
// built for them all, one script after another (each starts servers and
// loads the CPUs): each must exit 0, which a script does only when every
// tool it compares ran and every figure it prints was read. A script that
// fails shows the end of its output.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the scripts start servers and run every tool they compare (about 3 minutes)")
	}
	scripts, err := filepath.Glob("*.sh")
	if err != nil {
		t.Fatal(err)
	}
	var todo []string
	for _, s := range scripts {
		if s == "lib.sh" {
			continue
		}
		if _, ok := needs[s]; !ok {
			t.Errorf("bench/%s is not in needs: say what it needs of the machine, and .ci/run installs it", s)
			continue
		}
		todo = append(todo, s)
	}
	for s := range needs {
		if _, err := os.Stat(s); err != nil {
			t.Errorf("needs names bench/%s, which is not there", s)
		}
	}
	dbgauge := testenv.Build(t, "../cmd/dbgauge")
	for _, s := range todo {
		t.Run(strings.TrimSuffix(s, ".sh"), func(t *testing.T) {
			for _, n := range needs[s] {
				if why := n(); why != "" {
					testenv.Skip(t, why)
				}
			}
			start := time.Now()
			out, err := smoke(t, s, dbgauge)
			t.Logf("SMOKE=1 bench/%s: %.1f s", s, time.Since(start).Seconds())
			if err != nil {
				t.Fatalf("SMOKE=1 bench/%s: %v; the end of its output:\n%s", s, err, tail(out, 40))
			}
		})
	}
}

// smoke runs script in smoke mode, in a process group of its own that a
// SIGTERM ends whole (each script stops its servers on it) when it outlives
// scriptTime or the test's deadline.
func smoke(t *testing.T, script, dbgauge string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), scriptTime)
	defer cancel()
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(os.Environ(), "SMOKE=1", "DBGAUGE="+dbgauge)
	if os.Getenv("GORACE") == "" { // a race build sleeps a second at each exit otherwise
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = errors.Join(err, errors.New("stopped: still running after "+scriptTime.String()+" or at the test's deadline"))
	}
	return string(out), err
}

// tail is the last n lines of out.
func tail(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
