package backendtest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/verdict"
)

// verdictCommits is how many commits one client makes for the verdict, in
// verdictRounds slices, each followed at sync by verdictProbeOps flushes of
// each of the probe's methods.
const (
	verdictCommits  = 200
	verdictRounds   = 10
	verdictProbeOps = 40
)

// DurabilityVerdict runs the durability verdict (verdict.Durability, on a
// result made as a session makes it: the engine's counters over the
// commits, its settings read back, the flush ceiling of the folder holding
// its data) on a run of one client committing one write at a time at
// --durability sync, and again at off, and holds it to what it must say.
//
// Sync: the engine counts its flushes, at least one per commit (one client
// has no other commit to share a flush with), names where the count comes
// from (or, with an empty Spec.Flushes, declares it counts none), and is
// plausible against the flush ceiling of the folder holding its data,
// probed in turns with the commits (two measurements taken together, not a
// rate against a constant). Off: not
// durable by design, with few flushes or none (at most one per four
// commits), or, where the engine counts none at off, the settings read
// back say off. Both: the settings read back allow the level.
func DurabilityVerdict(t *testing.T, spec backend.Spec) {
	for _, d := range []backend.Durability{backend.Sync, backend.Off} {
		if !spec.HasLevel(d) {
			continue
		}
		t.Run("durability="+string(d), func(t *testing.T) {
			res, delta := verdictRun(t, spec, d)
			v := res.Durability
			t.Logf("%s: %s", v.Verdict, v.Detail)
			commits := res.Stats.Delta["commits"]
			if w, ok := delta["write_xacts"]; ok {
				commits = w
			}
			if commits < verdictCommits {
				t.Errorf("the engine counted %d commits for %d", commits, verdictCommits)
			}
			flushes, counted := delta["flushes"]
			if len(v.Unlike) > 0 {
				t.Errorf("the settings read back are unlike --durability %s: %v", d, v.Unlike)
			}
			switch {
			case d == backend.Sync && spec.Flushes == "" && !counted:
				// An engine that counts no flushes says so (Redis: INFO has
				// no fsync count): one client's commits are still held to
				// the flush ceiling of the folder holding its data.
				if v.Verdict != result.Plausible {
					t.Errorf("verdict %q: %s; want plausible: one client's synchronous commits within the flush ceiling", v.Verdict, v.Detail)
				}
			case d == backend.Sync:
				if !counted || spec.Flushes == "" {
					t.Fatalf("the engine counts no flushes (counters %v; Spec.Flushes %q)", delta, spec.Flushes)
				}
				if flushes < commits {
					t.Errorf("%d flushes for %d commits of one client: a synchronous commit waits for a flush of its own", flushes, commits)
				}
				if v.Verdict != result.Plausible || !strings.Contains(v.Detail, "flushes counted: "+spec.Flushes) {
					t.Errorf("verdict %q: %s; want plausible, with its flushes counted and their source", v.Verdict, v.Detail)
				}
			case d == backend.Off:
				if v.Verdict != result.NotDurableByDesign {
					t.Errorf("verdict %q: %s; want not durable by design", v.Verdict, v.Detail)
				}
				fit, known := spec.LevelsOf(res.Engine.Settings)
				saysOff := known && slices.Contains(fit, backend.Off)
				switch {
				case counted && flushes*4 > commits:
					t.Errorf("%d flushes for %d commits at --durability off: want few or none", flushes, commits)
				case !counted && !saysOff:
					t.Errorf("the engine counts no flushes at off, and its settings read back (%v) do not say off", fit)
				}
			}
		})
	}
}

