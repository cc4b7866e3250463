package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// A run over many machines (docs/many-machines.md): --shard i/N makes this
// process shard i of N, each running --clients C of the run's N·C; client
// k's seeds and data partition follow k, whichever machine runs it. Shard 0
// loads the data (or finds it loaded) and then writes LoadedFile in
// --results; the others wait for that file before they look at the data,
// so that the data is loaded once, never N times. --start-at makes every
// shard begin at the same wall-clock instant; each measures its clock
// against the server's. `dbgauge merge` makes one result of the shards.

// LoadedFile is the file shard 0 writes in --results once the data is
// loaded; the other shards wait for it. Over ssh, without a shared
// --results, touch it on each machine after `dbgauge load` (with the line
// the shards expect: see ShardKey).
const LoadedFile = "dataset-loaded"

// shardPlan is --shard, --start-at and --shard-wait, validated.
type shardPlan struct {
	index, count int
	startAt      time.Time // zero: none
	startFile    string    // --start-at file:PATH: the time is read from PATH
	key          string    // the line LoadedFile holds for this run
	// wait bounds each wait on another process: shard 0's load, and the
	// start time in startFile (--shard-wait).
	wait time.Duration
}

// DefaultShardWait is --shard-wait's default: generous for a load, finite
// for a shard that waits on a marker that will never come.
const DefaultShardWait = time.Hour

// ReadyFile is the file a shard writes in --results, its clients open,
// while it waits for --start-at file:PATH: a coordinator writes PATH once
// every shard's is there.
func ReadyFile(index int) string { return fmt.Sprintf("ready-shard-%d", index) }

// shardConfig reads --shard, --start-at and --shard-wait. The clients,
// --units and --rate of run are this shard's part afterwards; it returns
// the run's clients, all shards together.
func (p *Plan) shardConfig(v *knob.Values, req Request) (int, error) {
	clients, err := p.shardStart(v, req)
	if err != nil {
		return 0, err
	}
	return clients, p.shardWait(v)
}

// shardStart reads --shard and --start-at (shardConfig).
func (p *Plan) shardStart(v *knob.Values, req Request) (int, error) {
	if v.IsSet("start-at") {
		p.shard = &shardPlan{index: 0, count: 1}
		if path, ok := strings.CutPrefix(v.Get("start-at"), "file:"); ok {
			if path == "" {
				return 0, knob.Bad("name the file a coordinator writes the start time into, e.g. --start-at file:/shared/run1/start", "--start-at file: names no file")
			}
			p.shard.startFile = path
		} else {
			at, err := time.Parse(time.RFC3339Nano, v.Get("start-at"))
			if err != nil {
				return 0, knob.Bad("give an RFC 3339 time, e.g. --start-at 2026-12-01T10:00:00Z, or file:PATH", "--start-at %q is not an RFC 3339 time", v.Get("start-at"))
			}
			p.shard.startAt = at
		}
	}
	if !v.IsSet("shard") {
		return p.run.Clients, nil
	}
	i, n, err := ParseShard(v.Get("shard"))
	if err != nil {
		return 0, err
	}
	if req.ResultID != "" || req.Ledger != nil {
		return 0, knob.Bad("run each shard as a plain run, without a matrix or dbgauge crash", "--shard %s: a shard is one process's part of one run", v.Get("shard"))
	}
	db := v.Get("db")
	if db == p.bspec.Throwaway || p.bspec.Managed(db) {
		return 0, knob.Bad("give every shard the same server of yours, e.g. --db postgres://user:pw@host/db", "--shard with --db %s: each shard would run against a database of its own", redactedDB(db))
	}
	for _, k := range []string{"backup", "fault", "failover", "dataset"} {
		if v.IsSet(k) {
			return 0, knob.Bad("drop --"+k+" from a sharded run", "--%s with --shard: every shard would do it", k)
		}
	}
	if p.run.Units > 0 && p.run.Units < int64(n) {
		return 0, knob.Bad(fmt.Sprintf("give at least --units %d, one a shard", n), "--units %d over %d shards", p.run.Units, n)
	}
	if p.shard == nil {
		p.shard = &shardPlan{}
	}
	p.shard.index, p.shard.count = i, n
	if !v.IsSet("seed") {
		// Every shard must draw as one process would: the seed comes from
		// what they share, --start-at, else it is 1.
		p.run.Seed = 1
		if !p.shard.startAt.IsZero() {
			p.run.Seed = uint64(p.shard.startAt.Unix())
		}
	}
	total := p.run.Clients * n
	p.run.First = i * p.run.Clients
	if p.run.Units > 0 {
		u := p.run.Units / int64(n)
		if int64(i) < p.run.Units%int64(n) {
			u++
		}
		p.run.Units = u
	}
	p.run.Rate /= float64(n)
	if p.id == "" {
		p.id = "shard-" + strconv.Itoa(i)
	}
	p.shard.key = ShardKey(req.Workload.Name, redactedDB(db), p.run.Seed, n)
	return total, nil
}

