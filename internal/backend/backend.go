package backend

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/server"
)

// API is the interface style a DB offers.
type API string

// The APIs.
const (
	SQL API = "sql"
	KV  API = "kv"
)

// Durability is the common durability knob. Each engine maps it to its own
// settings (see Spec.Durability).
type Durability string

// The durability levels.
const (
	// Sync: a commit returns after the engine has flushed it to stable storage.
	Sync Durability = "sync"
	// Lazy: commits are flushed in the background (group commit, a periodic
	// flush): a crash loses the last moments, never consistency.
	Lazy Durability = "lazy"
	// Off: the engine never flushes on commit; the OS decides.
	Off Durability = "off"
)

// Prepare is the common statement-preparation knob.
type Prepare string

// The preparation modes.
const (
	// Once prepares each statement once per connection and keeps it.
	Once Prepare = "once"
	// Each prepares the statement at every use and closes it after.
	Each Prepare = "each"
)

// Isolation is the common --isolation knob: the SQL standard's isolation
// level the clients' transactions ask for. Each engine maps it to its own
// (Spec.Isolation) and reads back what its transactions got
// (Engine.Isolation).
type Isolation string

// The isolation levels, weakest first. DefaultIsolation leaves the engine's
// own default (still read back and recorded).
const (
	DefaultIsolation Isolation = "default"
	ReadUncommitted  Isolation = "read-uncommitted"
	ReadCommitted    Isolation = "read-committed"
	RepeatableRead   Isolation = "repeatable-read"
	Serializable     Isolation = "serializable"
)

// Isolations lists the levels a run may ask for, weakest first.
var Isolations = []Isolation{ReadUncommitted, ReadCommitted, RepeatableRead, Serializable}

// Refused is how a Spec's Durability and Isolation maps begin the text of
// a level the engine refuses: "refused: why" (Refuse writes it, Spec's
// DurabilityRefusal and Refusal read it).
const Refused = "refused: "

// Refuse is a Durability or Isolation map's text for a level the engine
// refuses, saying why.
func Refuse(why string) string { return Refused + why }

// Ability is something only some engines can do.
type Ability string

// The abilities a workload may require.
const (
	Procedures Ability = "procedures" // stored procedures
	// RangeScans: a key-value connection reads records in key order from a
	// key, with a limit (RangeScanner). Every SQL engine has it through sqlkv.
	RangeScans Ability = "range scans"
)

