package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/powerloss"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

func needPostgres(t *testing.T) {
	t.Helper()
	if _, err := postgres.FindServer(""); err != nil {
		testenv.Need(t, err) // .ci/run installs PostgreSQL: in CI this never skips
	}
}

// assertOneLine asserts exit status code and one line on stderr without secret.
func assertOneLine(t *testing.T, code int, errOut string, want int, secret string) {
	t.Helper()
	if code != want || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.HasPrefix(errOut, "dbgauge: ") {
		t.Fatalf("exit %d (want %d), stderr %q: want one line", code, want, errOut)
	}
	if secret != "" && strings.Contains(errOut, secret) {
		t.Fatalf("the password reached stderr: %q", errOut)
	}
}

func TestPostgresConfigurationErrors(t *testing.T) {
	needPostgres(t)
	p, err := postgres.Start(context.Background(), postgres.ServerConfig{Config: server.Config{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.StopClean()
	port, _ := server.FreePort()
	cases := map[string][]string{
		"wrong password":      {"--db", "postgres://dbgauge:not-the-secret-pw@127.0.0.1:" + strconv.Itoa(p.Port) + "/postgres?sslmode=disable"},
		"refused connection":  {"--db", "postgres://dbgauge:not-the-secret-pw@127.0.0.1:" + strconv.Itoa(port) + "/postgres?sslmode=disable"},
		"missing postgres":    {"--db", "postgres:managed", "--pg-bin", "/nonexistent/bin"},
		"off on a DSN":        {"--db", p.DSN(false), "--durability", "off"},
		"unknown setting":     {"--db", "postgres:managed", "--set", "no_such_setting=1"},
		"socket with a DSN":   {"--db", p.DSN(false), "--socket"},
		"procedure with op":   {"--db", "postgres:managed", "--procedure", "--commit", "op"},
		"unparseable DSN":     {"--db", "postgres://a:b@[::1"},
		"procedure on sqlite": {"--db", "sqlite", "--procedure"},
	}
	for name, args := range cases {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runCLI(t, nil, append([]string{"run", "nms", "--units", "10", "--results", dir}, args...)...)
			assertOneLine(t, code, errOut, ExitUsage, "not-the-secret-pw")
			if strings.Contains(errOut, p.Password) || out != "" {
				t.Fatalf("stdout %q, stderr %q", out, errOut)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatal("a configuration error left a result folder")
			}
		})
	}
}

// TestPostgresDiesMidRun: kill -9 of the managed server's postmaster during a
// run stops the run with one line and exit 3, and leaves a readable result.
func TestPostgresDiesMidRun(t *testing.T) {
	needPostgres(t)
	dir := t.TempDir()
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			files, _ := filepath.Glob(filepath.Join(dir, "*", "result.json"))
			if len(files) == 0 {
				continue
			}
			var r result.Result
			b, _ := os.ReadFile(files[0])
			if json.Unmarshal(b, &r) != nil || r.Server == nil || len(r.Series) < 2 {
				continue
			}
			pid, err := os.ReadFile(filepath.Join(r.Server.DataDir, "postmaster.pid"))
			if err != nil {
				continue
			}
			n, _ := strconv.Atoi(strings.SplitN(string(pid), "\n", 2)[0])
			_ = syscall.Kill(n, syscall.SIGKILL)
			return
		}
	}()
	code, out, errOut := runCLI(t, nil, "run", "nms", "--db", "postgres:managed", "--duration", "60s", "--warmup", "0", "--lines", "300", "--results", dir, "--ceiling", "off")
	if code != ExitFailed || !strings.Contains(lastLine(errOut), "died") {
		t.Fatalf("exit %d, stderr ends %q", code, lastLine(errOut))
	}
	if !strings.Contains(out, "failed") {
		t.Fatalf("the summary does not say the run failed:\n%s", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "result.json"))
	res, err := result.Load(filepath.Dir(files[0]))
	if err != nil || res.Status != result.Failed || !strings.Contains(res.Reason, "died") || res.Summary.OK == 0 {
		t.Fatalf("result: %v, status %s, reason %q, ok %d", err, res.Status, res.Reason, res.Summary.OK)
	}
	// The death is an event on the time line, within the series, not silence.
	var died *result.Event
	for i, e := range res.Events {
		if e.Kind == result.EventServerDied {
			died = &res.Events[i]
		}
	}
	if died == nil || died.T <= 0 || died.T > res.Series[len(res.Series)-1].T+1 || !strings.Contains(died.Detail, "died") {
		t.Fatalf("events %+v: want the server's death in the series' time", res.Events)
	}
	if !strings.Contains(out, "server died") {
		t.Errorf("the summary does not show the death:\n%s", out)
	}
}

// TestCrashPostgres kills a managed server's whole process group in the
// middle of insert, restarts it on its cluster and reads what survived:
// synchronous commits lose nothing (the commit in flight is unknown);
// synchronous_commit off may lose the commits still in WAL buffers, which is
// reported, never hidden. Every cluster passes amcheck.
func TestCrashPostgres(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	rec, _, _ := runCrash(t, "insert", "--db", "postgres:managed", "--durability", "sync,lazy",
		"--cycles", "2", "--fault-after", "500ms-1s", "--seed", "3")
	for _, c := range rec.Configs {
		for _, cy := range c.Cycles {
			if !cy.Started || !cy.IntegrityOK || cy.Acknowledged == 0 || cy.Phantom != 0 || !strings.HasPrefix(cy.Integrity, "amcheck: ok") {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
			if c.Values["durability"] == "sync" && cy.Lost != 0 {
				t.Errorf("sync lost %d acknowledged commits: %v", cy.Lost, cy.LostSample)
			}
		}
		t.Logf("%s", c.Summary)
	}
}

// TestCrashPostgresPowerLoss: the cluster on the test disk, the power cut
// after the kill. fsync on keeps every acknowledged commit; fsync off loses
// them or leaves a server that does not start, never "0 lost".
func TestCrashPostgresPowerLoss(t *testing.T) {
	inParallel(t)
	needPostgres(t)
	testenv.Need(t, powerloss.Available())
	// Each durability on its own, both at once: a cycle's initdb and
	// recovery go through the test disk, slow under -race, and mostly wait.
	for _, durability := range []string{"sync", "off"} {
		t.Run(durability, func(t *testing.T) {
			t.Parallel()
			rec, _, _ := runCrash(t, "insert", "--db", "postgres:managed", "--durability", durability, "--power-loss",
				"--cycles", "2", "--fault-after", "500ms-1s", "--seed", "5")
			if len(rec.Configs) != 1 {
				t.Fatalf("%d configurations, want 1", len(rec.Configs))
			}
			c := rec.Configs[0]
			if len(c.Cycles) != 2 {
				t.Errorf("%d cycles, want 2", len(c.Cycles))
			}
			for _, cy := range c.Cycles {
				if cy.Harness || cy.Acknowledged == 0 {
					t.Errorf("%s cycle %d did not run: %+v", c.Key, cy.N, cy)
				}
				if durability == "sync" && (!cy.Started || cy.Lost != 0 || !cy.IntegrityOK) {
					t.Errorf("fsync on, power cut: %+v", cy)
				}
				if durability == "off" && cy.Started && cy.Lost == 0 {
					t.Errorf("fsync off, power cut, and nothing lost: %+v", cy)
				}
			}
			t.Logf("%s", c.Summary)
		})
	}
}
