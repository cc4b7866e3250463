package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
)

// Spec describes one workload. The catalog lists them.
type Spec struct {
	Name    string
	Summary string
	Source  string // where it comes from, in words a user knows: "the NMS evaluation: …"
	Unit    string // the unit of work, singular: "call"
	Units   string // plural, for the headline metric: "calls" → "calls/s"
	// APIs the workload can use, in order of preference.
	APIs  []backend.API
	Knobs []knob.Spec
	// Defaults overrides the defaults of common knobs ("units": "10000").
	Defaults map[string]string
	// New parses the knobs into the workload's typed config.
	New func(c Common, v *knob.Values) (Workload, error)
	// PerMinute says the workload's own headline is per minute (OLTP-EMUL's
	// P); the summary shows it beside the per-second rate.
	PerMinute bool
	// Commits lists the commit modes the workload accepts; nil means all
	// (op, unit, every:N).
	Commits []CommitMode
	// ChecksAsIs says the workload's checks hold on any database of its
	// schema, whoever loaded and ran it (TPC-C's consistency conditions):
	// `dbgauge check NAME` runs them without a load.
	ChecksAsIs bool
}

// Accepts says whether the workload takes commit mode m.
func (s Spec) Accepts(m CommitMode) bool {
	if s.Commits == nil {
		return true
	}
	for _, c := range s.Commits {
		if c == m {
			return true
		}
	}
	return false
}

// Metric returns the headline metric's name: "calls/s".
func (s Spec) Metric() string { return s.Units + "/s" }

// Common are the session-wide knobs a workload needs to know.
type Common struct {
	Commit  Commit
	Clients int
	Seed    uint64
}

// Workload is a configured workload.
type Workload interface {
	// Shape names the unit kinds (with their weights in the mix) and the
	// operations inside units.
	Shape() Shape
	// Config returns the typed config, for the result.
	Config() any
	// Load creates the schema and data, reusing a dataset that matches.
	// db is a backend.SQLDB or a backend.KVDB.
	Load(ctx context.Context, db backend.DB) (Dataset, error)
	// Client prepares client id. Called before the clock starts.
	Client(ctx context.Context, db backend.DB, id int, rng *rand.Rand) (Client, error)
}

// Shape is what a workload does, for the run engine and the metrics.
type Shape struct {
	Units []Weighted // unit kinds dealt from a deck in these proportions
	Ops   []string   // operations timed inside units
}

// Kinds returns the names of the unit kinds.
func (s Shape) Kinds() []string {
	out := make([]string, len(s.Units))
	for i, u := range s.Units {
		out[i] = u.Name
	}
	return out
}

// Weighted is a unit kind and its share of the mix.
type Weighted struct {
	Name   string
	Weight int
	// Sole, when set, names the one operation (of Shape.Ops) a unit of this
	// kind is, timed once and never with anything else: pgbench -S's
	// SELECT. The run engine then reads the clock for the unit alone and
	// records its latency in the operation's histogram too (one
	// measurement, two histograms; in a closed loop and on a unit's first
	// try only, otherwise the operation is timed on its own). A unit that
	// times another operation, or this one twice, has them timed as usual.
	Sole string
}

// Dataset says what Load did.
type Dataset struct {
	Reused bool
	Facts  map[string]string
}

// Client runs units of work for one client. It is used by one goroutine.
type Client interface {
	// Do runs one unit of kind (an index into Shape.Units). It rolls back
	// what it started when it fails, so the unit can be tried again.
	Do(ctx context.Context, kind int, ops Ops) error
	// Close commits or rolls back what is pending and releases the client.
	Close(ctx context.Context) error
}

// Ops times the operations inside a unit. The run engine provides it.
type Ops interface {
	// Time runs fn as operation op (an index into Shape.Ops) and records
	// how long it took when it succeeds.
	Time(op int, fn func() error) error
}

// Checker is an optional ability: consistency checks after the run.
type Checker interface {
	Check(ctx context.Context, db backend.DB) ([]Check, error)
}

// Check is the outcome of one consistency check.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// Mark says what happened to some ids, for a Ledger.
type Mark byte

// The marks, written as these letters in dbgauge crash's ledger pipe.
const (
	Existing   Mark = 'e' // in the database before the run
	Committing Mark = 'b' // a commit that makes them durable is about to be sent
	Acked      Mark = 'a' // that commit was acknowledged
	Removing   Mark = 'r' // a commit that deletes them is about to be sent
	Removed    Mark = 'd' // that commit was acknowledged
)