// Spec describes one engine. The catalog lists them.
type Spec struct {
	Name    string
	Summary string
	API     API
	// Forms lists the accepted --db values, for help ("sqlite", "sqlite:PATH").
	Forms []string
	// Driver is the Go module dbgauge speaks to the engine through
	// ("github.com/jackc/pgx/v5"), or how it does where there is none:
	// what `dbgauge version` lists.
	Driver string
	// Throwaway is the --db value that gives a fresh, private instance
	// ("sqlite", "postgres:managed"): what tests use.
	Throwaway string
	// Manages lists the --db values that ask for a server dbgauge starts
	// and owns ("postgres:managed"; MariaDB's also "mysql:managed"); none
	// for an embedded engine. Managed reads it: no caller guesses from a
	// value's text.
	Manages []string
	// Versioned says that a managed form may name the engine's version:
	// FORM@MAJOR ("postgres:managed@13") or FORM@DIR, a folder of its
	// binaries; Managed accepts them and VersionOf splits them off.
	Versioned bool
	// Ext, for an embedded engine, is the suffix of the file (or folder) a
	// fresh database is made as ("sqlite:DIR/crash-1.db"): dbgauge crash
	// makes one per cycle. "" for a server engine.
	Ext string
	// Match reports whether a --db value names this engine.
	Match func(db string) bool
	// Preflight checks a --db value before anything is made (the plan
	// calls it): a form it cannot read, a file in a folder that does not
	// exist, a server nothing answers for. Its error is bad input (a
	// *knob.Error); nil when there is nothing to check.
	Preflight func(db string) error
	// Durability says what each level sets in the engine, for `dbgauge list`
	// and docs/knobs.md.
	Durability map[Durability]string
	// Promises says what the engine's documentation promises each level
	// keeps through a crash and a power loss: dbgauge crash holds each
	// configuration to it ("as documented", or not).
	Promises map[Durability]Promise
	// Expect lists settings beyond Owns' that the engine must read back at
	// each durability level, read from the engine (never one of
	// Engine.NotReadBack); the conformance suite holds the engine to them
	// and to what Owns sets (Spec.Expected).
	Expect map[Durability]map[string]string
	// Owns lists the raw settings the durability levels decide (owned.go):
	// the plan refuses a --set that contradicts --durability, and the
	// settings read back say which level a run really had.
	Owns []Owned
	// Flushes says what the engine's "flushes" counter (Statser) counts
	// and where it comes from ("pg_stat_wal.wal_sync: …"): the durability
	// verdict names it. "" where the engine counts none.
	Flushes string
	// Isolation says what each isolation level sets in the engine (and
	// DefaultIsolation what the engine's own default is), or "refused: why"
	// for a level it does not have; nil for an engine without levels
	// (key-value), which refuses every level but the default.
	Isolation map[Isolation]string
	// Prepare says what each preparation mode does in this engine.
	Prepare map[Prepare]string
	// Settings lists the keys --set accepts, with what they do.
	Settings []Setting
	// Abilities lists the optional abilities.
	Abilities []Ability
	// Nodes, for a managed cluster (NodeFaults, NetFaults), names the
	// servers the knobs given make, and the roles a fault may name
	// ("primary", "r1"; "leader", "m2"): --fault node= and a fault of the
	// network must name one of them.
	Nodes func(v *knob.Values) []string
	// Knobs are the backend's own flags (--pg-bin, --socket); Own reads
	// them, once, when the run is planned, into the engine's own typed
	// options, which Open and Reopen find in Options.Own: no engine parses
	// a knob's text. Own's errors are bad input.
	Knobs []knob.Spec
	Own   func(v *knob.Values) (any, error)
	// Cache and PageSize say what --cache and --page-size set in the
	// engine, for `dbgauge list`; "" when it has none, and then NoCache and
	// NoPageSize say why: the plan refuses the knob with that reason.
	// PageSizes lists the page sizes the engine accepts.
	Cache, NoCache, PageSize, NoPageSize string
	PageSizes                            []int64
	// RecordOverhead is what the engine stores per key-value record (kv's
	// table, through sqlkv on SQL engines) beyond its key and value bytes:
	// headers, the index entry, page slack; --dataset sizes the data with
	// it, and the result records the size achieved (docs/data.md).
	RecordOverhead int64
	// Open opens the engine with the options applied.
	Open func(ctx context.Context, o Options) (DB, error)
	// Reopen, for a managed server, starts the engine again on the data
	// folder a killed server left in dataDir (crash recovery, its log
	// written to logPath) and opens it with o (o.DB is ignored); closing
	// the DB stops that server. dbgauge crash needs it; nil: the engine's
	// managed server cannot be put on trial.
	Reopen func(ctx context.Context, dataDir, logPath string, o Options) (DB, error)
	// CheckUpgrade, for an engine whose managed DB is an Upgrader, refuses
	// (as bad input, before anything starts) an upgrade from the managed
	// form from to the form to by method that their binaries cannot make;
	// nil: dbgauge upgrade cannot upgrade the engine.
	CheckUpgrade func(from, to, method string) error
	// UpgradeMethods are the methods CheckUpgrade knows, in their order.
	UpgradeMethods []string
	// Installed lists the versions of the engine's server found here, and
	// where each came from (dbgauge versions); nil for an embedded engine.
	Installed func() []Installed
}

// Promise is what an engine's documentation says a durability level keeps
// of the commits it acknowledged.
type Promise struct {
	Crash bool   // through a crash of the engine's process (kill -9 of it, or of its server): nothing lost
	Power bool   // through a power loss of the machine as well
	Doc   string // what the documentation says, in a few words, and where
}

// Keeps says whether the promise covers a fault: a crash, or with power a
// power loss after it.
func (p Promise) Keeps(power bool) bool {
	if power {
		return p.Power
	}
	return p.Crash
}

// Has reports whether the engine has ability a.
func (s Spec) Has(a Ability) bool {
	for _, x := range s.Offers() {
		if x == a {
			return true
		}
	}
	return false
}

// Levels lists the isolation levels the engine accepts, weakest first.
func (s Spec) Levels() []Isolation {
	var out []Isolation
	for _, l := range Isolations {
		if s.Accepts(l) {
			out = append(out, l)
		}
	}
	return out
}

// Accepts reports whether the engine takes --isolation l, and if not, why.
func (s Spec) Accepts(l Isolation) bool {
	_, ok := s.Refusal(l)
	return !ok
}

// Managed says whether db asks this engine for a server dbgauge starts
// (of any version, for a Versioned engine).
func (s Spec) Managed(db string) bool {
	if s.Versioned {
		db, _ = VersionOf(db)
	}
	return slices.Contains(s.Manages, db)
}

// VersionOf splits a managed form's version off: "postgres:managed@13" is
// "postgres:managed" and "13"; a value without "@" is itself and "". Only
// a managed form has one: a DSN's "@" (user@host) is left alone, since a
// managed form has no "/", "=" or space before its "@".
func VersionOf(db string) (form, version string) {
	form, version, ok := strings.Cut(db, "@")
	if !ok || strings.ContainsAny(form, "/= ") {
		return db, ""
	}
	return form, version
}