// shardWait reads --shard-wait into the shard plan, or refuses it where
// nothing waits on another process.
func (p *Plan) shardWait(v *knob.Values) error {
	d := DefaultShardWait
	if v.IsSet("shard-wait") {
		var err error
		if d, err = v.Duration("shard-wait"); err != nil {
			return err
		}
		if d <= 0 {
			return knob.Bad("give a duration, e.g. --shard-wait 2h", "--shard-wait %s waits for nothing", v.Get("shard-wait"))
		}
		if !v.IsSet("shard") && (p.shard == nil || p.shard.startFile == "") {
			return knob.Bad("drop it, or add --shard i/N or --start-at file:PATH", "--shard-wait: nothing waits for another process")
		}
	}
	if p.shard != nil {
		p.shard.wait = d
	}
	return nil
}

// shardable refuses a sharded run of a workload whose checks or ids live
// in one process (workload.Shardable).
func (p *Plan) shardable() error {
	if p.shard == nil || p.shard.count < 2 {
		return nil
	}
	if ro, ok := p.w.(workload.ReadOnly); ok && ro.ReadOnly() {
		return nil
	}
	sh, ok := p.w.(workload.Shardable)
	if !ok {
		return knob.Bad("shard a workload that only reads, kv without insert, or tpcc",
			"--shard: %s keeps what it wrote and acknowledged in one process, and its checks would fail while other shards write", p.wspec.Name)
	}
	if err := sh.Shardable(); err != nil {
		return knob.Bad("or run it as one process", "--shard: %v", err)
	}
	return nil
}

// sharded reports whether this run is one shard of many. A shard reads no
// engine counters: they are the server's, and would count every shard's
// units as this one's (and PostgreSQL's wait for the backends of closed
// connections would wait on the other shards' open ones).
func (p *Plan) sharded() bool { return p.shard != nil && p.shard.count > 1 }

// ShardKey is the line LoadedFile holds for a run: the shards of one run
// agree on it, a file left by another run does not match.
func ShardKey(workload, db string, seed uint64, count int) string {
	return fmt.Sprintf("%s %s seed=%d shards=%d", workload, db, seed, count)
}

// ParseShard reads "i/N": shard i (from 0) of N.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return 0, 0, knob.Bad("write it as i/N, e.g. --shard 0/4 (shards 0 to N-1)", "--shard %q is not i/N", s)
	case n < 1 || n > 10_000:
		return 0, 0, knob.Bad("give 1 to 10000 shards", "--shard %q: %d shards", s, n)
	case i < 0 || i >= n:
		return 0, 0, knob.Bad(fmt.Sprintf("give a shard from 0 to %d", n-1), "--shard %q: there is no shard %d of %d", s, i, n)
	}
	return i, n, nil
}

// sharding is the extension of a sharded run (and of --start-at alone).
type sharding struct {
	plan   *shardPlan
	record *result.Shard
	first  bool // the first phase has not begun yet
}

func newSharding(p *shardPlan) any {
	if p == nil {
		return nil
	}
	return &sharding{plan: p, first: true}
}

