package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/placement"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/verdict"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Request is what the user asked for.
type Request struct {
	Workload workload.Spec
	Values   *knob.Values // common and workload knobs
	Args     []string     // the command line, for the record
	// ResultID names the result folder inside --results (a matrix names its
	// cells); "" makes one from the time, the workload and the backend.
	ResultID string
	// Ledger, for dbgauge crash, hears of every commit; the workload must
	// be able to tell it (workload.Ledgered).
	Ledger workload.Ledger
	// DropCache drops the OS page cache before the engine opens (a cell of
	// a matrix: each starts without the pages the one before left).
	DropCache bool
	// Keep leaves the engine open when the session ends (dbgauge upgrade:
	// the server the run measured is upgraded next); Plan.Kept hands it
	// over, and its closing is the caller's.
	Keep bool
	// Engine, when not nil, is an engine already open (a server upgraded
	// in place) that the session uses instead of opening one; it closes it
	// at its end, unless Keep.
	Engine backend.DB
	// Upgraded, with Engine, says what upgrade that engine's server went
	// through just before the run: it goes into the result.
	Upgraded *result.Upgraded
}

// Plan is a validated request: everything is known to make sense before any
// file is written.
type Plan struct {
	wspec       workload.Spec
	bspec       backend.Spec
	w           workload.Workload
	api         backend.API
	run         run.Config
	bopts       backend.Options
	require     []verdict.Requirement
	results     string
	config      result.Config
	args        []string
	ceiling     bool            // probe the data folder's flush ceiling
	telemetry   bool            // the machine's and the engine's side of every second (telemetry.go)
	interval    time.Duration   // the series' resolution
	progress    time.Duration   // how often the observer hears of the run (--progress); 0: never
	logUnits    bool            // write every unit to units.csv.gz
	id          string          // the result folder's name, or "" for one made up
	backup      *backupPlan     // --backup
	failover    *failoverPlan   // --failover
	fault       *faultPlan      // --fault
	capacity    *capacityPlan   // --slo: a capacity search (capacity.go)
	reconnect   time.Duration   // --reconnect: how long clients may find the engine unavailable
	recoveryOn  bool            // time a managed server's crash recovery after the run
	harnessCPUs placement.Set   // --cpus harness=…: applied by cli
	ledger      *ledger.Book    // the commits acknowledged, when a restore is checked
	led         workload.Ledger // every ledger the workload tells (crash's pipe, ledger)
	dataDir     string          // --data-dir, absolute: the engine's files go in a folder made there
	dropCache   bool            // drop the OS page cache before opening the engine
	dataset     *datasetPlan    // --dataset Nx
	shard       *shardPlan      // --shard, --start-at (shard.go)
	keep        bool            // leave the engine open: Kept
	given       backend.DB      // an engine already open, used instead of opening one
	upgraded    *result.Upgraded
	kept        backend.DB // the engine left open by Execute, with keep
}

// Workload is the plan's workload: after Execute it knows what its run
// acknowledged, which its checks compare a database with.
func (p *Plan) Workload() workload.Workload { return p.w }

// Kept hands over the engine a Keep plan's Execute left open (nil when it
// never opened); the caller must close it. Called once, after Execute.
func (p *Plan) Kept() backend.DB {
	db := p.kept
	p.kept = nil
	return db
}

// Progress is how often the run's progress is said (--progress); 0: never.
func (p *Plan) Progress() time.Duration { return p.progress }

// CommonKnobs returns the common knobs with spec's defaults applied.
func CommonKnobs(spec workload.Spec) []knob.Spec {
	common := slices.Clone(Knobs)
	for i, k := range common {
		if d, ok := spec.Defaults[k.Name]; ok {
			common[i].Default = d
		}
	}
	return common
}