// Serves says whether the engine can start a server of dbgauge's own.
func (s Spec) Serves() bool { return len(s.Manages) > 0 }

// DurabilityRefusal says why the engine refuses durability level d, when
// its Durability map says it does.
func (s Spec) DurabilityRefusal(d Durability) (why string, ok bool) {
	return strings.CutPrefix(s.Durability[d], Refused)
}

// Refusal says why the engine refuses --isolation l; ok is false when it
// takes it.
func (s Spec) Refusal(l Isolation) (why string, ok bool) {
	return IsolationRefusal(s.Name, s.Isolation, l)
}

// IsolationRefusal is Spec.Refusal for an engine's Isolation map doc, for
// its Open (which the Spec itself names).
func IsolationRefusal(engine string, doc map[Isolation]string, l Isolation) (why string, ok bool) {
	if l == "" || l == DefaultIsolation {
		return "", false
	}
	does, has := doc[l]
	switch {
	case doc == nil:
		return engine + " has no isolation levels to choose from", true
	case !has:
		return engine + " has no level " + string(l), true
	case strings.HasPrefix(does, Refused):
		return strings.TrimPrefix(does, Refused), true
	}
	return "", false
}

// Offers lists the engine's optional abilities: Abilities, and RangeScans
// for a SQL engine (sqlkv's SELECT … WHERE k >= ? ORDER BY k LIMIT ?).
func (s Spec) Offers() []Ability {
	if s.API == SQL && !slices.Contains(s.Abilities, RangeScans) {
		return append(slices.Clone(s.Abilities), RangeScans)
	}
	return s.Abilities
}

// Setting documents one raw engine setting accepted by --set.
type Setting struct {
	Key   string
	Usage string
}

// Options are the settings a run asks of an engine.
type Options struct {
	DB         string // the --db value
	Dir        string // the run's folder: embedded engines put their file here unless DB names a path
	Durability Durability
	Prepare    Prepare
	// Isolation is the level every client connection's transactions begin
	// at (DefaultIsolation or "": the engine's own).
	Isolation Isolation
	Set       []KeyValue // raw engine settings, in the order given
	Conns     int        // connections the run will open
	// Archive asks a managed server to keep every log it writes (PostgreSQL:
	// archive_mode), so that a backup can be rolled forward (--backup).
	Archive bool
	// Own is what Spec.Own read of the engine's own knobs; nil when the
	// caller gave none (the engine's defaults).
	Own any
	// DataDir is where the engine's files go (--data-dir: a folder the
	// session made there); "" means Dir. Data returns the one to use.
	DataDir string
	// CacheBytes (--cache) sizes the engine's own cache, PageSize
	// (--page-size) its pages at creation; 0 leaves the engine's default.
	CacheBytes, PageSize int64
	// ServerMemory (--server-memory) runs a managed server in a memory
	// cgroup of its own with this limit, its page cache included; 0: none.
	ServerMemory int64
	// ServerCPUs (--cpus server=…) keeps a managed server's processes on
	// these CPUs, from its start; nil leaves them to the kernel.
	ServerCPUs []int
}

// Data returns the folder the engine's files go in: DataDir, else Dir.
func (o Options) Data() string {
	if o.DataDir != "" {
		return o.DataDir
	}
	return o.Dir
}

// KeyValue is one --set key=value.
type KeyValue struct{ Key, Value string }

// ParseSet parses one --set argument.
func ParseSet(s string) (KeyValue, error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return KeyValue{}, knob.Bad("write it as --set key=value, e.g. --set cache_size=-64000", "--set %q has no key=value", s)
	}
	return KeyValue{Key: k, Value: strings.TrimSpace(v)}, nil
}

// Engine is what an engine says about itself after Open.
type Engine struct {
	Name     string
	Version  string
	Driver   string
	Path     string
	Settings map[string]string // read back from the engine
	// NotReadBack lists the keys of Settings that are dbgauge's own doing,
	// not read from the engine, which keeps nothing to read (pebble's
	// per-commit sync, gdbm's gdbm_sync at commit, a background sync).
	NotReadBack []string
	// Isolation is the level a client connection's transactions get, as
	// read back from the engine on a connection opened as the clients'
	// are, in the words of --isolation ("repeatable-read"); "" for an
	// engine without levels.
	Isolation string
	// PageSize and CacheBytes are the page size and the size of the
	// engine's own cache in bytes, from the settings read back; 0 where the
	// engine has none.
	PageSize   int64
	CacheBytes int64
	// Defaults are the engine's built-in defaults, name → value (with its
	// unit), read back (PostgreSQL's pg_settings.boot_val): a matrix over
	// versions shows those that differ. nil where the engine has none to read.
	Defaults map[string]string
}