// opened records the shard and reads this machine's clock against the
// server's, before anything else loads the server.
func (sh *sharding) opened(ctx context.Context, s *session) error {
	sh.record = &result.Shard{Index: sh.plan.index, Count: sh.plan.count, FirstClient: s.run.First, RunClients: s.run.Clients * sh.plan.count}
	if !sh.plan.startAt.IsZero() {
		at := sh.plan.startAt.UTC()
		sh.record.StartAt = &at
	}
	sh.record.Clock = readClock(ctx, s.db)
	s.mu.Lock()
	s.res.Shard = sh.record
	s.mu.Unlock()
	return nil
}

// beforeLoad makes a shard other than 0 wait for shard 0's load, at most
// --shard-wait; the session's stop (the first interrupt) ends the wait too.
func (sh *sharding) beforeLoad(ctx context.Context, s *session) error {
	if sh.plan.index == 0 || sh.plan.count == 1 {
		return nil
	}
	path := filepath.Join(s.results, LoadedFile)
	s.obs.Note(fmt.Sprintf("shard %d/%d: waiting for shard 0's load (%s), at most %s", sh.plan.index, sh.plan.count, path, sh.plan.wait))
	what := fmt.Sprintf("shard %d/%d: waited %s for shard 0's %s in %s", sh.plan.index, sh.plan.count, sh.plan.wait, LoadedFile, s.results)
	held := "" // what the file held at the last look, when another run's
	err := poll(ctx, sh.plan.wait, 500*time.Millisecond, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		line := strings.TrimSpace(string(b))
		if line != sh.plan.key {
			held = line
			return false
		}
		return true
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errWaitedOut) && held != "":
		return fmt.Errorf("%s: it holds %q, this shard expects %q: give every shard the same workload, --db, --seed (or --start-at) and shard count", what, held, sh.plan.key)
	case errors.Is(err, errWaitedOut):
		return fmt.Errorf("%s: do all shards share --results? (a load that takes longer: raise --shard-wait)", what)
	}
	return fmt.Errorf("shard %d/%d: stopped waiting for shard 0's %s in %s: %w", sh.plan.index, sh.plan.count, LoadedFile, s.results, err)
}