// verdictRun opens spec's engine at d, commits verdictCommits writes from
// one client, and returns the result the session would judge, judged, and
// the engine's counters over the commits.
func verdictRun(t *testing.T, spec backend.Spec, d backend.Durability) (*result.Result, map[string]int64) {
	ctx := context.Background()
	db := Open(t, spec, backend.Options{Durability: d, Conns: 1})
	e, err := db.Engine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	commit, done := committer(t, db)
	st, ok := db.(backend.Statser)
	if !ok {
		t.Fatalf("%s counts nothing (no Stats): the verdict cannot judge it", spec.Name)
	}
	before, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// At sync the commits and the ceiling's probe take turns, a slice each,
	// on the same folder: the two rates are measured under the same load
	// of a machine others share, as the verdict compares them.
	var seconds float64
	var probe *interleaved
	if d == backend.Sync && e.Path != "" {
		probe = &interleaved{folder: filepath.Dir(e.Path)}
	}
	for r := range verdictRounds {
		start := time.Now()
		for i := range verdictCommits / verdictRounds {
			commit(r*verdictCommits/verdictRounds + i)
		}
		seconds += time.Since(start).Seconds()
		if probe != nil {
			probe.slice(t)
		}
	}
	// The session reads the counters after its clients have closed: a
	// PostgreSQL backend reports its WAL statistics when it ends.
	done()
	after, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	delta := map[string]int64{}
	for k, v := range after {
		if b, ok := before[k]; ok {
			delta[k] = v - b
		}
	}
	dur := &result.Durability{FlushSource: spec.Flushes}
	if probe != nil {
		dur.Ceiling = probe.ceiling()
	}
	if fit, known := spec.LevelsOf(e.Settings); known {
		levels := make([]string, len(fit))
		for i, l := range fit {
			levels[i] = string(l)
		}
		dur.Level, dur.Unlike = strings.Join(levels, " or "), spec.Unlike(d, e.Settings)
	}
	res := &result.Result{
		Config:     result.Config{Durability: string(d), Clients: 1},
		Engine:     result.Engine(e),
		Phases:     []result.Phase{{Name: "measure", Seconds: seconds}},
		Stats:      &result.Stats{Delta: delta},
		Durability: dur,
	}
	verdict.Durability(res)
	return res, delta
}

// interleaved is the flush ceiling of a folder probed in slices between
// the commits: each slice rewrites an 8 KiB block and flushes it with each
// of the methods a run's probe tries (disk.CeilingOf).
type interleaved struct {
	folder  string
	ops     map[string]int64
	seconds map[string]float64
}

var probeMethods = []disk.Method{disk.Fdatasync, disk.Fsync, disk.ODsync}

func (p *interleaved) slice(t *testing.T) {
	t.Helper()
	cells, err := disk.Probe(context.Background(), disk.Config{
		Dir: p.folder, Blocks: []int{8192}, Methods: probeMethods, Patterns: []disk.Pattern{disk.Rewrite}, Ops: verdictProbeOps,
	}, nil, nil)
	if err != nil {
		t.Fatalf("probe the flush ceiling of %s: %v", p.folder, err)
	}
	if p.ops == nil {
		p.ops, p.seconds = map[string]int64{}, map[string]float64{}
	}
	for _, c := range cells {
		if c.Error != "" {
			t.Fatalf("probe the flush ceiling of %s: %s: %s", p.folder, c.Method, c.Error)
		}
		p.ops[c.Method] += c.Ops
		p.seconds[c.Method] += c.Seconds
	}
}

// ceiling is the best method's rate over all the slices.
func (p *interleaved) ceiling() float64 {
	best := 0.0
	for m, n := range p.ops {
		if s := p.seconds[m]; s > 0 {
			best = max(best, float64(n)/s)
		}
	}
	return best
}

// committer returns a function that commits write i in a transaction of
// its own, on one connection (an INSERT, or a Put on a key-value engine),
// and one that closes the connection.
func committer(t *testing.T, db backend.DB) (commit func(i int), done func()) {
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	switch db := db.(type) {
	case backend.SQLDB:
		c, err := db.Conn(ctx)
		must(err)
		must(c.ExecScript(ctx, "CREATE TABLE durv (id BIGINT PRIMARY KEY, v VARCHAR(20) NOT NULL)"))
		ins := &backend.Stmt{SQL: "INSERT INTO durv (id, v) VALUES (?, ?)"}
		return func(i int) {
			must(c.Begin(ctx))
			_, err := c.Exec(ctx, ins, i, "v")
			must(err)
			must(c.Commit(ctx))
		}, func() { must(c.Close()) }
	case backend.KVDB:
		c, err := db.KVConn(ctx)
		must(err)
		must(c.CreateTable(ctx, "durv"))
		return func(i int) {
			must(c.Begin(ctx, true))
			must(c.Put(ctx, "durv", fmt.Appendf(nil, "k%08d", i), []byte("v")))
			must(c.Commit(ctx))
		}, func() { must(c.Close()) }
	}
	t.Fatalf("%T is neither SQL nor key-value", db)
	return nil, nil
}