// DB is an open engine.
type DB interface {
	// Engine reads back the engine's version and effective settings.
	Engine(ctx context.Context) (Engine, error)
	// Close releases everything Open acquired. It is safe to call once.
	Close() error
}

// Server is an optional ability of a DB that runs on a server process
// dbgauge manages: what the result should say about it, and its death.
type Server interface {
	// ServerInfo describes the server; ShutdownSeconds is known after Close.
	ServerInfo() ServerInfo
	// Died is closed when the server exits without being asked to.
	Died() <-chan struct{}
	// DeathErr says why the server died, with the end of its log.
	DeathErr() error
	// LogRules are the engine's rules for reading its log (anomalies by
	// kind, known-harmless lines), declared in the engine's folder.
	LogRules() *server.LogRules
}

// ServerInfo is what a result records about a managed server.
type ServerInfo struct {
	Engine          string
	Account         string  // the system user it runs as
	DataDir         string  // its cluster (removed after the run)
	Port            int     // TCP port
	Addr            string  // the address it listens on: loopback, or its own on a cluster's network
	PID             int     // the server's main process; its process group is the server
	Socket          string  // Unix socket folder
	Log             string  // its log, kept in the result folder
	StartupSeconds  float64 // from exec to the first accepted connection
	ShutdownSeconds float64 // from the shutdown request to its exit
	RecoverySeconds float64 // from the restart after a kill -9 to the first accepted connection
	RecoveryNote    string  // what the crash-recovery measurement found, or why it was not made
	Note            string
	MemoryLimit     int64  // --server-memory: its cgroup's limit, read back from the kernel; 0: none
	Cgroup          string // the memory cgroup it ran in (removed after it stopped)
	OOMKills        int64  // processes of it the kernel killed at the limit
	CPUs            string // --cpus server=…: the CPUs it may run on, read back from the kernel; "": not placed
}

// Of fills in what a managed server's process knows of itself: its main
// process, its memory cgroup (the limit read back, its folder, the OOM
// kills in it) and the CPUs it may run on.
func (i ServerInfo) Of(p *server.Process) ServerInfo {
	i.PID = p.Pid()
	i.MemoryLimit, i.Cgroup, i.OOMKills = p.Memory()
	i.CPUs = p.CPUs()
	return i
}

// Recoverer is an optional ability of a managed server: kill it as a crash
// would (SIGKILL to its process group) and start it again on the same data,
// returning once it accepts connections. The caller times it. Afterwards
// the DB works as before; ServerInfo's RecoveryNote may say what the server
// reported (the log it replayed).
type Recoverer interface {
	CrashRestart(ctx context.Context) error
}

// NodeFaults is the ability of a managed cluster to have one of its nodes
// killed by role (--fault kill-at=D,node=leader): NodeRecoverer.
const NodeFaults Ability = "node faults"

// NetFaults is the ability of a managed cluster to run on a network of its
// own, whose faults dbgauge makes (--fault partition=, loss=, delay=):
// Networked.
const NetFaults Ability = "network faults"

// Networked is an optional ability of a managed cluster (NetFaults): its
// network, nil when its servers are on loopback (not root). Its nodes'
// names are the cluster's (Node.Name).
type Networked interface {
	Network() *netns.Net
}

// NodeRecoverer is an optional ability of a managed cluster (NodeFaults):
// a Recoverer whose CrashRestart kills the node that has role when it is
// called ("leader", "follower"), or the node of that name (Spec.Nodes:
// Galera's "node3"), and starts it again on its data.
type NodeRecoverer interface {
	OnNode(role string) Recoverer
}

// Healther is an optional ability of a managed cluster (a Cluster's, or
// Galera's): which of its servers accept writes now (more than one
// component accepting writes is a split brain) and what each says of
// itself, for the record after a fault.
type Healther interface {
	Health(ctx context.Context) (ClusterHealth, error)
}

// Recovered is an optional ability of a DB started again on a killed
// engine's data (Spec.Reopen, or a Recoverer's crash restart): what its
// crash recovery said it did ("replayed 12.3 MiB of WAL"), "" when it said
// nothing recognisable.
type Recovered interface {
	Recovery() string
}

// Restarter is an optional ability of a managed server: shut it down cleanly
// and start it again on the same data, returning once it accepts
// connections: its own caches are empty afterwards (objects --phase cold).
// Connections opened before are gone.
type Restarter interface {
	Restart(ctx context.Context) error
}

