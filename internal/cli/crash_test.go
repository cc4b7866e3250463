package cli

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/firebird"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/powerloss"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// loadCrash reads the one crash record under root.
func loadCrash(t *testing.T, root string) (result.Crash, string) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(root, "*-crash-*"))
	if len(dirs) != 1 {
		t.Fatalf("crash folders %v", dirs)
	}
	b, err := os.ReadFile(filepath.Join(dirs[0], result.CrashFile))
	if err != nil {
		t.Fatal(err)
	}
	var rec result.Crash
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec, dirs[0]
}

// inParallel lets a long test run beside another one (two at a time:
// -parallel is GOMAXPROCS): the crash tests, the clusters, ZRS, the
// upgrades, the backups and a matrix's resume. Each one's runs are its own
// (its folders, its managed servers on free ports), and it judges what they
// count (lost commits, integrity, rows, exit codes), never a rate; most of
// its time is waiting for a server, a test disk, a kill or a failover.
func inParallel(t *testing.T) {
	t.Helper()
	t.Parallel()
}

// runCrash runs dbgauge crash with args, its results in a folder of the
// test's, fails the test unless it exits 0, and returns its record, its
// folder and what it printed.
func runCrash(t *testing.T, args ...string) (result.Crash, string, string) {
	t.Helper()
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, append(append([]string{"crash"}, args...), "--results", root)...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	rec, dir := loadCrash(t, root)
	return rec, dir, out
}