// loaded: shard 0 tells the others the data is there.
func (sh *sharding) loaded(_ context.Context, s *session, db backend.DB) (backend.DB, error) {
	if sh.plan.index != 0 || sh.plan.count == 1 {
		return db, nil
	}
	path := filepath.Join(s.results, LoadedFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(sh.plan.key+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("tell the other shards the data is loaded: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("tell the other shards the data is loaded: %w", err)
	}
	return db, nil
}

// beforeRun hands --start-at to the run engine.
func (sh *sharding) beforeRun(_ context.Context, s *session, cfg *run.Config) error {
	cfg.StartAt = sh.plan.startAt
	if sh.plan.startFile != "" {
		cfg.Ready = func(ctx context.Context, stop <-chan struct{}) (time.Time, error) {
			return sh.startFromFile(ctx, s, stop)
		}
		return nil
	}
	if !sh.plan.startAt.IsZero() {
		startNote(s, sh.plan.startAt, "--start-at "+sh.plan.startAt.Format(time.RFC3339))
	}
	return nil
}

// startNote says when the warm-up begins, or that what gave its time
// (--start-at TIME, or its file) has passed and it begins now.
func startNote(s *session, at time.Time, what string) {
	if d := time.Until(at); d > 0 {
		s.obs.Note(fmt.Sprintf("starting at %s, in %s", at.Format(time.RFC3339), d.Round(time.Second)))
	} else {
		s.obs.Note(fmt.Sprintf("%s has passed by %s: starting now", what, (-d).Round(time.Millisecond)))
	}
}

// startFromFile says this shard is ready (ReadyFile in --results), then
// waits, at most --shard-wait, for --start-at's file to hold an RFC 3339
// time, and gives it; the zero time if the run is stopped meanwhile.
func (sh *sharding) startFromFile(ctx context.Context, s *session, stop <-chan struct{}) (time.Time, error) {
	ready := filepath.Join(s.results, ReadyFile(sh.plan.index))
	if err := os.WriteFile(ready, []byte(time.Now().UTC().Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
		return time.Time{}, fmt.Errorf("say this shard is ready: %w", err)
	}
	path := sh.plan.startFile
	s.obs.Note(fmt.Sprintf("ready (%s): waiting for a start time in %s, at most %s", ready, path, sh.plan.wait))
	wctx, release := untilStop(ctx, stop)
	defer release()
	var at time.Time
	var bad error
	last := "" // what the file held at the last look, if no time
	err := poll(wctx, sh.plan.wait, 100*time.Millisecond, func() bool {
		b, err := os.ReadFile(path)
		text := strings.TrimSpace(string(b))
		if err != nil || text == "" {
			return false
		}
		t, err := time.Parse(time.RFC3339Nano, text)
		switch {
		case err != nil && text != last:
			last = text // perhaps half written: look again
			return false
		case err != nil:
			bad = knob.Bad("write one RFC 3339 time into it, e.g. date -u -d +20sec +%FT%TZ > "+path,
				"--start-at file:%s holds %q, not an RFC 3339 time", path, text)
			return true
		}
		at = t
		return true
	})
	switch {
	case bad != nil:
		return time.Time{}, bad
	case errors.Is(err, errWaitedOut):
		return time.Time{}, fmt.Errorf("waited %s for a start time in %s: is the coordinator writing it, once every shard's ready-shard-i is in %s? (raise --shard-wait for a longer wait)",
			sh.plan.wait, path, s.results)
	case err != nil:
		return time.Time{}, nil // stopped: the run ends before any unit
	}
	sh.started(s, at, path)
	return at, nil
}

// started records the start time read from path.
func (sh *sharding) started(s *session, at time.Time, path string) {
	s.mu.Lock()
	sh.plan.startAt = at
	u := at.UTC()
	if sh.record != nil {
		sh.record.StartAt = &u
	}
	s.mu.Unlock()
	startNote(s, at, "the start time in "+path)
}

// phaseBegins records how late the first phase began after --start-at.
func (sh *sharding) phaseBegins(s *session, p *metrics.Phase) {
	if !sh.first {
		return
	}
	sh.first = false
	if sh.plan.startAt.IsZero() || sh.record == nil {
		return
	}
	s.mu.Lock()
	sh.record.LateSeconds = max(p.Start.Sub(sh.plan.startAt).Seconds(), 0)
	s.mu.Unlock()
}

// clockReadings is how many times readClock asks the server's clock.
const clockReadings = 7

// readClock reads the server's clock a few times and keeps the reading of
// the shortest round trip: the offset is the server's time minus the
// middle of the round trip on this machine's clock.
func readClock(ctx context.Context, db backend.DB) *result.Clock {
	sq, ok := db.(backend.SQLDB)
	if !ok || sq.Dialect().Clock == "" {
		return &result.Clock{Source: "none: the engine runs inside dbgauge, or has no UTC clock to read"}
	}
	q := sq.Dialect().Clock
	c := &result.Clock{Source: q}
	conn, err := sq.Conn(ctx)
	if err != nil {
		c.Error = err.Error()
		return c
	}
	defer conn.Close()
	st := &backend.Stmt{SQL: q}
	best := time.Duration(-1)
	for range clockReadings {
		var us int64
		t0 := time.Now()
		if err := conn.QueryRow(ctx, st, nil, &us); err != nil {
			c.Error = err.Error()
			return c
		}
		t1 := time.Now()
		rtt := t1.Sub(t0)
		if best >= 0 && rtt >= best {
			continue
		}
		best = rtt
		mid := t0.Add(rtt / 2)
		c.OffsetUs = us - mid.UnixMicro()
		c.RTTUs = rtt.Microseconds()
		c.Readings++
	}
	c.Readings = clockReadings
	c.Measured = true
	return c
}

// redactedDB is --db as a result records it.
func redactedDB(db string) string { return redact.DSN(db) }