// Cluster is an optional ability of a managed primary with streaming
// replicas (--topology): its servers, their replication lag as the run goes,
// and the steps of a failover, each timed by the caller.
type Cluster interface {
	// Topology names the cluster's topology (server.Topologies) and its
	// replication (async, sync, …), as the engine built it.
	Topology() (name, replication string)
	// Nodes lists the servers: the primary first, then the replicas.
	Nodes() []Node
	// Lag samples how far each replica is behind its upstream, by name:
	// "lag_bytes:r1", "replay_lag_ms:r1".
	Lag(ctx context.Context) (map[string]float64, error)
	// IsolatePrimary cuts the primary off from its own replicas, while its
	// clients still reach it, so that they fall behind: on a cluster's
	// network (netns), a partition the kernel makes. It returns how it did
	// it, for the time line, and undo, which the caller calls once the
	// primary was killed: what undo does is the engine's (the partition of
	// a killed primary stays, so that its kernel delivers nothing it held).
	IsolatePrimary(ctx context.Context) (undo func(), how string, err error)
	// KillPrimary kills the primary's process group (SIGKILL) and returns
	// once none of its processes is left.
	KillPrimary(ctx context.Context) error
	// Promote promotes the most advanced of the old primary's replicas and
	// returns its name once it accepts writes.
	Promote(ctx context.Context) (string, error)
	// Repoint makes the old primary's other replicas follow the new one.
	Repoint(ctx context.Context) error
	// Health says which servers accept writes (more than one is a split
	// brain) and, for each replica, whether it streams and from where.
	Health(ctx context.Context) (ClusterHealth, error)
}

// ReadRouter is an optional ability of a Cluster: from the call on, the
// connections Conn opens go to the replicas (--read-from replicas), for a
// workload that only reads. It reports whether the user asked for it.
type ReadRouter interface {
	RouteReads() (bool, error)
}

// Node is one server of a Cluster.
type Node struct {
	Name           string  // "primary", "r1", "r2"
	Upstream       string  // what it streams from ("" for the primary)
	Sync           bool    // a synchronous standby of the primary
	Addr           string  // its address on the cluster's network (netns); "": loopback
	Port           int     // TCP port
	StartupSeconds float64 // from the base backup's start to its first accepted connection, for a replica
	Log            string
}

// NodeOf is the Node of a cluster's managed server in, named name and
// following upstream ("" for the primary): its address on the cluster's
// network ("" on loopback), port, start-up and log. The caller sets Sync.
func NodeOf(in *server.Instance, name, upstream string) Node {
	n := Node{Name: name, Upstream: upstream, Port: in.Port, StartupSeconds: in.Startup.Seconds(), Log: in.LogPath}
	if in.Host != nil {
		n.Addr = in.Host.Addr
	}
	return n
}

// ClusterHealth is a cluster's state after a failover.
type ClusterHealth struct {
	Writable  []string          // the servers that accept writes
	Following map[string]string // each replica: "streaming from r1", or what is wrong (Galera: each node's state)
	// Components is how many distinct components the writable servers
	// are in, where servers share one (Galera's Primary component); 0:
	// each writable server is its own (a primary and its replicas).
	Components int
}

// SplitBrain says whether more than one part of the cluster accepts
// writes: two writable servers of a primary and replicas, or two Primary
// components of a Galera cluster.
func (h ClusterHealth) SplitBrain() bool {
	if h.Components > 0 {
		return h.Components > 1
	}
	return len(h.Writable) > 1
}

// OnlineBackup is the ability to take a backup while the workload runs and
// restore it into a fresh instance (Backuper).
const OnlineBackup Ability = "online backup"

// Backuper is an optional ability: the engine's own online backup, taken
// into dir while the workload runs.
type Backuper interface {
	Backup(ctx context.Context, dir string) (Backup, error)
}

// Backup is a backup Backuper took.
type Backup interface {
	// Info says how it was taken and what it holds.
	Info() BackupInfo
	// Restore restores the backup into a fresh instance and opens it: at
	// the backup's consistency point (to.Kind RestoreBackup) or, where the
	// engine keeps its log for it (BackupInfo.RollForward), rolled forward
	// to a moment or through every log written. Closing the DB removes the
	// instance.
	Restore(ctx context.Context, to RestoreTarget) (DB, error)
	// Cleanup removes what the restores left (their copies); the backup
	// itself stays where Info's Path says.
	Cleanup() error
}

// BackupInfo describes a backup.
type BackupInfo struct {
	Method      string // "SQLite backup API"
	Path        string
	Bytes       int64
	RollForward bool   // restores can replay the log past the backup
	Note        string // what a reader should know
}

// RestoreTarget is the point a backup is restored to.
type RestoreTarget struct {
	Kind string    // RestoreBackup, RestoreTime or RestoreEnd
	Time time.Time // RestoreTime: the moment
}

// The kinds of RestoreTarget.
const (
	RestoreBackup = "backup" // the backup alone, at its consistency point
	RestoreTime   = "time"   // rolled forward to a moment
	RestoreEnd    = "end"    // rolled forward through every log written
)

// Copier is an optional ability of a Conn: bulk loading (COPY).
type Copier interface {
	// CopyFrom loads the rows next returns (false when done) into table.
	CopyFrom(ctx context.Context, table string, columns []string, next func() ([]any, bool)) (int64, error)
}