// BackendKnobs returns the knobs of every backend, each once.
func BackendKnobs() []knob.Spec {
	var out []knob.Spec
	seen := map[string]bool{}
	for _, b := range catalog.Backends() {
		for _, k := range b.Knobs {
			if !seen[k.Name] {
				seen[k.Name] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// NewValues returns empty values for the common knobs, those of every
// backend and those of spec.
func NewValues(spec workload.Spec) *knob.Values {
	return knob.NewValues(CommonKnobs(spec), BackendKnobs(), spec.Knobs)
}

// NewPlan validates req. Every error it returns is bad input (*knob.Error).
func NewPlan(req Request) (*Plan, error) {
	v := req.Values
	p := &Plan{wspec: req.Workload, args: redact.Args(req.Args), id: req.ResultID, dropCache: req.DropCache, keep: req.Keep, given: req.Engine, upgraded: req.Upgraded}
	db := v.Get("db")
	var ok bool
	if p.bspec, ok = catalog.Backend(db); !ok {
		return nil, knob.Bad("use one of "+strings.Join(catalog.BackendNames(), ", ")+" (dbgauge list shows them all)",
			"--db %q names no backend dbgauge knows", redact.DSN(db))
	}
	if err := p.ownKnobs(v); err != nil {
		return nil, err
	}
	if err := p.runConfig(v); err != nil {
		return nil, err
	}
	runClients, err := p.shardConfig(v, req)
	if err != nil {
		return nil, err
	}
	if err := p.backendOptions(v); err != nil {
		return nil, err
	}
	commit, err := workload.ParseCommit(v.Get("commit"))
	if err != nil {
		return nil, err
	}
	if p.w, err = req.Workload.New(workload.Common{Commit: commit, Clients: runClients, Seed: p.run.Seed}, v); err != nil {
		return nil, err
	}
	if err := p.shardable(); err != nil {
		return nil, err
	}
	if err := p.pickAPI(v); err != nil {
		return nil, err
	}
	if err := p.datasetConfig(v); err != nil {
		return nil, err
	}
	if err := p.paceConfig(v); err != nil {
		return nil, err
	}
	if err := p.backupConfig(v); err != nil {
		return nil, err
	}
	if p.recoveryOn, err = v.Bool("crash-recovery"); err != nil {
		return nil, err
	}
	if err := p.failoverConfig(v); err != nil {
		return nil, err
	}
	if err := p.faultConfig(v); err != nil {
		return nil, err
	}
	if ro, ok := p.w.(workload.ReadOnly); v.Get("read-from") == "replicas" && (!ok || !ro.ReadOnly()) {
		return nil, knob.Bad("use --read-from replicas with a workload that only reads (tpcb --select-only)", "%s writes, and replicas refuse writes", p.wspec.Name)
	}
	if err := p.ledgerConfig(req.Ledger); err != nil {
		return nil, err
	}
	if err := p.requirements(v); err != nil {
		return nil, err
	}
	if err := p.probes(v); err != nil {
		return nil, err
	}
	if p.results = v.Get("results"); p.results == "" {
		return nil, knob.Bad("give a folder, e.g. --results results", "--results is empty")
	}
	p.resultConfig(v, commit)
	// Last, once every knob is known good: --db itself, a folder that is
	// there or a server that answers, before any folder is made.
	if pf := p.bspec.Preflight; pf != nil {
		if err := pf(db); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// ledgerConfig gives the workload the ledger of its commits: dbgauge
// crash's (led), and the run's own when a restore, a failover or a fault
// will be judged by what it lost.
func (p *Plan) ledgerConfig(led workload.Ledger) error {
	if _, ok := p.w.(workload.Ledgered); ok && (p.backup != nil && p.backup.restore || p.failover != nil || p.fault != nil) {
		p.ledger = ledger.New()
		led = ledger.Tee(p.ledger, led)
	}
	if led == nil {
		return nil
	}
	l, ok := p.w.(workload.Ledgered)
	if !ok {
		return knob.Bad("use a workload that records its commits: insert, nms, or a workload file with a [ledger] (examples/deposits.toml)",
			"%s cannot tell which commits it made (dbgauge crash needs that)", p.wspec.Name)
	}
	l.SetLedger(led)
	p.led = led
	return nil
}

// probes reads what the session measures beside the run: the flush
// ceiling (--ceiling) and the telemetry (--telemetry).
func (p *Plan) probes(v *knob.Values) error {
	ceiling, err := v.Choice("ceiling")
	if err != nil {
		return err
	}
	telemetry, err := v.Choice("telemetry")
	if err != nil {
		return err
	}
	p.ceiling, p.telemetry = ceiling == "auto", telemetry == "on"
	return nil
}

// requirements refuses an engine without an ability the run needs, and
// reads --require.
func (p *Plan) requirements(v *knob.Values) error {
	if r, ok := p.w.(workload.Requirer); ok {
		for _, a := range r.Requires() {
			if p.bspec.Has(a) {
				continue
			}
			var have []string
			for _, b := range catalog.Backends() {
				if b.Has(a) {
					have = append(have, b.Name)
				}
			}
			return knob.Bad(fmt.Sprintf("drop the knob that needs %s, or use an engine that has them: %s", a, strings.Join(have, ", ")),
				"%s has no %s, which this %s run needs", p.bspec.Name, a, p.wspec.Name)
		}
	}
	for _, s := range v.List("require") {
		r, err := verdict.Parse(s, p.wspec.Metric())
		if err != nil {
			return err
		}
		p.require = append(p.require, r)
	}
	return nil
}

// resultConfig is the run's configuration as the result records it,
// passwords redacted.
func (p *Plan) resultConfig(v *knob.Values, commit workload.Commit) {
	w := p.wspec
	p.config = result.Config{
		Workload: w.Name, Unit: w.Unit, UnitRate: w.Metric(),
		Backend: p.bspec.Name, DB: redact.DSN(v.Get("db")), API: string(p.api),
		Clients: p.run.Clients, Warmup: result.Duration(p.run.Warmup), WarmupAuto: p.run.WarmupAuto, Duration: result.Duration(p.run.Duration),
		Units: p.run.Units, Transactions: p.run.PerClient, Rate: p.run.Rate, Retries: p.run.Retries, Seed: p.run.Seed,
		Profile: v.Get("profile"), Arrivals: p.arrivals(), SLO: v.List("slo"),
		Durability: string(p.bopts.Durability), Isolation: string(p.bopts.Isolation), Commit: commit.String(), Prepare: string(p.bopts.Prepare),
		Require: v.List("require"), StopFile: p.run.StopFile, Knobs: redactKnobs(v.Typed()), Interval: result.Duration(p.interval),
		Workloads: p.w.Config(),
	}
	for _, kv := range p.bopts.Set {
		p.config.Set = append(p.config.Set, kv.Key+"="+redact.DSN(kv.Value))
	}
}

// ownKnobs refuses a backend's own knob given for another backend
// (--topology with --db sqlite): it would be ignored.
func (p *Plan) ownKnobs(v *knob.Values) error {
	mine := map[string]bool{}
	for _, k := range p.bspec.Knobs {
		mine[k.Name] = true
	}
	for _, b := range catalog.Backends() {
		for _, k := range b.Knobs {
			if !mine[k.Name] && v.IsSet(k.Name) {
				return knob.Bad("drop --"+k.Name+", or use --db "+b.Throwaway, "--%s is a knob of %s, not of %s", k.Name, b.Name, p.bspec.Name)
			}
		}
	}
	return nil
}

// moments parses a knob's "at=D[,NAME=D]" (--backup at=60s,to=4m): at is
// required, other is the one other name allowed.
func moments(name, spec, hint, other string) (map[string]time.Duration, error) {
	out := map[string]time.Duration{}
	for _, part := range strings.Split(spec, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		k = strings.TrimSpace(k)
		d, err := time.ParseDuration(strings.TrimSpace(val))
		switch {
		case !ok || err != nil || d < 0:
			return nil, knob.Bad(hint, "--%s %q: %q is not name=duration", name, spec, part)
		case k != "at" && k != other:
			return nil, knob.Bad(hint, "--%s %q: %q is neither at nor %s", name, spec, k, other)
		}
		out[k] = d
	}
	if _, ok := out["at"]; !ok {
		return nil, knob.Bad(hint, "--%s %q says not when: give at=D", name, spec)
	}
	return out, nil
}

// redactKnobs masks passwords in the knobs' text.
func redactKnobs(m map[string]any) result.Knobs {
	for k, v := range m {
		switch v := v.(type) {
		case string:
			m[k] = redact.DSN(v)
		case []string:
			for i := range v {
				v[i] = redact.DSN(v[i])
			}
		}
	}
	return m
}

// runConfig reads how many clients run and how long: --clients (or
// --concurrency), --units, -t, --duration and --warmup; then the rest.
func (p *Plan) runConfig(v *knob.Values) error {
	c := &p.run
	name := result.ClientsKnob
	if v.IsSet("concurrency") {
		if v.IsSet(result.ClientsKnob) {
			return knob.Bad("give --clients or --concurrency, not both", "--concurrency is another name for --clients")
		}
		name = "concurrency"
	}
	clients, err := v.Int(name, 1, 100_000)
	if err != nil {
		return err
	}
	c.Clients = int(clients)
	if c.Units, err = v.Int("units", 0, 1<<62); err != nil {
		return err
	}
	if c.PerClient, err = v.Int("transactions", 0, 1<<62/max(clients, 1)); err != nil {
		return err
	}
	if c.PerClient > 0 {
		// pgbench -t: each client runs its N, so N × clients in all.
		if v.IsSet("units") {
			return knob.Bad("give -t (units per client) or --units (units in all), not both", "-t %d and --units %d", c.PerClient, c.Units)
		}
		c.Units = c.PerClient * clients
	}
	// --units alone ends the run by count, --duration alone by time, both by
	// whichever comes first; neither: the workload's default (a count for
	// insert, a duration for the others).
	switch units, dur := v.IsSet("units") || c.PerClient > 0, v.IsSet("duration"); {
	case dur && !units:
		c.Units = 0
		fallthrough
	case dur || c.Units == 0:
		if c.Duration, err = v.Duration("duration"); err != nil {
			return err
		}
	}
	if c.Units == 0 && c.Duration == 0 {
		return knob.Bad("give --duration 30s or --units 1000", "the run has neither a duration nor a number of units")
	}
	if v.IsSet("warmup") || c.Units == 0 {
		if c.Warmup, c.WarmupAuto, err = ParseWarmup(v.Get("warmup")); err != nil {
			return err
		}
	}
	return p.runRest(v)
}

// AutoWarmupCap is the longest --warmup auto waits for the rate to settle
// when it names no MAX.
const AutoWarmupCap = 5 * time.Minute

// ParseWarmup reads --warmup: a duration, or "auto" (until the rate
// settles, run.Settled) with its cap, AutoWarmupCap or "auto:MAX".
func ParseWarmup(s string) (d time.Duration, auto bool, err error) {
	rest, isAuto := strings.CutPrefix(s, "auto")
	switch {
	case isAuto && rest == "":
		return AutoWarmupCap, true, nil
	case isAuto && strings.HasPrefix(rest, ":"):
		if d, err = knob.ParseDuration(rest[1:]); err == nil && d > 0 {
			return d, true, nil
		}
	default:
		if d, err = knob.ParseDuration(s); err == nil {
			return d, false, nil
		}
	}
	return 0, false, knob.Bad("give a duration (--warmup 30s), auto, or auto with the most it may last (--warmup auto:10m)", "--warmup %q is neither a duration nor auto[:MAX]", s)
}

// runRest reads the run's knobs beside its length: reconnection, rate,
// outputs, retries, seed and stop file.
func (p *Plan) runRest(v *knob.Values) error {
	c := &p.run
	var err error
	if p.reconnect, err = v.Duration("reconnect"); err != nil {
		return err
	}
	if p.reconnect <= 0 {
		return knob.Bad("give how long clients may keep reconnecting, e.g. --reconnect 30s", "--reconnect must be above 0")
	}
	if c.Rate, err = v.Float("rate"); err != nil {
		return err
	}
	if p.logUnits, err = v.Bool("log-units"); err != nil {
		return err
	}
	if p.interval, err = v.Duration("interval"); err != nil {
		return err
	}
	if p.interval < time.Second || p.interval%time.Second != 0 {
		return knob.Bad("give whole seconds, e.g. --interval 1m", "--interval %s: the series is made of whole seconds", p.interval)
	}
	progress, err := v.Int("progress", 0, 86400)
	if err != nil {
		return err
	}
	p.progress = time.Duration(progress) * time.Second
	retries, err := v.Int("retries", 0, 1000)
	if err != nil {
		return err
	}
	c.Retries = int(retries)
	if v.IsSet("seed") {
		seed, err := v.Int("seed", 0, 1<<62)
		if err != nil {
			return err
		}
		c.Seed = uint64(seed)
	} else {
		c.Seed = uint64(time.Now().UnixNano())
	}
	if c.StopFile = v.Get("stop-file"); c.StopFile != "" {
		if _, err := os.Stat(c.StopFile); err == nil {
			return knob.Bad("remove it, or name another file", "the stop file %s exists already: the run would stop at once", c.StopFile)
		}
	}
	return nil
}

func (p *Plan) backendOptions(v *knob.Values) error {
	o := &p.bopts
	o.DB, o.Conns = v.Get("db"), p.run.Clients
	if p.bspec.Own != nil {
		own, err := p.bspec.Own(v)
		if err != nil {
			return err
		}
		o.Own = own
	}
	dur, err := v.Choice("durability")
	if err != nil {
		return err
	}
	prep, err := v.Choice("prepare")
	if err != nil {
		return err
	}
	o.Durability, o.Prepare = backend.Durability(dur), backend.Prepare(prep)
	if why, ok := p.bspec.DurabilityRefusal(o.Durability); ok {
		// Refused here, not when the engine opens: a matrix checks every
		// cell's plan before it runs the first.
		return knob.Bad("give another --durability (dbgauge list shows what each level does in each engine)", "--durability %s on %s: %s", dur, p.bspec.Name, why)
	}
	iso, err := v.Choice("isolation")
	if err != nil {
		return err
	}
	o.Isolation = backend.Isolation(iso)
	if why, refused := p.bspec.Refusal(o.Isolation); refused {
		return knob.Bad(isolationHint(p.bspec), "--isolation %s on %s: %s", iso, p.bspec.Name, why)
	}
	for _, s := range v.List("set") {
		kv, err := backend.ParseSet(s)
		if err != nil {
			return err
		}
		o.Set = append(o.Set, kv)
	}
	// A --set of a setting the level decides must not say otherwise: the
	// verdicts and dbgauge crash judge the level.
	if err := p.bspec.Contradiction(o.Durability, o.Set); err != nil {
		return err
	}
	return p.storage(v)
}

// isolationHint says which levels b takes, or which engines have levels.
func isolationHint(b backend.Spec) string {
	if levels := b.Levels(); len(levels) == 1 {
		return "give --isolation " + string(levels[0]) + " (or leave it out)"
	} else if len(levels) > 1 {
		return "give one of " + strings.Join(names(levels...), ", ") + " (dbgauge list shows what each does in " + b.Name + ")"
	}
	return "drop --isolation, or use an engine with isolation levels (" + engines(func(b backend.Spec) bool { return len(b.Levels()) > 0 }) + ")"
}

// storage reads --data-dir, --cache and --page-size, refusing what the
// engine cannot do (docs/data.md).
func (p *Plan) storage(v *knob.Values) error {
	o, b := &p.bopts, p.bspec
	if v.IsSet("data-dir") {
		dir, err := dataDir(v.Get("data-dir"), o.DB, b)
		if err != nil {
			return err
		}
		p.dataDir = dir
	}
	if v.IsSet("cache") {
		if b.Cache == "" {
			return knob.Bad("drop --cache, or use an engine with a cache of its own ("+engines(hasCache)+")",
				"--cache %s: %s", v.Get("cache"), b.NoCache)
		}
		n, err := v.Size("cache", 128<<10, 1<<40)
		if err != nil {
			return err
		}
		o.CacheBytes = n
	}
	if v.IsSet("page-size") {
		if b.PageSize == "" {
			return knob.Bad("drop --page-size", "--page-size %s: %s", v.Get("page-size"), b.NoPageSize)
		}
		n, err := v.Size("page-size", 1, 1<<20)
		if err != nil {
			return err
		}
		if len(b.PageSizes) > 0 && !slices.Contains(b.PageSizes, n) {
			var ok []string
			for _, s := range b.PageSizes {
				ok = append(ok, strconv.FormatInt(s, 10))
			}
			return knob.Bad("give one of "+strings.Join(ok, ", "), "--page-size %s: %s has no such page size", v.Get("page-size"), b.Name)
		}
		o.PageSize = n
	}
	if v.IsSet("server-memory") {
		n, err := serverMemory(v, b, o.DB, o.CacheBytes)
		if err != nil {
			return err
		}
		o.ServerMemory = n
	}
	if v.IsSet("cpus") {
		sp, err := placement.Parse(v.Get("cpus"))
		if err != nil {
			return knob.Bad("write it as server=0,harness=1 (CPU lists such as 0-2,5), with CPUs this machine has", "--cpus %s: %v", v.Get("cpus"), err)
		}
		if sp.Server != nil && !p.bspec.Managed(o.DB) {
			return knob.Bad("drop server=, or use "+engines(managed),
				"--cpus %s: dbgauge places only a server it starts (--db %s)", v.Get("cpus"), redact.DSN(o.DB))
		}
		o.ServerCPUs, p.harnessCPUs = sp.Server, sp.Harness
	}
	return nil
}

// memoryMargin is what --server-memory must leave a server above its cache:
// its processes, catalogs and connections.
const memoryMargin = 64 << 20

// serverMemory reads --server-memory: a managed server only, a limit that
// leaves room above the cache (known here when --cache is given; else
// checked against the cache read back), and a memory cgroup dbgauge can make.
func serverMemory(v *knob.Values, b backend.Spec, db string, cache int64) (int64, error) {
	n, err := v.Size("server-memory", 1<<20, 1<<50)
	if err != nil {
		return 0, err
	}
	s := v.Get("server-memory")
	switch {
	case strings.Contains(db, "://"):
		return 0, knob.Bad("drop --server-memory, or use a server dbgauge starts ("+engines(managed)+")",
			"--server-memory %s: dbgauge cannot limit the memory of a server it does not manage (--db %s)", s, redact.DSN(db))
	case !b.Managed(db):
		return 0, knob.Bad("drop --server-memory, or use "+engines(managed),
			"--server-memory %s: %s has no server: the engine runs inside dbgauge", s, db)
	}
	if err := tooSmall(s, n, cache, "--cache"); err != nil {
		return 0, err
	}
	if err := server.CheckMemoryCgroup(); err != nil {
		return 0, knob.Bad(server.CgroupHint, "--server-memory %s: %v", s, err)
	}
	return n, nil
}

// tooSmall refuses a memory limit that leaves the server less than
// memoryMargin above its cache: the kernel would kill it.
func tooSmall(s string, limit, cache int64, of string) error {
	if cache > 0 && limit < cache+memoryMargin {
		return knob.Bad(fmt.Sprintf("give at least %s (the cache, %s, and 64 MB for the server's processes), or a smaller --cache", knob.FormatSize(cache+memoryMargin), knob.FormatSize(cache)),
			"--server-memory %s is below the server's cache (%s) + 64 MB: the server would be killed", s, of)
	}
	return nil
}

// dataDir checks a --data-dir for the engine of --db db: the engine must keep
// its files where dbgauge puts them (an embedded engine in its own file, a
// managed server), and the folder must exist and be writable.
func dataDir(dir, db string, b backend.Spec) (string, error) {
	switch {
	case dir == "":
		return "", knob.Bad("give a folder, e.g. --data-dir /mnt/ssd", "--data-dir is empty")
	case strings.Contains(db, "://"):
		return "", knob.Bad("drop --data-dir, or use --db "+b.Throwaway+" (a server dbgauge starts keeps its data there)",
			"--data-dir cannot move the data of a server dbgauge does not manage (--db %s)", redact.DSN(db))
	case db != b.Throwaway && !b.Managed(db):
		return "", knob.Bad("give either --db "+b.Throwaway+" with --data-dir, or the path in --db alone",
			"--data-dir and a path in --db %s both say where the data goes", db)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", knob.Bad("give an existing folder", "--data-dir %s: %v", dir, err)
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", knob.Bad("create it first (mkdir -p "+abs+"), or give an existing folder", "--data-dir %s does not exist", dir)
	case !st.IsDir():
		return "", knob.Bad("give a folder, not a file", "--data-dir %s is not a folder", dir)
	}
	if err := disk.Writable(abs); err != nil {
		return "", knob.Bad("give a folder you can write (check its permissions, and that it is not mounted read-only)",
			"--data-dir %s is not writable: %v", dir, err)
	}
	return abs, nil
}

// pickAPI chooses how to speak to the engine: the workload's first choice
// that the engine speaks, or key-value over SQL.
func (p *Plan) pickAPI(v *knob.Values) error {
	want, err := v.Choice("api")
	if err != nil {
		return err
	}
	can := func(a backend.API) bool {
		return slices.Contains(p.wspec.APIs, a) && (p.bspec.API == a || (a == backend.KV && p.bspec.API == backend.SQL))
	}
	if want != "auto" {
		if !can(backend.API(want)) {
			return knob.Bad("drop --api, or use --api auto", "%s cannot run on %s through --api %s", p.wspec.Name, p.bspec.Name, want)
		}
		p.api = backend.API(want)
		return nil
	}
	for _, a := range p.wspec.APIs {
		if a == p.bspec.API {
			p.api = a
			return nil
		}
	}
	if can(backend.KV) {
		p.api = backend.KV
		return nil
	}
	return knob.Bad("use a "+string(p.wspec.APIs[0])+" engine", "%s does not run on %s (a %s engine)", p.wspec.Name, p.bspec.Name, p.bspec.API)
}

// manyClients is the client count from which the heap is mostly the
// clients' long-lived connections, not garbage (bench/clients.sh).
const manyClients = 256

// GCPercent returns the garbage collector's target (GOGC) the run wants, or
// 0 to keep the runtime's: with many clients of a server, 50. The heap is
// then mostly the connections' buffers, and the collector's CPU is set by
// the garbage made per second, not by the live heap: halving the headroom
// above 1,000 connections' buffers costs about a percent of a core and keeps
// dbgauge's memory, which the server would otherwise not get, under 100 MB.
// An engine inside dbgauge keeps the runtime's 100: its page caches are not
// Go's heap, which stays a few MB, so 50 made a collection every few MB
// allocated (400 in 14 s of SQLite reads at 1,000 clients: ×0.90 of the
// records/s with 100). cli applies it: it touches the process.
func (p *Plan) GCPercent() int {
	if p.run.Clients >= manyClients && p.bspec.Serves() {
		return 50
	}
	return 0
}

// HarnessCPUs returns the CPUs dbgauge's own process is to run on
// (--cpus harness=…), or nil to leave it to the kernel. cli applies it: it
// touches the process.
func (p *Plan) HarnessCPUs() placement.Set { return p.harnessCPUs }

// ResultsRoot returns the folder that will receive the result folder.
func (p *Plan) ResultsRoot() string { return p.results }

// Options returns the engine's options as the plan built them from the
// knobs: the one place they are built (dbgauge crash reopens with them).
func (p *Plan) Options() backend.Options { return p.bopts }

// Backend returns the chosen backend's spec.
func (p *Plan) Backend() backend.Spec { return p.bspec }

// engines names the engines of the catalog for which has holds, as --db
// takes them fresh ("sqlite, bbolt or postgres:managed"): the hints of
// bad input list what the catalog offers, not a copy of it.
func engines(has func(backend.Spec) bool) string {
	names := catalog.Throwaways(has)
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// hasCache says whether an engine has a cache --cache sets.
func hasCache(b backend.Spec) bool { return b.Cache != "" }

// managed says whether dbgauge starts the engine's server itself.
func managed(b backend.Spec) bool { return b.Serves() }
