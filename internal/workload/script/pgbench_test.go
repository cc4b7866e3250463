package script

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// pgBin finds pgbench, initdb and postgres together (a workload may not
// import the postgres backend, whose FindServer does this more thoroughly).
func pgBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if p, err := exec.LookPath("pgbench"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		ok := true
		for _, f := range []string{"pgbench", "initdb", "postgres", "pg_isready"} {
			if _, err := os.Stat(filepath.Join(dirs[i], f)); err != nil {
				ok = false
			}
		}
		if ok {
			return dirs[i]
		}
	}
	return ""
}

// startPostgres starts a throwaway server listening on a Unix socket only,
// and returns its socket folder and port.
func startPostgres(t *testing.T, bin string) (string, int) {
	t.Helper()
	acct, err := server.AccountFor("postgres")
	if err != nil {
		testenv.Skip(t, "no account to run PostgreSQL as: "+err.Error())
	}
	f, err := server.MakeFolders(acct, t.TempDir(), "", "postgres")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(f.Base); os.RemoveAll(f.Socket) })
	data := filepath.Join(f.Base, "data")
	if err := acct.Run(filepath.Join(bin, "initdb"), "-D", data, "-U", "dbgauge", "--auth=trust", "-N", "-E", "UTF8", "--locale=C"); err != nil {
		t.Fatalf("initdb: %v", err)
	}
	port, err := server.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	p, err := server.Start(acct, filepath.Join(f.Base, "postgres.log"), filepath.Join(bin, "postgres"), "-D", data,
		"-p", strconv.Itoa(port), "-c", "listen_addresses=", "-c", "unix_socket_directories="+f.Socket, "-c", "fsync=off")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = p.Stop(syscall.SIGINT, 10*time.Second) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = p.WaitReady(ctx, 20*time.Millisecond, func() error {
		return exec.Command(filepath.Join(bin, "pg_isready"), "-q", "-h", f.Socket, "-p", strconv.Itoa(port), "-U", "dbgauge").Run()
	})
	if err != nil {
		t.Fatalf("postgres did not start: %v; %s", err, p.LogTail(5))
	}
	return f.Socket, port
}

// TestAgainstPgbench runs the whole table through real pgbench, in one
// invocation: client 0 prints every expression that succeeds with debug(),
// client k runs the k-th failing one (pgbench aborts a client at its first
// error). Skipped where pgbench or a PostgreSQL server is not installed.
func TestAgainstPgbench(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server")
	}
	bin := pgBin()
	if bin == "" {
		testenv.Skip(t, "pgbench, initdb and postgres not found: apt-get install postgresql")
	}
	socket, port := startPostgres(t, bin)

	// Each line of the script is one command; line n is command n in
	// debug()'s output and command n-1 in an abort's.
	var sb strings.Builder
	var lines []int // line → case index, -1 for a control line
	emit := func(s string, c int) { sb.WriteString(s + "\n"); lines = append(lines, c) }
	emit(`\if :client_id = 0`, -1)
	var failing []int
	var draws [][]int // per distribution, pgbench's count of each key
	for i, c := range pgbenchCases {
		if strings.HasPrefix(c.want, "error: ") {
			failing = append(failing, i)
			continue
		}
		emit(fmt.Sprintf(`\set x%d debug(%s)`, i, c.expr), i)
	}
	// and draws from two distributions, whose frequencies must be the
	// distributions' too
	for _, d := range pgbenchDraws {
		for range drawsPerDistribution {
			emit(fmt.Sprintf(`\set z debug(%s)`, d.expr), -2-len(draws))
		}
		draws = append(draws, make([]int, len(d.p)))
	}
	for k, i := range failing {
		emit(fmt.Sprintf(`\elif :client_id = %d`, k+1), -1)
		emit(fmt.Sprintf(`\set x debug(%s)`, pgbenchCases[i].expr), i)
	}
	emit(`\endif`, -1)
	file := filepath.Join(t.TempDir(), "table.sql")
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(bin, "pgbench"), "-n", "-t", "1", "-j", "1", "-c", strconv.Itoa(len(failing)+1),
		"-h", socket, "-p", strconv.Itoa(port), "-U", "dbgauge", "-D", "i=7", "-D", "d=2.5", "-D", "default_seed=7", "--random-seed=42",
		"-f", file, "postgres")
	out, _ := cmd.CombinedOutput() // pgbench exits 2 when clients abort, as they do here

	got := map[int]string{}
	debugRe := regexp.MustCompile(`^debug\(script=0,command=(\d+)\): (.*)$`)
	abortRe := regexp.MustCompile(`^pgbench: error: client \d+ aborted in command (\d+) \(set\)`)
	var lastErr string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		l := sc.Text()
		if m := debugRe.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			if c := lines[n-1]; c <= -2 {
				d := -2 - c
				k, err := strconv.ParseInt(strings.TrimPrefix(m[2], "int "), 10, 64)
				if k -= pgbenchDraws[d].lo; err != nil || k < 0 || k >= int64(len(draws[d])) {
					t.Fatalf("%s gave %s", pgbenchDraws[d].expr, m[2])
				}
				draws[d][k]++
				continue
			}
			got[lines[n-1]] = m[2]
		} else if m := abortRe.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			got[lines[n]] = "error: " + lastErr
		} else if msg, ok := strings.CutPrefix(l, "pgbench: error: "); ok {
			lastErr = msg
		}
	}
	checkDraws(t, draws)
	for i, c := range pgbenchCases {
		pg, ok := got[i]
		if !ok {
			t.Errorf("%s: pgbench gave nothing; its output:\n%s", c.expr, out)
			continue
		}
		if pg != c.want {
			t.Errorf("%s: pgbench says %q, the table %q", c.expr, pg, c.want)
		}
		if ours := evalCase(c.expr); !matches(ours, pg) {
			t.Errorf("%s: pgbench says %q, we say %q", c.expr, pg, ours)
		}
	}
}

// pgbenchDraws are the distributions TestAgainstPgbench samples from
// pgbench, with their definitions' probabilities (random_test.go).
var pgbenchDraws = []struct {
	expr string
	lo   int64
	p    []float64
}{
	{"random_zipfian(11, 20, 1.5)", 11, zipfProbs(1.5)},
	{"random_exponential(-5, 4, 3)", -5, exponentialProbs(3)},
}

const drawsPerDistribution = 2000

// checkDraws holds pgbench's frequencies to the definitions, and to ours
// (a two-sample chi-squared test).
func checkDraws(t *testing.T, draws [][]int) {
	for d, counts := range draws {
		c := pgbenchDraws[d]
		if n := chiSquareN(counts); n != drawsPerDistribution {
			t.Errorf("pgbench drew %d values of %s, want %d", n, c.expr, drawsPerDistribution)
			continue
		}
		if chi := chiSquareOf(counts, c.p); chi > chi2Crit999 {
			t.Errorf("pgbench's %s: chi² = %.1f against the definition > %.1f; counts %v", c.expr, chi, chi2Crit999, counts)
		}
		ours := drawCounts(t, c.expr, c.lo, len(c.p), 20_000)
		t.Logf("%s: pgbench %v, ours (of 20000) %v", c.expr, counts, ours)
		if chi := chiSquare2(counts, ours); chi > chi2Crit999 {
			t.Errorf("%s: chi² = %.1f between pgbench's %v and ours %v > %.1f", c.expr, chi, counts, ours, chi2Crit999)
		}
	}
}