// Checker is an optional ability: the engine's own integrity check (SQLite's
// PRAGMA integrity_check, bbolt's Check), run after a crash.
type Checker interface {
	Integrity(ctx context.Context) (ok bool, detail string, err error)
}

// DataSizer is an optional ability: the bytes of the data itself (tables
// and indexes, no log), where the files around it would mislead (a
// PostgreSQL data folder holds its WAL). Read once after the load.
type DataSizer interface {
	DataBytes(ctx context.Context) (int64, error)
}

// MemoryUser is an optional ability of an engine that runs inside dbgauge:
// the bytes it has allocated itself (its caches), which are part of
// dbgauge's resident memory but not the harness's.
type MemoryUser interface {
	EngineMemory() int64
}

// Workers is an optional ability of an engine dbgauge drives through worker
// processes of its own (a Python worker: ZODB): their CPU time so far and
// the requests they have answered, closed workers' included. What they
// cost is the harness's, beside dbgauge's own (result.Harness.Worker).
type Workers interface {
	WorkerCost() (cpu time.Duration, requests int64)
}

// Statser is an optional ability: the engine's own counters (commits,
// flushes, pages written…), read before and after the measure phase.
type Statser interface {
	Stats(ctx context.Context) (map[string]int64, error)
}

// Sampler is an optional ability: a few cumulative counters of the engine's
// that are cheap to read every second while the workload runs
// ("checkpoints", "wal_bytes", "buffers_written"…): the engine's side of
// each second of the series. Sample runs on a connection of its own and
// takes well under a second; ctx bounds it. Only counters: a level (a
// queue's length, read amplification) has no rate and is left to Stats.
// A move of "checkpoints", "autovacuums", "autoanalyzes",
// "memtable_flushes" or "compactions" is an event on the run's time line.
type Sampler interface {
	Sample(ctx context.Context) (map[string]int64, error)
}

// Waiter is an optional ability: what the workload's connections are
// waiting on in the engine at this moment, by wait ("Lock:transactionid",
// "IO:WalSync"; MariaDB: the thread's state), how many of them, read often
// (ten times a second) while the workload runs. Connections that are idle
// between statements are left out; Waits runs on a connection of its own
// and takes a few milliseconds; ctx bounds it.
type Waiter interface {
	Waits(ctx context.Context) (map[string]int, error)
}

// SQLDB is a DB that speaks SQL.
type SQLDB interface {
	DB
	Dialect() Dialect
	// Conn opens a new connection. Each client has its own.
	Conn(ctx context.Context) (Conn, error)
}

// Stmt is a statement a workload declares once, in portable SQL with ?
// placeholders. Connections prepare it according to the run's Prepare mode.
// A Stmt must not change after first use.
type Stmt struct {
	SQL string
}

// Conn is one SQL connection. It is used by one goroutine at a time.
type Conn interface {
	// Begin starts a transaction that will write (SQLite: BEGIN IMMEDIATE).
	Begin(ctx context.Context) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	// Exec runs st and returns the number of rows it changed.
	Exec(ctx context.Context, st *Stmt, args ...any) (int64, error)
	// QueryRow runs st and scans its single row into dest. ErrNoRows when none.
	QueryRow(ctx context.Context, st *Stmt, args []any, dest ...any) error
	// Query runs st and calls row for each row, with a scan function.
	Query(ctx context.Context, st *Stmt, args []any, row func(scan func(dest ...any) error) error) error
	// QueryAny runs st and calls row for each row with the columns' names
	// and its values as plain Go values, whatever their SQL types: int64,
	// float64, bool, string (text, numeric/decimal as their text, dates and
	// times as the engine's text), []byte (binary only), nil (NULL). A
	// user's script (pgbench's \gset and \aset) reads columns dbgauge does
	// not know. The names are in lower case where the engine folds them to
	// upper case (Firebird). cols and vals are reused from one row to the
	// next. See Plain for what a database/sql driver's values become.
	QueryAny(ctx context.Context, st *Stmt, args []any, row func(cols []string, vals []any) error) error
	// ExecScript runs DDL or other statements outside the prepared path.
	ExecScript(ctx context.Context, sql string) error
	Close() error
}

// TxMode is how a connection's transactions begin, for a workload that asks
// for one (OLTP-EMUL runs every unit in SNAPSHOT NO WAIT).
type TxMode struct {
	// Snapshot: every statement of a transaction sees the database as it
	// was when the transaction began (Firebird's SNAPSHOT, PostgreSQL's and
	// InnoDB's REPEATABLE READ).
	Snapshot bool
	// NoWait: a statement that needs a row another transaction holds fails
	// at once instead of waiting for that transaction to end, where the
	// engine has a transaction or session setting for it (Firebird's
	// isc_tpb_nowait, InnoDB's innodb_lock_wait_timeout); PostgreSQL has
	// none that spares other waits, and a workload writes NOWAIT itself.
	NoWait bool
}