// Ledger hears of a workload's commits, outside the engine, so that what a
// database holds after a crash or a restore can be compared with what it
// acknowledged: Committing before a commit that would make ids durable,
// Acked once the engine acknowledged it (Removing and Removed likewise for a
// commit that deletes them). The session marks the ids there before the run
// Existing. It is safe for concurrent use.
type Ledger interface {
	Mark(m Mark, ids []int64)
}

// Ledgered is an optional ability: the workload tells a ledger which ids each
// commit makes durable, and can list the ids a database holds.
type Ledgered interface {
	SetLedger(l Ledger)
	// Present returns the ids the database holds.
	Present(ctx context.Context, db backend.DB) (map[int64]bool, error)
}

// ReadOnly is an optional ability: the workload says whether its clients
// only read (tpcb --select-only), so that they may run on replicas.
type ReadOnly interface {
	ReadOnly() bool
}

// Shardable is a workload whose run may be split over many processes
// (--shard i/N): nothing it allocates or checks is known to one process
// alone (a key counter, the inserts it acknowledged), so each shard's
// checks hold while the others write. Shardable says why this
// configuration cannot be, or nil. A workload that only reads (ReadOnly)
// can always be.
type Shardable interface {
	Shardable() error
}

// Ambiguous reports whether a commit that returned err may nevertheless
// have been made: its connection died under it (the server went away, or
// the run abandoned it), so the engine's answer never arrived.
func Ambiguous(err error) bool {
	c := dberr.ClassOf(err)
	return err != nil && (c == dberr.Unavailable || c == dberr.Canceled)
}

// Sizer is an optional ability: the workload sizes its data to a number of
// bytes on disk (--dataset Nx: N times the engine's cache, or the machine's
// memory). The session calls SizeFor after the engine is open and before
// Load; Config then records the size chosen.
type Sizer interface {
	// SizeKnobs names the workload's own knobs that --dataset replaces
	// (kv: records); the plan refuses them together.
	SizeKnobs() []string
	// SizeFor sizes the data to about bytes, given what the engine stores
	// per item beyond the item's own bytes (backend.Spec.RecordOverhead).
	SizeFor(bytes, overhead int64) Sizing
}

// Sizing is what SizeFor chose: Items items (kv: records) of about
// ItemBytes bytes on disk each, the overhead included.
type Sizing struct {
	Items     int64
	ItemBytes int64
	Unit      string // "records"
}

// Requirer is an optional ability: engine abilities the config needs.
type Requirer interface {
	Requires() []backend.Ability
}

// Lost is returned (wrapped) by a client when units that had already
// finished were rolled back with the group they were to be committed in
// (--commit every:N): Group.Abort makes it. A client that can return it
// is a Pender, so that the run engine, which holds such units until their
// group commits, drops exactly those.
type Lost struct {
	Units int64
	Err   error
}

func (l *Lost) Error() string {
	return fmt.Sprintf("%v (%d earlier units rolled back)", l.Err, l.Units)
}
func (l *Lost) Unwrap() error { return l.Err }

// LostUnits returns the units lost with err, or 0.
func LostUnits(err error) int64 {
	var l *Lost
	if errors.As(err, &l) {
		return l.Units
	}
	return 0
}

// ErrNothing says a unit found no work: no document to pick, no stock to
// reserve, a lock another client holds. A Client's Do returns it (through
// Nothing, or wrapped) after rolling back what the unit started; the run
// engine counts the unit as nothing to do, neither ok nor failed, and never
// in the throughput. Match it with errors.Is.
var ErrNothing = errors.New("nothing to do")

// errUnasked marks a nothing to do the unit found before it asked the
// engine anything (NothingUnasked).
var errUnasked = errors.New("the engine was not asked")

// Nothing returns an error matching ErrNothing that says why the unit found
// no work, once the engine answered it (a query found no row, a lock was
// refused): the unit reached the engine. Its class is dberr.Expected: it is
// never retried, and code that only asks dberr.ClassOf does not take it for
// a fatal error.
func Nothing(format string, args ...any) error {
	return NothingAs("", format, args...)
}

// NothingAs is Nothing with a code naming the reason (OLTP-EMUL's exception
// names: "ex_no_rows_in_shopping_cart"), by which results count them.
func NothingAs(code, format string, args ...any) error {
	return dberr.New(dberr.Expected, dberr.Nothing, code, fmt.Errorf("%w: %s", ErrNothing, fmt.Sprintf(format, args...)))
}

// NothingUnasked is NothingAs for a unit that found nothing to do before it
// asked the engine anything (a semaphore another client of this run holds;
// a figure dbgauge keeps outside the engine): counted the same, but it
// tells nothing of the engine, so it ends no outage (Reached).
func NothingUnasked(code, format string, args ...any) error {
	return dberr.New(dberr.Expected, dberr.Nothing, code, fmt.Errorf("%w: %w: %s", ErrNothing, errUnasked, fmt.Sprintf(format, args...)))
}

