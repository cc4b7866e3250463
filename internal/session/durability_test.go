package session_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/child"
	"github.com/dbgauge/dbgauge/internal/powerloss"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestMain serves the test disks of these tests (Mount starts this binary
// again as their server, `TESTBINARY child powerloss`) and keeps the
// flush-ceiling cache of these tests apart from the user's.
func TestMain(m *testing.M) {
	if child.Enter(os.Args) {
		os.Exit(powerloss.Serve(os.Stderr)) //nolint:forbidigo // a test disk's server ends here, never running the tests
	}
	dir, err := os.MkdirTemp("", "dbgauge-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	defer os.RemoveAll(dir)
	m.Run() // since Go 1.15 its status is the test binary's
}

func slowDisk(t *testing.T) *powerloss.Disk {
	t.Helper()
	testenv.Need(t, powerloss.Available())
	// A mount point other users can reach: a managed server runs as its own.
	mnt, err := os.MkdirTemp("", "dbgauge-powerloss-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(mnt) })
	if err := os.Chmod(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := powerloss.Mount(t.TempDir(), mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Unmount(); err != nil {
			t.Log(err) // a file dbgauge left open on the disk: aborted, so that the test binary can still exit
		}
	})
	d.Honest(8 * time.Millisecond)
	return d
}

func durability(t *testing.T, res *result.Result, verdict string, says ...string) {
	t.Helper()
	d := res.Durability
	if d == nil {
		t.Fatal("the result has no durability verdict")
	}
	t.Logf("%s: %s", d.Verdict, d.Detail)
	if d.Verdict != verdict {
		t.Fatalf("verdict %q, want %q", d.Verdict, verdict)
	}
	for _, s := range says {
		if !strings.Contains(d.Detail, s) {
			t.Fatalf("the verdict does not say %q", s)
		}
	}
}

// TestDurabilityOnASlowHonestDisk: on a disk that takes 8 ms a flush, SQLite
// committing one row at a time with synchronous=FULL is plausible, its
// flushes counted by its VFS shim and received by the disk; the same on the
// disk once it lies (acknowledges flushes it never makes) is flagged with
// its ratio.
func TestDurabilityOnASlowHonestDisk(t *testing.T) {
	d := slowDisk(t)
	insert := spec(t, "insert")
	f0 := d.Flushes()
	res := workloadtest.Run(t, insert, map[string]string{"db": "sqlite:" + d.Dir + "/a.db", "units": "120"})
	if c := res.Durability.Ceiling; c <= 0 || c > 126 {
		t.Fatalf("ceiling %.0f flushes/s on an 8 ms disk, want some, and no more than 125", c)
	}
	durability(t, res, "plausible", "commits per flush", "flushes counted: the xSync calls SQLite makes")
	// SQLite's syncs as counted are flushes the disk received: one at
	// least for each commit, no more than the disk saw in the whole run.
	if counted, received := res.Stats.Delta["flushes"], d.Flushes()-f0; counted < 120 || counted > received {
		t.Errorf("SQLite counted %d syncs for 120 commits; the disk received %d flushes in the whole run", counted, received)
	}

	res = workloadtest.Run(t, insert, map[string]string{"db": "sqlite:" + d.Dir + "/c.db", "units": "3000", "durability": "off"})
	durability(t, res, "not durable by design")

	// 32 clients: SQLite makes one flush per commit (no group commit), so
	// the rate stays under the ceiling and is not flagged.
	res = workloadtest.Run(t, spec(t, "nms"), map[string]string{
		"db": "sqlite:" + d.Dir + "/d.db", "clients": "32", "duration": "2s", "lines": "300", "set": "busy_timeout=30000",
	})
	durability(t, res, "plausible")

	// The disk lies from now on: synchronous=FULL commits outpace the
	// ceiling it showed when it was honest.
	d.Lying()
	res = workloadtest.Run(t, insert, map[string]string{"db": "sqlite:" + d.Dir + "/b.db", "units": "3000"})
	durability(t, res, "flagged", "commits faster than this disk can make durable", "×")
	if !res.Durability.Cached {
		t.Error("a later run on the same disk probed it again instead of using the cache")
	}
}

// TestDurabilityOnTmpfs: a flush in memory proves nothing, and the verdict says so.
func TestDurabilityOnTmpfs(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "dbgauge-")
	if err != nil {
		testenv.Skip(t, "no /dev/shm: "+err.Error())
	}
	defer os.RemoveAll(dir)
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{"db": "sqlite:" + dir + "/a.db", "units": "100"})
	durability(t, res, "not measurable", "tmpfs", "no durability is measured")
}

// TestPostgresDurabilityOnASlowHonestDisk: PostgreSQL's WAL on a disk that
// takes 8 ms a flush. One client in sync is plausible; 32 clients in sync
// commit in groups, not flagged, with their commits per flush; one client
// on the disk once it lies (acknowledges flushes it never makes) is
// flagged with its ratio. (A --set that contradicts sync is refused:
// TestContradictingSetRefused.)
func TestPostgresDurabilityOnASlowHonestDisk(t *testing.T) {
	needPostgres(t)
	d := slowDisk(t)
	results := d.Dir + "/results"
	insert := spec(t, "insert")
	run := func(args map[string]string) *result.Result {
		// Not the crash-recovery test: on this disk PostgreSQL's
		// end-of-recovery checkpoint flushes every file, 9 s a run.
		args["db"], args["results"], args["crash-recovery"] = "postgres:managed", results, "false"
		return workloadtest.Run(t, insert, args)
	}
	res := run(map[string]string{"units": "100"})
	if !strings.HasPrefix(res.Server.DataDir, d.Dir) {
		t.Fatalf("the cluster is in %s, not on the test disk", res.Server.DataDir)
	}
	durability(t, res, "plausible", "commits per flush")
	// The disk's ceiling is known now (probed once, by the run above, alone
	// on the disk): the others two at a time, each cluster's initdb on the
	// slow disk being mostly waiting.
	t.Run("group", func(t *testing.T) {
		t.Run("32 clients", func(t *testing.T) {
			t.Parallel()
			res := run(map[string]string{"clients": "32", "duration": "3s"})
			durability(t, res, "plausible", "commits per flush")
			// While one flush takes its 8 ms, the other clients' commits
			// queue behind it and the next flush takes them all: the
			// engine's own counts show several commits a flush, however
			// fast the machine.
			if d := res.Durability; d.Flushes <= 0 || d.Commits/d.Flushes < 2 {
				t.Errorf("32 clients made %.0f commits/s and %.0f flushes/s: fewer than 2 commits a flush, so group commit did not show", d.Commits, d.Flushes)
			}
		})
	})
	t.Run("lying disk", func(t *testing.T) {
		d.Lying()
		durability(t, run(map[string]string{"units": "2000"}), "flagged", "from one client", "×")
	})
}

// TestPostgresServerOfTheUsersJudgedByWhatItReadsBack: on a server of the
// user's (a DSN) running with fsync off, --durability sync sets only what a
// session may (synchronous_commit); the fsync read back is compared with
// what sync needs, and the verdict flags the run from it, with no flush
// ceiling to compare with (the data is not dbgauge's to probe). The same
// server at lazy is not durable by design either way, and says why.
func TestPostgresServerOfTheUsersJudgedByWhatItReadsBack(t *testing.T) {
	needPostgres(t)
	p, err := postgres.Start(context.Background(), postgres.ServerConfig{Config: server.Config{Dir: t.TempDir()}, Settings: map[string]string{"fsync": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.StopClean()
	res := workloadtest.Run(t, spec(t, "insert"), map[string]string{"db": p.DSN(false), "units": "200"})
	durability(t, res, "flagged", "--durability sync, but postgres reads back fsync=off (sync needs on)", "what ran is --durability off")
	if d := res.Durability; d.Level != "off" || len(d.Unlike) != 1 || d.Ceiling != 0 {
		t.Errorf("durability %+v: want the level read back off, fsync unlike sync, no ceiling", d)
	}
	res = workloadtest.Run(t, spec(t, "insert"), map[string]string{"db": p.DSN(false), "units": "200", "durability": "lazy"})
	durability(t, res, "not durable by design", "--durability lazy, and postgres reads back fsync=off (lazy needs on)")
}