// TxModeSet is what an engine made of a TxMode.
type TxModeSet struct {
	// Words: what it does, in a few words, for the result, from what the
	// engine reads back for the connection ("repeatable read (snapshot)").
	Words string
	// NoWait: a row lock a statement asks for (SELECT … FOR UPDATE NOWAIT,
	// Firebird's WITH LOCK) is refused at once when another transaction
	// holds the row, rather than waited for.
	NoWait bool
}

// TxModer is an optional ability of a Conn: from the call on, its
// transactions begin in mode m, as close as the engine comes, and it says
// what it made of it. An engine without it keeps its own (SQLite, whose
// writers take the database's write lock one at a time, has no row locks
// to wait for).
type TxModer interface {
	SetTxMode(ctx context.Context, m TxMode) (TxModeSet, error)
}

// LockWaiter is an optional ability of a SQLDB whose engine shows its lock
// waits (PostgreSQL's pg_locks, InnoDB's lock waits, Firebird's MON$
// tables). LockView, called while c (one of the DB's connections) is idle,
// returns a view of the next statement c runs; `dbgauge isolation` asks it
// whether a statement that has not returned is blocked.
type LockWaiter interface {
	LockView(ctx context.Context, c Conn) (LockView, error)
}

// LockView asks the engine, from a connection of its own, what its lock
// view shows of one connection's statement now. It is safe to call from
// another goroutine while that connection runs the statement.
type LockView func(ctx context.Context) (LockWait, error)

// LockWait is what an engine's lock view showed of a statement.
type LockWait struct {
	// Waiting: the statement waits for a lock another transaction holds.
	Waiting bool
	// Seen says what the view showed, naming the view: "pg_locks:
	// transactionid ShareLock not granted, blocked by pid 4242".
	Seen string
	// Unseen names a lock wait the statement may be in that the view
	// cannot show ("" when it shows every one the statement can be in).
	Unseen string
}

// ErrNoRows is returned by QueryRow when the query returns no row.
var ErrNoRows = errors.New("no rows")

// Dialect is what a workload needs to know to write SQL for an engine.
type Dialect struct {
	Name string // "sqlite", "postgres", "mysql", "firebird"
	// Blob is the type of a binary column usable as a primary key.
	Blob string
	// Upsert returns a statement inserting (k, v) into table, replacing v when k exists.
	Upsert func(table string) string
	// HasTable counts the tables named by its one parameter (0 or 1).
	HasTable string
	// LockSkip ends a SELECT that takes rows for this transaction, skipping
	// rows other transactions hold (" FOR UPDATE SKIP LOCKED"); "" where the
	// engine serialises writers and needs none (SQLite).
	LockSkip string
	// OptimisticPicks is true where a transaction cannot hold a row it found
	// (Firebird 3: no SKIP LOCKED, and in read committed a locked read may
	// return a row another transaction has just changed): LockSkip is empty,
	// and a conditional update that finds a picked row already taken is a
	// lost race, retried, not an inconsistency.
	OptimisticPicks bool
	// Clock is a query whose one row's one column is the server's clock
	// now, in whole microseconds since the Unix epoch (UTC); "" where the
	// engine runs inside dbgauge (its clock is dbgauge's) or has no UTC
	// clock to read (Firebird 3: CURRENT_TIMESTAMP is local time). A shard
	// of a run over many machines (--shard) measures its offset with it.
	Clock string
}

// OnConflictUpsert is the upsert of SQLite and PostgreSQL:
//
//	INSERT INTO t(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v
func OnConflictUpsert(table string) string {
	return "INSERT INTO " + table + "(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v"
}

// KVDB is a DB that speaks key-value.
type KVDB interface {
	DB
	// KVConn opens a new connection (a handle for one client).
	KVConn(ctx context.Context) (KVConn, error)
}

// KVConn is one client's handle on a key-value store. Reads and writes happen
// inside a transaction begun with Begin.
type KVConn interface {
	// CreateTable creates a table (bucket) if missing, in its own transaction.
	CreateTable(ctx context.Context, name string) error
	// DropTable removes a table and its records, in its own transaction.
	DropTable(ctx context.Context, name string) error
	Begin(ctx context.Context, write bool) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	// Get returns the value of key, or ok=false. The value is valid until the
	// next call on this connection.
	Get(ctx context.Context, table string, key []byte) (value []byte, ok bool, err error)
	// Put stores key=value. Key and value must not be modified until commit.
	Put(ctx context.Context, table string, key, value []byte) error
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, table string, key []byte) error
	// Scan calls fn for each record in key order; stop by returning an error.
	Scan(ctx context.Context, table string, fn func(key, value []byte) error) error
	Close() error
}