// Reached reports whether a unit that ended with err reached the engine and
// had its answer: one that succeeded (nil) or found nothing to do after
// asking (Nothing, NothingAs); not one that found nothing before asking
// (NothingUnasked), nor one that failed. Only such a unit ends an outage.
func Reached(err error) bool {
	if err == nil {
		return true
	}
	return errors.Is(err, ErrNothing) && !errors.Is(err, errUnasked)
}

// Inconsistent returns a fatal error for a database that contradicts what the
// workload knows it wrote (a row missing, a count off).
func Inconsistent(format string, args ...any) error {
	return dberr.New(dberr.Fatal, "inconsistent", "", fmt.Errorf(format, args...))
}

// LostRace returns a retryable error for a unit that found the row it picked
// already taken by another transaction, on an engine whose picks hold no lock
// (backend.Dialect.OptimisticPicks).
func LostRace(format string, args ...any) error {
	return dberr.New(dberr.Retryable, "lost race", "", fmt.Errorf(format, args...))
}

// CommitMode is how often a workload commits.
type CommitMode string

// The commit modes.
const (
	PerOp    CommitMode = "op"    // commit every operation
	PerUnit  CommitMode = "unit"  // commit once per unit
	PerUnits CommitMode = "every" // commit once per N units
)

// Commit is the parsed --commit knob.
type Commit struct {
	Mode  CommitMode
	Every int // units per commit, for PerUnits
}

// ParseCommit parses "op", "unit" or "every:N".
func ParseCommit(s string) (Commit, error) {
	switch s {
	case "op":
		return Commit{Mode: PerOp}, nil
	case "unit":
		return Commit{Mode: PerUnit, Every: 1}, nil
	}
	if n, ok := strings.CutPrefix(s, "every:"); ok {
		if v, err := strconv.Atoi(n); err == nil && v >= 1 {
			return Commit{Mode: PerUnits, Every: v}, nil
		}
	}
	return Commit{}, knob.Bad("give op, unit or every:N (N ≥ 1), e.g. --commit every:10", "--commit %q is not a commit mode", s)
}

func (c Commit) String() string {
	if c.Mode == PerUnits {
		return "every:" + strconv.Itoa(c.Every)
	}
	return string(c.Mode)
}

// Group tracks a client's open transaction under a commit policy: when to
// begin, when to commit, and how many finished units ride on it.
type Group struct {
	Commit  Commit
	Open    bool  // a transaction is open
	Pending int64 // earlier units finished inside the open transaction
}

// UnitBegins reports whether a transaction must begin before the unit's
// first operation (unit and every:N modes).
func (g *Group) UnitBegins() bool { return g.Commit.Mode != PerOp && !g.Open }

// UnitEnds reports whether the unit that just finished its operations must
// commit the group now. If not, the unit is left pending in the open
// transaction (every:N), and is lost if that transaction rolls back.
func (g *Group) UnitEnds() bool {
	if g.Commit.Mode == PerOp {
		return false
	}
	if g.Pending+1 >= int64(g.Commit.Every) {
		return true
	}
	g.Pending++
	return false
}

// Committed resets the group after its transaction committed.
func (g *Group) Committed() { g.Open, g.Pending = false, 0 }

// Held returns the finished units riding on the open transaction (every:N),
// for a Client's Pending.
func (g *Group) Held() int64 { return g.Pending }

// Pender is an optional ability of a Client whose units may finish inside a
// transaction that commits later (--commit every:N): a Client with a Group
// (its Pending returns the Group's Held). The run engine asks it after each
// unit, and after Close: the units it holds then are not acknowledged yet.
// It holds their latencies until they commit (Pending falls below their
// number) and drops them when their group rolls back (the Client returns a
// *Lost), so that only committed units are ok and in the latency
// histograms, each counted in the second it committed.
type Pender interface {
	Pending() int64
}

// Abort ends the group after err: it calls rollback when a transaction is
// open, resets the group, and returns err, wrapped in *Lost when earlier
// units of the group were rolled back with it.
func (g *Group) Abort(err error, rollback func()) error {
	lost := g.Pending
	if g.Open {
		rollback()
	}
	g.Committed()
	if lost > 0 {
		return &Lost{Units: lost, Err: err}
	}
	return err
}

// Progresser is an optional ability: Load reports how far it got, done of
// total (rows, objects…), from any goroutine. dbgauge load shows it.
type Progresser interface {
	SetProgress(fn func(done, total int64))
}