// TestCrashKill kills insert on SQLite and bbolt, synchronous and not, twice
// each: under kill -9 the operating system keeps every write the engine made,
// so nothing acknowledged may be lost, and each database must open again and
// pass its own integrity check.
func TestCrashKill(t *testing.T) {
	inParallel(t)
	rec, dir, out := runCrash(t, "insert", "--db", "sqlite,bbolt", "--durability", "sync,off",
		"--cycles", "2", "--fault-after", "200ms-500ms", "--seed", "42")
	if rec.Status != result.Completed || len(rec.Configs) != 4 || rec.Seed != 42 {
		t.Fatalf("status %s, %d configs, seed %d", rec.Status, len(rec.Configs), rec.Seed)
	}
	for _, c := range rec.Configs {
		if len(c.Cycles) != 2 || !strings.Contains(c.Summary, "0 lost in 2 cycles") {
			t.Errorf("%s: %d cycles, %q", c.Key, len(c.Cycles), c.Summary)
		}
		for _, cy := range c.Cycles {
			if !cy.Started || !cy.IntegrityOK || cy.Acknowledged == 0 || cy.Unknown > 1 || cy.Phantom != 0 || cy.Error != "" {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
			if cy.FaultAt < 0.2 || cy.FaultAt > 0.5 {
				t.Errorf("%s cycle %d: fault at %.3f s, outside 0.2–0.5", c.Key, cy.N, cy.FaultAt)
			}
		}
	}
	for _, want := range []string{"db=sqlite durability=sync: 0 lost", "db=bbolt durability=off: 0 lost"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	browse(t, filepath.Join(dir, ReportFile), "crash")
}

// TestCrashNMS: nms's calls make and clear channels; the ledger holds both,
// and the channels there before the run: after kill -9 nothing acknowledged
// is lost (nor a clearing undone), and nothing is present that no commit made.
func TestCrashNMS(t *testing.T) {
	inParallel(t)
	rec, _, _ := runCrash(t, "nms", "--lines", "200", "--clients", "2", "--cycles", "2",
		"--fault-after", "200ms-500ms", "--seed", "7")
	for _, c := range rec.Configs {
		for _, cy := range c.Cycles {
			if !cy.Started || !cy.IntegrityOK || cy.Acknowledged == 0 || cy.Lost != 0 || cy.Phantom != 0 || cy.Error != "" {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
		}
	}
}

// TestCrashWorkloadFile puts a user's own workload on trial: the [ledger]
// of examples/deposits.toml names the commit that makes each deposit
// durable. SQLite in sync mode keeps every acknowledged deposit through a
// power cut; with durability off the cut takes acknowledged ones.
func TestCrashWorkloadFile(t *testing.T) {
	inParallel(t)
	testenv.Need(t, powerloss.Available())
	rec, _, _ := runCrash(t, filepath.Join("..", "..", "examples", "deposits.toml"), "--db", "sqlite", "--durability", "sync,off",
		"--power-loss", "--cycles", "1", "--fault-after", "500ms-1s", "--seed", "5")
	if len(rec.Configs) != 2 {
		t.Fatalf("%d configurations, want sync and off", len(rec.Configs))
	}
	for _, c := range rec.Configs {
		for _, cy := range c.Cycles {
			if !cy.Started || cy.Acknowledged == 0 || cy.Phantom != 0 || cy.Error != "" {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
			switch {
			case c.Values["durability"] == "sync" && cy.Lost != 0:
				t.Errorf("%s lost %d acknowledged deposits to a power cut", c.Key, cy.Lost)
			case c.Values["durability"] == "off" && cy.Lost == 0:
				t.Errorf("%s lost nothing to a power cut of %d acknowledged deposits never flushed", c.Key, cy.Acknowledged)
			}
		}
	}
}

// TestCrashKV: kv's inserts keep a ledger too, on a key-value engine and on
// SQLite through its kv_ tables; after kill -9 every acknowledged record is
// there and none that no commit made.
func TestCrashKV(t *testing.T) {
	inParallel(t)
	rec, _, _ := runCrash(t, "kv", "--mix", "read=50,insert=50", "--records", "500", "--db", "sqlite,bbolt", "--cycles", "1",
		"--fault-after", "200ms-500ms", "--seed", "9")
	for _, c := range rec.Configs {
		for _, cy := range c.Cycles {
			if !cy.Started || !cy.IntegrityOK || cy.Acknowledged == 0 || cy.Lost != 0 || cy.Phantom != 0 || cy.Error != "" {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
		}
	}
}

func TestCrashBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"crash", "tpcb"}, // cannot keep a ledger
		{"crash", filepath.Join("..", "..", "examples", "tpcb-like.toml")}, // a workload file without a [ledger]
		{"crash", "insert", "--db", "postgres://u@h/db"},                   // not a database it can kill
		{"crash", "insert", "--fault-after", "3s-1s"},                      // backwards
		{"crash", "insert", "--durability", "sync,fast"},                   // a bad value in one configuration
	} {
		code, _, errs := runCLI(t, nil, append(args, "--results", t.TempDir())...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

// TestCrashPowerLoss cuts the power after the kill: SQLite in sync mode keeps
// every acknowledged commit; WAL with synchronous=NORMAL and bbolt without
// fsync lose acknowledged commits, and dbgauge counts them.
func TestCrashPowerLoss(t *testing.T) {
	inParallel(t)
	testenv.Need(t, powerloss.Available())
	rec, _, _ := runCrash(t, "insert", "--db", "sqlite,bbolt", "--durability", "sync,lazy", "--power-loss",
		"--cycles", "2", "--fault-after", "500ms-1s", "--seed", "11")
	if !strings.HasPrefix(rec.Fault, "power loss") {
		t.Errorf("fault %q", rec.Fault)
	}
	for _, c := range rec.Configs {
		var lost int64
		for _, cy := range c.Cycles {
			if !cy.Started || cy.Harness || cy.Acknowledged == 0 || cy.Phantom != 0 || cy.Dropped == "" {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
			lost += cy.Lost
		}
		switch {
		case c.Values["durability"] == "sync" && lost != 0:
			t.Errorf("%s lost %d acknowledged commits to a power cut", c.Key, lost)
		case c.Values["durability"] == "lazy" && lost == 0:
			t.Errorf("%s lost nothing to two power cuts: unflushed commits must go", c.Key)
		}
		t.Log(c.Summary)
	}
}

// TestCrashMariaDBPowerLoss puts MariaDB on trial, restarted on its killed
// server's datadir: with innodb_flush_log_at_trx_commit=1 a power cut loses
// nothing, as documented; with 2 the redo log reaches only the OS at
// commit, and a power cut must take acknowledged commits within ten
// cycles (run one at a time, stopping at the first loss), or the test disk
// has stopped dropping what was never flushed.
func TestCrashMariaDBPowerLoss(t *testing.T) {
	inParallel(t)
	testenv.Need(t, powerloss.Available())
	if _, _, err := mariadb.FindServer(); err != nil {
		testenv.Need(t, err) // .ci/run installs mariadb-server: in CI this never skips
	}
	rec, _, _ := runCrash(t, "insert", "--db", "mariadb:managed", "--durability", "sync", "--power-loss",
		"--cycles", "1", "--fault-after", "500ms-1s", "--seed", "3")
	c := rec.Configs[0]
	for _, cy := range c.Cycles {
		if !cy.Started || cy.Acknowledged == 0 || cy.Lost != 0 || cy.Phantom != 0 || !cy.IntegrityOK || cy.Dropped == "" {
			t.Errorf("sync cycle %d: %+v", cy.N, cy)
		}
	}
	if !strings.HasPrefix(c.Verdict, "as documented") || c.Promise == "" {
		t.Errorf("sync: promise %q, verdict %q", c.Promise, c.Verdict)
	}
	for i := 1; i <= 10; i++ {
		rec, _, _ := runCrash(t, "insert", "--db", "mariadb:managed", "--durability", "lazy", "--power-loss",
			"--cycles", "1", "--fault-after", "500ms-1s", "--seed", strconv.Itoa(100+i))
		cy := rec.Configs[0].Cycles[0]
		if !cy.Started || cy.Acknowledged == 0 || cy.Phantom != 0 {
			t.Fatalf("lazy cycle %d: %+v", i, cy)
		}
		if cy.Lost > 0 {
			return
		}
	}
	t.Fatal("MariaDB with innodb_flush_log_at_trx_commit=2 lost nothing to 10 power cuts: the test disk no longer drops what was never flushed")
}

// TestCrashFirebird puts a managed Firebird on trial through power cuts,
// started again on the killed server's instance (a new SYSDBA password, the
// database opened as it was left): with forced writes on, a commit's pages
// are flushed before it returns and nothing acknowledged is lost; with them
// off Firebird 3 never flushes the database on Linux, so every cut takes the
// acknowledged commits since the first (measured: all but that one, in every
// cycle), and dbgauge must count them.
func TestCrashFirebird(t *testing.T) {
	inParallel(t)
	testenv.Need(t, powerloss.Available())
	if _, _, _, _, err := firebird.FindServer(); err != nil {
		testenv.Need(t, err) // .ci/run installs firebird3.0-server: in CI this never skips
	}
	rec, _, _ := runCrash(t, "insert", "--db", "firebird:managed", "--durability", "sync,off", "--power-loss",
		"--cycles", "2", "--fault-after", "500ms-1s", "--seed", "4")
	if len(rec.Configs) != 2 {
		t.Fatalf("%d configurations, want sync and off", len(rec.Configs))
	}
	for _, c := range rec.Configs {
		var lost int64
		for _, cy := range c.Cycles {
			if !cy.Started || cy.Harness || cy.Acknowledged == 0 || cy.Phantom != 0 || cy.Dropped == "" {
				t.Errorf("%s cycle %d: %+v", c.Key, cy.N, cy)
			}
			lost += cy.Lost
		}
		sync := c.Values["durability"] == "sync"
		switch {
		case sync && lost != 0:
			t.Errorf("%s lost %d acknowledged commits to a power cut", c.Key, lost)
		case !sync && lost == 0:
			t.Errorf("%s lost nothing to two power cuts: forced writes off never flush, so the commits since the first must go", c.Key)
		}
		if !strings.HasPrefix(c.Verdict, "as documented") || c.Promise == "" {
			t.Errorf("%s: promise %q, verdict %q", c.Key, c.Promise, c.Verdict)
		}
		t.Log(c.Summary)
	}
}

// TestCrashExitCodes: dbgauge crash exits 0 only when every cycle ran and
// every judgement held, 1 when a configuration broke its engine's promise
// (a lost commit planted by testdata/undone.toml, which deletes each deposit
// it acknowledged: SQLite in sync mode promises to keep them), and 3 when
// no cycle could be run (testdata/refused.toml: a schema SQLite refuses);
// the summary's last line says which and why.
func TestCrashExitCodes(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		last string
	}{
		{"clean", []string{"insert"}, ExitOK,
			"exit 0: all 2 cycles ran and every judgement held: every configuration as documented, every database opened again, passed its integrity check"},
		{"lost", []string{filepath.Join("testdata", "undone.toml")}, ExitUnmet,
			"exit 1: 1 configuration NOT as documented: durability=sync workload-file=testdata/undone.toml: "},
		{"not_run", []string{filepath.Join("testdata", "refused.toml")}, ExitFailed,
			"exit 3: 2 of 2 cycles could not be run: durability=sync workload-file=testdata/refused.toml cycle 1: the run ended before its first commit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			inParallel(t)
			root := t.TempDir()
			args := append([]string{"crash"}, c.args...)
			args = append(args, "--db", "sqlite", "--durability", "sync", "--cycles", "2", "--fault-after", "200ms-400ms", "--seed", "8", "--results", root)
			code, out, errs := runCLI(t, nil, args...)
			if code != c.code || !strings.HasPrefix(lastLine(out), c.last) {
				t.Fatalf("exit %d, want %d; last line %q, want %q…\n%s\n%s", code, c.code, lastLine(out), c.last, out, errs)
			}
			if strings.Contains(errs, "dbgauge: exit") || strings.HasPrefix(lastLine(errs), "dbgauge: "+lastLine(out)) {
				t.Errorf("the reason said twice:\n%s", errs)
			}
			rec, _ := loadCrash(t, root)
			if c.code == ExitUnmet {
				cfg := rec.Configs[0]
				if !strings.HasPrefix(cfg.Verdict, "NOT as documented") || !strings.Contains(lastLine(out), "acknowledged commits lost in 2 of 2 cycles") {
					t.Errorf("verdict %q, last line %q", cfg.Verdict, lastLine(out))
				}
			}
		})
	}
}

// TestCrashExitPrecedence: a broken promise is exit 1 even when other
// cycles could not be run (the finding stands), and the line says both; an
// interrupt is 130; a crash that stopped early is 3, counting the cycles
// it never began.
func TestCrashExitPrecedence(t *testing.T) {
	rec := func(cycles ...result.CrashCycle) *result.Crash {
		return &result.Crash{Configs: []result.CrashConfig{{Key: "durability=sync", Verdict: "as documented", Cycles: cycles}}}
	}
	broken := rec(result.CrashCycle{N: 1, Started: false, Error: "the database did not open again"}, result.CrashCycle{N: 2, Harness: true, Error: "no commit"})
	for _, c := range []struct {
		name        string
		rec         *result.Crash
		cycles      int
		err         error
		interrupted bool
		code        int
		why         string
	}{
		{"failed and not run", broken, 2, nil, false, ExitUnmet,
			"1 configuration failed a check: durability=sync: did not open again in 1 of 1 cycles; besides, 1 of 2 cycles could not be run: durability=sync cycle 2: no commit"},
		{"interrupted", broken, 2, nil, true, ExitInterrupted, "interrupted after 2 of 2 cycles: what was found is in DIR"},
		{"stopped early", rec(result.CrashCycle{N: 1, Started: true, IntegrityOK: true}), 3, errors.New("save: disk full"), false, ExitFailed,
			"2 of 3 cycles could not be run: save: disk full (what was found is in DIR)"},
		{"no power loss here", rec(result.CrashCycle{N: 1, Started: true, IntegrityOK: true}), 1, errors.New("--power-loss could not be run here, every cycle was a kill -9 only: no /dev/fuse"), false, ExitFailed,
			"--power-loss could not be run here, every cycle was a kill -9 only: no /dev/fuse (what was found is in DIR)"},
	} {
		code, why := crashExit(c.rec, c.cycles, c.err, c.interrupted, "DIR")
		if code != c.code || why != c.why {
			t.Errorf("%s: exit %d %q, want %d %q", c.name, code, why, c.code, c.why)
		}
	}
}