// BulkLoader is an optional ability of a KVConn: store many new records at
// once inside the open write transaction, by the engine's fastest path
// (sqlkv: COPY on PostgreSQL, multi-row INSERTs elsewhere). The keys must
// not exist yet. Keys and values may be reused once it returns.
type BulkLoader interface {
	PutNew(ctx context.Context, table string, keys, values [][]byte) error
}

// RangeScanner is an optional ability of a KVConn (backend.RangeScans): read
// records in key order from a key on, inside the open transaction.
type RangeScanner interface {
	// ScanFrom calls fn for at most limit records whose key is ≥ from, in
	// key order; stop early by returning an error. Key and value are valid
	// during fn only.
	ScanFrom(ctx context.Context, table string, from []byte, limit int, fn func(key, value []byte) error) error
}

// ObjectStore is an optional ability of a KVConn whose engine is an object
// database (ZODB's engines): its records are the engine's own persistent
// objects, and Objects opens a session that reads them as its applications
// do, through the engine's object cache (ZODB: a Connection's pickle cache)
// over the storage's cache in the client's process (ZEO's client cache,
// RelStorage's local cache). The objects workload reads through it where an
// engine has it, so that its cache phases measure the engine's caches.
type ObjectStore interface {
	// Objects opens the client's object session on table's records, with
	// an object cache of cacheObjects objects. The session is the
	// connection's: close it before the connection.
	Objects(ctx context.Context, table string, cacheObjects int) (ObjectSession, error)
}

// CacheLevel is how deep ObjectSession.Clear empties the caches.
type CacheLevel string

// The cache levels.
const (
	// CacheConnection empties the session's object cache (ZODB's
	// Connection.cacheMinimize): its objects are loaded from the storage
	// again, through the storage's cache in the client's process.
	CacheConnection CacheLevel = "connection"
	// CacheStorage empties the object cache and the storage's cache in the
	// client's process too: objects come from the server (or the file).
	CacheStorage CacheLevel = "storage"
)

// ObjectSession is one client's objects in an ObjectStore (a ZODB
// Connection); not safe for concurrent use.
type ObjectSession interface {
	// Read returns the values of keys' objects, nil for a missing one,
	// read through the object cache in the session's read transaction;
	// begin starts a new one first (ZODB: it takes in the invalidations
	// since, and keeps the unpickled objects that are still current).
	Read(ctx context.Context, keys [][]byte, begin bool) ([][]byte, error)
	// Sums reads as Read does, the same loads through the same caches,
	// and returns each value's CRC-32 (IEEE) instead of the value, -1 for
	// a missing one: a pass over objects whose values the caller judged
	// before, without moving their bytes to dbgauge.
	Sums(ctx context.Context, keys [][]byte, begin bool) ([]int64, error)
	// Clear empties the caches down to level, ending the read transaction;
	// it returns what it emptied, in words ("ZEO client cache" and the
	// object cache), for the result.
	Clear(ctx context.Context, level CacheLevel) (string, error)
	// Stats says what the session's caches did so far.
	Stats(ctx context.Context) (ObjectStats, error)
	Close() error
}

// ObjectStats is what an ObjectSession's caches did, counted by the engine.
type ObjectStats struct {
	// Loads: objects the session loaded from its storage (unpickled: its
	// object cache's misses; ZODB's Connection.getTransferCounts).
	Loads int64 `json:"loads"`
	// ServerLoads: the loads the storage's server has served so far, to
	// every client (ZEO's server_status); -1 where there is no such count
	// (a FileStorage reads its file). Loads the server did not serve were
	// answered by the storage's cache in the client's process.
	ServerLoads int64 `json:"server_loads"`
	// Cached: the objects unpickled in the object cache now (non-ghosts).
	Cached int64 `json:"cached"`
	// StorageCache names the storage's cache in the client's process
	// ("ZEO client cache of 20971520 bytes"; "none").
	StorageCache string `json:"storage_cache"`
}

// Unsupported is returned when a workload asks an engine for something it
// cannot do. Its message says what to use instead.
func Unsupported(engine, what, instead string) error {
	return knob.Bad(instead, "%s cannot %s", engine, what)
}

// ErrNoSuchTable is returned by KV operations on a missing table.
var ErrNoSuchTable = errors.New("no such table")

// TableError wraps ErrNoSuchTable with the table's name.
func TableError(table string) error { return fmt.Errorf("%w %q", ErrNoSuchTable, table) }

// ModuleVersion returns the version of a Go module linked into this binary
// ("v1.14.53"), or "unknown". Engines use it to record their driver.
func ModuleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range bi.Deps {
		if m.Path == path {
			if m.Replace != nil {
				return m.Replace.Version
			}
			return m.Version
		}
	}
	return "unknown"
}