// Debugged is an optional ability: the workload prints lines its user's
// scripts ask for (pgbench's debug()). The session hands it where to
// before the clients start; fn is called from the clients' goroutines,
// several at once.
type Debugged interface {
	SetDebug(fn func(line string))
}

// ColdStarter is an optional ability: the workload measures reads from cold
// caches (objects --phase cold), so the session clears the engine's caches
// between Load and the clients: a managed server restarted
// (backend.Restarter), an embedded engine closed and opened again, and the
// OS page cache dropped where permitted. The result records what was done.
type ColdStarter interface {
	ColdStart() bool
}

// Checkpointed is an optional ability: moments into the measure phase at
// which the session reports the throughput so far (seed 003's application
// test: conferences written by 60, 120, 240 and 480 s).
type Checkpointed interface {
	Checkpoints() []time.Duration
}

// KVOf returns db as a key-value engine, for a workload that speaks only
// key-value (the session wraps a SQL engine in sqlkv for it).
func KVOf(workload string, db backend.DB) (backend.KVDB, error) {
	d, ok := db.(backend.KVDB)
	if !ok {
		return nil, fmt.Errorf("%s: backend %T is not key-value", workload, db)
	}
	return d, nil
}

// SQLOf returns db as a SQL engine, for a workload that speaks only SQL.
func SQLOf(workload string, db backend.DB) (backend.SQLDB, error) {
	d, ok := db.(backend.SQLDB)
	if !ok {
		return nil, fmt.Errorf("%s: backend %T does not speak SQL", workload, db)
	}
	return d, nil
}

// SQLConnOf opens a connection to db as a SQL engine (SQLOf).
func SQLConnOf(ctx context.Context, workload string, db backend.DB) (backend.Conn, error) {
	d, err := SQLOf(workload, db)
	if err != nil {
		return nil, err
	}
	return d.Conn(ctx)
}

// KVConnOf opens a connection to db as a key-value engine (KVOf): what a
// key-value workload's Load, Check and clients each start with.
func KVConnOf(ctx context.Context, workload string, db backend.DB) (backend.KVConn, error) {
	d, err := KVOf(workload, db)
	if err != nil {
		return nil, err
	}
	return d.KVConn(ctx)
}

// InKVTx runs fn in a write transaction of c, committed when fn returns
// nil and rolled back when it fails: a Load's or a Check's own writes.
func InKVTx(ctx context.Context, c backend.KVConn, fn func() error) error {
	if err := c.Begin(ctx, true); err != nil {
		return err
	}
	return end(ctx, c, fn())
}

// InSQLTx is InKVTx on a SQL connection.
func InSQLTx(ctx context.Context, c backend.Conn, fn func() error) error {
	if err := c.Begin(ctx); err != nil {
		return err
	}
	return end(ctx, c, fn())
}

// end commits a transaction whose work succeeded and rolls back one whose
// work failed (err).
func end(ctx context.Context, tx interface {
	Commit(context.Context) error
	Rollback(context.Context) error
}, err error) error {
	if err != nil {
		_ = tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

// Waiter is an optional ability of a Client: it waits before and after
// some units, as a person at a terminal does (TPC-C's keying and think
// times). The run engine sleeps keying before the unit and think after
// it, neither counted in the unit's latency.
type Waiter interface {
	Waits(kind int) (keying, think time.Duration)
}

// Chooser is an optional ability of a Client: it draws the kind of its next
// unit itself, with rng (the run's deck stream for this client), instead of
// the run engine's deck: OLTP-EMUL's srv_random_unit_choice, whose odds are
// not proportional to its weights. warmup is true during the warm-up phase
// (OLTP-EMUL draws no cancellation then). The run engine calls it from the
// client's goroutine, once before each unit.
type Chooser interface {
	Choose(rng *rand.Rand, warmup bool) int
}

// Interluder is an optional ability of a Client: work it does between two
// units, outside both's latency (OLTP-EMUL's reconnection after
// actions_todo_before_reconnect units). The run engine calls it from the
// client's goroutine before each unit but the first; an error it meets is
// the next unit's to report.
type Interluder interface {
	BetweenUnits(ctx context.Context)
}

// Figurer is an optional ability: the workload's own figures from what the
// measure phase counted (TPC-C's tpmC, NOPM and response-time limits).
type Figurer interface {
	Figures(m Measured) []Figure
}

// Measured is what the measure phase counted, for a Figurer.
type Measured struct {
	Seconds float64
	Units   []MeasuredUnit // per unit kind, in Shape order
}

// MeasuredUnit is one unit kind's counts and latency.
type MeasuredUnit struct {
	Name                string
	OK, Failed, Nothing int64
	P90Us               int64
}

// Figure is one of a workload's own figures (result.Figure).
type Figure = result.Figure
