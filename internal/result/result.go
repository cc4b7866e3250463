package result

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schema names the version of the record. Readers refuse versions other
// than Schema and the older ones in Readable.
//
// Version 2 counts units that found nothing to do apart (Phase.Nothing,
// Latency.Nothing, Second.Nothing, Summary.Nothing); in version 1 they were
// counted as ok (oltp-emul's actions that found no document, no stock, or the
// aggregation held by another client), so a version-1 rate may be too high.
//
// Version 3 records the knobs given (Config.Knobs) typed, as each knob is
// declared: whole numbers and numbers as JSON numbers, switches as true or
// false, a repeatable knob as a list, the rest as text; in version 2 all
// were text.
const Schema = "dbgauge.result/3"

// Readable lists the older versions this dbgauge still reads. Their records
// lack the fields added since, which read as zero.
var Readable = []string{"dbgauge.result/1", "dbgauge.result/2"}

// Status of a run.
type Status string

// The statuses a result can hold.
const (
	Running     Status = "running"     // still running, or dbgauge died without a word
	Completed   Status = "completed"   // ran its course
	Interrupted Status = "interrupted" // stopped early by Ctrl-C, a signal or a stop file
	Failed      Status = "failed"      // stopped by an error, see Reason
)

// Result is one run of one workload on one backend.
type Result struct {
	Schema      string      `json:"schema"`
	ID          string      `json:"id"`
	Status      Status      `json:"status"`
	Reason      string      `json:"reason,omitempty"`
	Command     []string    `json:"command"`
	Started     time.Time   `json:"started"`
	Updated     time.Time   `json:"updated"`
	Ended       *time.Time  `json:"ended,omitempty"`
	Config      Config      `json:"config"`
	Engine      Engine      `json:"engine"`
	Server      *Server     `json:"server,omitempty"`     // a server dbgauge managed
	ServerLog   *ServerLog  `json:"server_log,omitempty"` // what that server's log showed
	Storage     *Storage    `json:"storage,omitempty"`    // the data's and the server log's size, and their growth
	Environment Environment `json:"environment"`
	Dataset     Dataset     `json:"dataset"`
	Summary     Summary     `json:"summary"`
	Phases      []Phase     `json:"phases"`
	Series      []Second    `json:"series"`
	Stats       *Stats      `json:"stats,omitempty"`
	Checks      []Check     `json:"checks"`
	Verdicts    []Verdict   `json:"verdicts"`
	// Durability judges a run's commit rate against the data folder's
	// flush ceiling; nil where no local folder could be probed.
	Durability *Durability `json:"durability,omitempty"`
	// DeviceIO is what the data folder's block device read and wrote over
	// the measure phase, any process's; nil where it is not known.
	DeviceIO *DeviceIO `json:"device_io,omitempty"`
	// Waits is what the workload's connections waited on in the engine
	// over the measure phase, most first (backend.Waiter).
	Waits []Wait `json:"waits,omitempty"`
	// Cost is what each successful unit of the measure phase cost, each
	// thing dbgauge could count (UnitCost); `dbgauge compare` sets them
	// side by side.
	Cost []UnitCost `json:"cost_per_unit,omitempty"`
	// Steady says whether the measure phase held level: the trend of its
	// rate and its p99 (verdict.Steady); nil when no measure phase ran.
	Steady *Steady `json:"steady,omitempty"`
	// UnitLog names the file of --log-units in the result folder.
	UnitLog string `json:"unit_log,omitempty"`
	// Disk holds what `dbgauge disk` measured (its result has no phases).
	Disk *Disk `json:"disk,omitempty"`
	// Events are the moments of the run's time line worth marking: a managed
	// server's death, anomalies its log showed while the run went on, an
	// online backup's start and end.
	Events []Event `json:"events,omitempty"`
	// Backup is the online backup --backup took while the workload ran, the
	// throughput before, during and after it, and its restores, verified.
	Backup *Backup `json:"backup,omitempty"`
	// Cluster is a managed primary's replicas (--topology) and the
	// failover --failover made.
	Cluster *Cluster `json:"cluster,omitempty"`
	// Upgraded says that the run's server had been upgraded just before it
	// (dbgauge upgrade), from which version and how.
	Upgraded *Upgraded `json:"upgraded,omitempty"`
	// Outages are the windows in which the engine answered no unit: units
	// failed as unavailable and none succeeded (a server restarted, by
	// --fault or by someone else; --reconnect says how long one may last).
	Outages []Outage `json:"outages,omitempty"`
	// Fault is the server kill --fault made under load, and what it cost.
	Fault *Fault `json:"fault,omitempty"`
	// Profile sums each phase of a --profile.
	Profile *Profile `json:"profile,omitempty"`
	// Capacity is a capacity search's steps and what it found (--slo,
	// dbgauge capacity).
	Capacity *Capacity `json:"capacity,omitempty"`
	// Harness is the CPU and memory dbgauge itself used in the measure phase.
	Harness *Harness `json:"harness,omitempty"`
	// ServerCPU is what a managed server used in the measure phase.
	ServerCPU *ServerCPU `json:"server_cpu,omitempty"`
	// Changed lists the server-wide settings dbgauge changed on a server
	// of the user's, and whether each was set back when the run ended.
	Changed []Change `json:"changed_settings,omitempty"`
	// Limits is what the engine said, before the clients connected, that
	// its limits mean for this run's connections (backend.Limiter).
	Limits []string `json:"limits,omitempty"`
	// Shard is this process's part of a run over many machines (--shard).
	Shard *Shard `json:"shard,omitempty"`
	// Merged is what `dbgauge merge` made this result from: the shards.
	Merged *Merged `json:"merged,omitempty"`
}

// Cluster is a managed primary with streaming replicas.
type Cluster struct {
	Topology    string            `json:"topology"`    // 1, 2-direct (both replicas stream from the primary), 2-chain (primary → r1 → r2)
	Replication string            `json:"replication"` // async, sync, remote_apply
	Nodes       []Node            `json:"nodes"`
	Failover    *Failover         `json:"failover,omitempty"`
	Writable    []string          `json:"writable,omitempty"`  // after the run: the servers that accept writes
	Following   map[string]string `json:"following,omitempty"` // after the run: each replica's stream
}

// Node is one server of a Cluster.
type Node struct {
	Name           string  `json:"name"`
	Upstream       string  `json:"upstream,omitempty"`
	Sync           bool    `json:"sync,omitempty"`
	Addr           string  `json:"addr,omitempty"` // its address on the cluster's network (a namespace of its own); "": loopback
	Port           int     `json:"port"`
	StartupSeconds float64 `json:"startup_seconds"`
	Log            string  `json:"log"`
}

// Failover is the primary killed during the run (--failover at=D) and a
// replica promoted; its times are on the series' time line.
type Failover struct {
	AtSeconds    float64 `json:"at_seconds"`              // asked: into the measure phase
	PauseSeconds float64 `json:"pause_seconds,omitempty"` // the primary cut off from its replicas this long before the kill
	PausedT      float64 `json:"paused_t,omitempty"`
	KillT        float64 `json:"kill_t"`
	GoneT        float64 `json:"gone_t"` // no process of the primary left
	PromotedT    float64 `json:"promoted_t"`
	RepointedT   float64 `json:"repointed_t,omitempty"`
	Promoted     string  `json:"promoted"`
	// The acknowledgements around it, from the ledger.
	LastAckT  float64 `json:"last_ack_t"`  // the last commit acknowledged before the kill
	FirstAckT float64 `json:"first_ack_t"` // the first acknowledged after it; 0: none
	// DowntimeSeconds runs from the last acknowledged commit before the kill
	// to the first after it: writes were not acknowledged in between.
	DowntimeSeconds  float64 `json:"downtime_seconds"`
	DetectSeconds    float64 `json:"detect_seconds"`    // kill → the primary gone
	PromoteSeconds   float64 `json:"promote_seconds"`   // gone → the replica accepts writes
	ReconnectSeconds float64 `json:"reconnect_seconds"` // promoted → the first acknowledged commit
	// Against the ledger, on the new primary after the run.
	Acknowledged int64   `json:"acknowledged"`
	Lost         int64   `json:"lost"`
	LostSample   []int64 `json:"lost_sample,omitempty"`
	Unknown      int64   `json:"unknown"`
	Phantom      int64   `json:"phantom"`
	SplitBrain   bool    `json:"split_brain"`
	Error        string  `json:"error,omitempty"`
}

// Outage is a window in which the engine answered no unit: from the first
// unit that failed as unavailable after a success to the next success.
type Outage struct {
	StartT  float64 `json:"start_t"` // on the series' time line
	EndT    float64 `json:"end_t"`   // 0: the run ended inside it
	Seconds float64 `json:"seconds"`
	Failed  int64   `json:"failed"` // units that failed as unavailable in it
}

// Fault is a managed server killed under load (--fault kill-at=D) and
// restarted on its data: when, how long its crash recovery took, the
// outage the clients saw, the rate before and after, and, for a workload
// that keeps a ledger, the acknowledged commits the restarted server lacks.
// Or the server stalled (--fault pause-at=D,for=D): when, and the rate
// before and after.
type Fault struct {
	// Kind is "kill" (--fault kill-at=D), "pause" (--fault
	// pause-at=D,for=D: the server's processes stopped with SIGSTOP that
	// long, then let go on; StopT and ResumeT say when), or a fault of a
	// cluster's network: "partition", "loss", "delay" (Net says what was
	// made, MadeT and HealedT when).
	Kind            string  `json:"kind"`
	AtSeconds       float64 `json:"at_seconds"` // asked: into the measure phase
	PauseSeconds    float64 `json:"pause_seconds,omitempty"`
	Node            string  `json:"node,omitempty"`            // kill-at=D,node=NODE: the server asked for (a name or a role)
	HealAtSeconds   float64 `json:"heal_at_seconds,omitempty"` // asked: into the measure phase; 0: left to the run's end
	Net             string  `json:"net,omitempty"`
	MadeT           float64 `json:"made_t,omitempty"`
	HealedT         float64 `json:"healed_t,omitempty"`
	StopT           float64 `json:"stop_t,omitempty"`
	ResumeT         float64 `json:"resume_t,omitempty"`
	KillT           float64 `json:"kill_t"`
	BackT           float64 `json:"back_t"`           // the restarted server accepts connections
	RecoverySeconds float64 `json:"recovery_seconds"` // kill → accepts connections
	RecoveryNote    string  `json:"recovery_note,omitempty"`
	// From the ledger: the last commit acknowledged before the kill and
	// the first after it (0: none), and the time between.
	LastAckT        float64 `json:"last_ack_t,omitempty"`
	FirstAckT       float64 `json:"first_ack_t,omitempty"`
	DowntimeSeconds float64 `json:"downtime_seconds,omitempty"`
	// The measure phase's rate before the kill and after the first success
	// after it, units per second.
	RateBefore float64 `json:"rate_before"`
	RateAfter  float64 `json:"rate_after"`
	// Against the ledger, after the run; Ledger false: the workload keeps none.
	Ledger       bool    `json:"ledger"`
	Acknowledged int64   `json:"acknowledged,omitempty"`
	Lost         int64   `json:"lost"`
	LostSample   []int64 `json:"lost_sample,omitempty"`
	Unknown      int64   `json:"unknown"`
	Phantom      int64   `json:"phantom"`
	// After the fault, for a cluster: the nodes that accept writes, what
	// each said of itself, and whether more than one part of it did.
	Writable   []string          `json:"writable,omitempty"`
	Nodes      map[string]string `json:"nodes,omitempty"`
	SplitBrain bool              `json:"split_brain,omitempty"`
	Error      string            `json:"error,omitempty"`
}

// The kinds of Event.
const (
	EventServerDied    = "server died"
	EventServerLog     = "server log"
	EventBackupStarted = "backup started"
	EventBackupEnded   = "backup ended"
	EventBackupFailed  = "backup failed"
	EventFailover      = "failover"
	EventFault         = "fault"
	EventCheckpoint    = "checkpoint"    // a checkpoint began: the engine's checkpoint counter moved (backend.Sampler)
	EventAutovacuum    = "autovacuum"    // an autovacuum of a workload's table began (PostgreSQL)
	EventAutoanalyze   = "autoanalyze"   // an autoanalyze of a workload's table began (PostgreSQL)
	EventFlush         = "flush"         // memtables were flushed into tables (an LSM engine: pebble)
	EventCompaction    = "compaction"    // compactions ended (an LSM engine: pebble)
	EventCapacity      = "capacity step" // a capacity search's step began, at the rate it names
)

// Event is one moment of a run's time line.
type Event struct {
	T      float64   `json:"t"` // seconds since the run's first phase began, as the series' T
	At     time.Time `json:"at"`
	Kind   string    `json:"kind"`
	Detail string    `json:"detail,omitempty"`
}

// Backup is an online backup taken while the workload ran (--backup at=D):
// how it was taken, how long it took and how big it is, the workload's
// throughput and latency before, during and after it, and each restore of
// it, checked against the commits the workload saw acknowledged.
type Backup struct {
	Method    string    `json:"method"` // "SQLite backup API", "pg_basebackup, WAL archived"
	Path      string    `json:"path,omitempty"`
	AtSeconds float64   `json:"at_seconds"` // asked for: this long into the measure phase
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	StartT    float64   `json:"start_t"` // on the series' time line
	EndT      float64   `json:"end_t"`
	Seconds   float64   `json:"seconds"`
	Bytes     int64     `json:"bytes"`
	Taken     bool      `json:"taken"`
	Error     string    `json:"error,omitempty"`
	Note      string    `json:"note,omitempty"`
	// Windows are the measure phase before, during and after the backup.
	Windows  []Window  `json:"windows"`
	Restores []Restore `json:"restores"`
}

// Window is a stretch of the measure phase: units done, their rate and
// latency (from the merged histograms of its seconds).
type Window struct {
	Name    string  `json:"name"` // before, during, after
	Seconds float64 `json:"seconds"`
	OK      int64   `json:"ok"`
	Failed  int64   `json:"failed"`
	Rate    float64 `json:"rate"`
	P50Us   int64   `json:"p50_us"`
	P99Us   int64   `json:"p99_us"`
	MaxUs   int64   `json:"max_us"`
}

// The targets of a Restore.
const (
	RestoreToBackup = "backup" // the backup alone, at its consistency point
	RestoreToTime   = "time"   // rolled forward through the archived log to a moment
	RestoreToEnd    = "end"    // rolled forward through every archived log
)

// Restore is the backup restored into a fresh instance and checked: the ids
// the workload saw acknowledged before the point restored to must be there,
// those never committed before it must not; commits in flight around it
// (and, for the backup alone, during it) may go either way.
type Restore struct {
	Target     string     `json:"target"`
	Time       *time.Time `json:"time,omitempty"` // the moment restored to (time and end)
	TargetT    float64    `json:"target_t"`       // on the series' time line
	Seconds    float64    `json:"seconds"`        // from the restore's start to the database open and read
	OK         bool       `json:"ok"`
	Ledger     bool       `json:"ledger"` // the workload keeps a ledger of ids
	Present    int64      `json:"present"`
	Required   int64      `json:"required"` // acknowledged before the point: must be there
	Lost       int64      `json:"lost"`     // required, missing (or an acknowledged removal undone)
	LostSample []int64    `json:"lost_sample,omitempty"`
	Phantom    int64      `json:"phantom"` // there, never committed before the point
	Unknown    int64      `json:"unknown"` // in flight around the point: either way is right
	Integrity  string     `json:"integrity,omitempty"`
	Checks     []Check    `json:"checks,omitempty"` // the workload's checks, where the point is the run's end
	Error      string     `json:"error,omitempty"`
	Note       string     `json:"note,omitempty"`
}

// Knobs are the knobs a user gave, by name, each typed as declared
// (knob.Values.Typed): a number, a bool, a list of text, or text.
type Knobs map[string]any

// Text returns knob name's value as text, as version 2 recorded it (""
// when not given): a repeatable knob's values joined by "\n".
func (k Knobs) Text(name string) string {
	switch v := k[name].(type) {
	case nil:
		return ""
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	case []string:
		return strings.Join(v, "\n")
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, "\n")
	default:
		return fmt.Sprint(v)
	}
}

// ClientsKnob is the knob of the clients: a matrix axis of it is the
// scaling curve's (analysis).
const ClientsKnob = "clients"

// Config is what the user asked for, after defaults, before the engine had its
// say. Secrets are already redacted.
type Config struct {
	Workload string   `json:"workload"`
	Unit     string   `json:"unit"`        // "call"
	UnitRate string   `json:"unit_metric"` // "calls/s"
	Backend  string   `json:"backend"`     // the backend's name: "sqlite"
	DB       string   `json:"db"`          // --db as given, password masked
	API      string   `json:"api"`         // "sql" or "kv"
	Clients  int      `json:"clients"`
	Warmup   Duration `json:"warmup"` // with WarmupAuto, the most it may last
	// WarmupAuto is --warmup auto: the warm-up ended when its rate settled
	// (run.Settled), Settled on the warm-up phase says whether it did.
	WarmupAuto bool     `json:"warmup_auto,omitempty"`
	Duration   Duration `json:"duration"` // 0 when --units ends the run
	Units      int64    `json:"units,omitempty"`
	// Transactions is the units each client runs (pgbench -t): Units is
	// then Clients × Transactions.
	Transactions int64   `json:"transactions,omitempty"`
	Rate         float64 `json:"rate,omitempty"` // open loop: intended units/s
	// Profile is --profile as given: the open loop's phases.
	Profile string `json:"profile,omitempty"`
	// Arrivals is how an open loop's starts arrive: "uniform" (evenly
	// spaced) or "poisson"; empty in a closed loop.
	Arrivals string `json:"arrivals,omitempty"`
	// SLO are the goals of a capacity search (--slo), as given.
	SLO        []string `json:"slo,omitempty"`
	Retries    int      `json:"retries"`
	Seed       uint64   `json:"seed"`
	Durability string   `json:"durability"`
	Isolation  string   `json:"isolation,omitempty"` // --isolation as asked ("default": the engine's own)
	Commit     string   `json:"commit"`
	Prepare    string   `json:"prepare"`
	Set        []string `json:"set,omitempty"`
	Require    []string `json:"require,omitempty"`
	StopFile   string   `json:"stop_file,omitempty"`
	Interval   Duration `json:"interval"`        // the series' resolution
	Knobs      Knobs    `json:"knobs"`           // every knob the user set explicitly, typed
	Workloads  any      `json:"workload_config"` // the workload's typed config
}

// Engine is what the engine says about itself, read back after the settings
// were applied.
type Engine struct {
	Name     string            `json:"name"`
	Version  string            `json:"version"`
	Driver   string            `json:"driver,omitempty"`
	Path     string            `json:"path,omitempty"` // database file or data folder
	Settings map[string]string `json:"settings"`       // as read back from the engine
	// NotReadBack lists the keys of Settings that are dbgauge's own doing,
	// not read back: the engine keeps nothing to read for them.
	NotReadBack []string `json:"not_read_back,omitempty"`
	// Isolation is the level the clients' transactions got, read back in
	// the words of --isolation; "" for an engine without levels.
	Isolation string `json:"isolation,omitempty"`
	// PageSize and CacheBytes come from the settings read back: the page
	// size, and the engine's own cache in bytes (0: none, or not known).
	PageSize   int64 `json:"page_size,omitempty"`
	CacheBytes int64 `json:"cache_bytes,omitempty"`
	// Defaults are the engine's built-in defaults, name → value with its
	// unit, read back (PostgreSQL's pg_settings.boot_val): a matrix over
	// versions shows those that differ.
	Defaults map[string]string `json:"defaults,omitempty"`
}

// Server is what a result records about a server dbgauge started.
type Server struct {
	Engine          string  `json:"engine"`
	Account         string  `json:"account"` // the system user it ran as
	DataDir         string  `json:"data_dir"`
	Port            int     `json:"port"`
	Addr            string  `json:"addr,omitempty"` // the address it listens on (a cluster's network: its own); "": loopback
	PID             int     `json:"pid"`            // the server's main process (its process group is the server)
	Socket          string  `json:"socket,omitempty"`
	Log             string  `json:"log"`
	StartupSeconds  float64 `json:"startup_seconds"`
	ShutdownSeconds float64 `json:"shutdown_seconds"`
	// RecoverySeconds is the crash-recovery time after the run: from the
	// restart of a server killed with SIGKILL to its first accepted
	// connection; 0 when not measured (see RecoveryNote).
	RecoverySeconds float64 `json:"recovery_seconds,omitempty"`
	RecoveryNote    string  `json:"recovery_note,omitempty"`
	Note            string  `json:"note,omitempty"`
	// MemoryLimit is --server-memory: the limit of the memory cgroup the
	// server ran in (its page cache included), read back from the kernel.
	MemoryLimit int64  `json:"server_memory,omitempty"`
	Cgroup      string `json:"cgroup,omitempty"`
	OOMKills    int64  `json:"oom_kills,omitempty"` // its processes the kernel killed at the limit
	// CPUs is --cpus server=…: the CPUs its processes may run on, read
	// back from the kernel (sched_getaffinity of its main process).
	CPUs string `json:"cpus,omitempty"`
}

// ServerLog is a managed server's log read after the run: its anomalies by
// kind (errors, panics, bugchecks, crashes, recoveries …), known-harmless
// lines left out. No anomalies: the log was read and is clean.
type ServerLog struct {
	Path      string       `json:"path"`
	Lines     int          `json:"lines"`
	Anomalies []LogAnomaly `json:"anomalies"`
}

// Storage is how big the engine's data (its file, or its folder) and a
// managed server's log were when the measure phase began and after the run,
// and their growth per hour at the measured pace (the NMS seed's "20 MB an
// hour").
type Storage struct {
	DataPath        string  `json:"data_path"`
	DataBegin       int64   `json:"data_bytes_begin"`
	DataEnd         int64   `json:"data_bytes_end"`
	DataPerHour     float64 `json:"data_bytes_per_hour"`
	LogPath         string  `json:"log_path,omitempty"`
	LogBegin        int64   `json:"log_bytes_begin,omitempty"`
	LogEnd          int64   `json:"log_bytes_end,omitempty"`
	LogPerHour      float64 `json:"log_bytes_per_hour,omitempty"`
	MeasuredSeconds float64 `json:"measured_seconds"`
}

// LogAnomaly is one kind of trouble: how often, the line it first appeared
// on, and one line of it.
type LogAnomaly struct {
	Kind      string `json:"kind"`
	Count     int    `json:"count"`
	FirstLine int    `json:"first_line"`
	Sample    string `json:"sample"`
}

// Environment is what a reader needs to trust a number.
type Environment struct {
	Hostname string   `json:"hostname"`
	OS       string   `json:"os"`
	Kernel   string   `json:"kernel"`
	Arch     string   `json:"arch"`
	CPU      string   `json:"cpu"`
	Cores    int      `json:"cores"`
	MemoryB  uint64   `json:"memory_bytes"`
	Go       string   `json:"go"`
	Dbgauge  string   `json:"dbgauge"`
	DataDir  Device   `json:"data_dir"`
	Problems []string `json:"problems,omitempty"` // facts that could not be read, and why

	// PageCache says whether the OS page cache was dropped before the run
	// (each cell of a matrix, as root): "dropped", or why not.
	PageCache string `json:"page_cache,omitempty"`
}

// Device describes the file system and block device holding a folder.
type Device struct {
	Path         string `json:"path"`
	FS           string `json:"fs,omitempty"`
	MountPoint   string `json:"mount_point,omitempty"`
	MountOptions string `json:"mount_options,omitempty"`
	Source       string `json:"source,omitempty"` // what is mounted: /dev/vda1, overlay, tmpfs
	Device       string `json:"device,omitempty"` // the whole block device: vda
	Model        string `json:"model,omitempty"`
	Rotational   *bool  `json:"rotational,omitempty"`
	WriteCache   string `json:"write_cache,omitempty"` // "write back" or "write through"
}

// Dataset records how the data was prepared.
type Dataset struct {
	Reused  bool              `json:"reused"`
	Seconds float64           `json:"seconds"`
	Facts   map[string]string `json:"facts,omitempty"` // the workload's own: rows, size…
	// Bytes is the data's size after the load, less EmptyBytes, the size
	// before it (an empty PostgreSQL database's catalogs take 7 MiB); a
	// reused dataset's is its whole size. Both are the engine's own figure
	// of its tables and indexes where it has one (PostgreSQL, MariaDB,
	// SQLite), else its files; BytesFrom says which.
	Bytes      int64  `json:"bytes,omitempty"`
	EmptyBytes int64  `json:"empty_bytes,omitempty"`
	BytesFrom  string `json:"bytes_from,omitempty"`
	// Target is what --dataset asked, when it did.
	Target *DatasetTarget `json:"target,omitempty"`
}

// DatasetTarget is --dataset Nx resolved: N times the engine's cache (or
// the machine's memory), the items it came to, and how close the load came.
type DatasetTarget struct {
	Asked     string  `json:"asked"`      // "4x"
	Of        string  `json:"of"`         // "cache" or "ram"
	Multiple  float64 `json:"multiple"`   // 4
	BaseBytes int64   `json:"base_bytes"` // the cache (engine.cache_bytes) or the memory
	Bytes     int64   `json:"bytes"`      // Multiple × BaseBytes
	Items     int64   `json:"items"`      // what the workload chose (kv: records)
	Unit      string  `json:"unit"`       // "records"
	ItemBytes int64   `json:"item_bytes"` // estimated bytes per item on disk, the engine's overhead included
	Overhead  int64   `json:"overhead"`   // the engine's estimated overhead per item (backend.Spec.RecordOverhead)
	// Achieved is Dataset.Bytes ÷ Bytes: 1 means the estimate was exact.
	Achieved float64 `json:"achieved,omitempty"`
}

// Summary is the headline of the measure phase.
type Summary struct {
	Metric    string  `json:"metric"` // "calls/s"
	Rate      float64 `json:"rate"`
	OK        int64   `json:"ok"`
	Failed    int64   `json:"failed"`
	Nothing   int64   `json:"nothing"`    // units that found nothing to do: neither ok nor failed, not in Rate
	ErrorsPct float64 `json:"errors_pct"` // Failed ÷ (OK + Failed)
	Retries   int64   `json:"retries"`
	Seconds   float64 `json:"seconds"`
	P50Us     int64   `json:"p50_us"`
	P95Us     int64   `json:"p95_us"`
	P99Us     int64   `json:"p99_us"`
	MaxUs     int64   `json:"max_us"`
	ChecksOK  bool    `json:"checks_ok"`
	// The log's growth, where the engine counts it (PostgreSQL's WAL bytes):
	// per unit, and per hour at the measured rate (the NMS seed saw 20 MB/h).
	LogBytesPerUnit float64 `json:"log_bytes_per_unit,omitempty"`
	LogBytesPerHour float64 `json:"log_bytes_per_hour,omitempty"`
	Pass            *bool   `json:"pass,omitempty"` // all requirements met; nil without --require
	// PerMinute is the headline per minute, for workloads whose own unit it
	// is (OLTP-EMUL's P: business actions per minute).
	PerMinute float64 `json:"per_minute,omitempty"`
	// CacheHitPct is the share of the engine's page (block) lookups in the
	// measure phase that its own cache answered, from its counters
	// (PostgreSQL blks_hit, InnoDB's buffer pool, Firebird's fetches, pebble's
	// block cache); nil where the engine does not count them.
	CacheHitPct  *float64 `json:"cache_hit_pct,omitempty"`
	CacheLookups int64    `json:"cache_lookups,omitempty"`
	// Figures are the workload's own (TPC-C: tpmC, NOPM, efficiency and
	// the response-time limits as verdicts), from the measure phase.
	Figures []Figure `json:"figures,omitempty"`
}

// Figure is one of a workload's own figures: a value, and a verdict where
// the workload's standard sets a limit. Kinds, when set, are the unit kinds
// the figure counts per minute: report.html draws it minute by minute from
// the series' per-kind counts (Second.Units).
//
// The other fields say what the figure is made of, so that `dbgauge merge`
// can make it again for the whole of a sharded run; a figure that says
// none of them is per minute of its Kinds (summed over the shards), and
// one with no Kinds either is left out of a merged result.
type Figure struct {
	Name   string   `json:"name"`
	Value  float64  `json:"value"`
	Unit   string   `json:"unit"`
	Detail string   `json:"detail,omitempty"`
	Pass   *bool    `json:"pass,omitempty"`
	Kinds  []string `json:"kinds,omitempty"`
	// Of: the figure is 100 × its Kinds per minute ÷ Of (a share of a
	// ceiling the whole run has, TPC-C's efficiency).
	Of float64 `json:"of,omitempty"`
	// Part of Whole: the figure is 100 × Part ÷ Whole, each summed over
	// shards (TPC-C's skipped deliveries).
	Part  int64 `json:"part,omitempty"`
	Whole int64 `json:"whole,omitempty"`
	// P90Of: the figure is the 90th percentile, in ms, of this unit kind's
	// latency (merged from the shards' histograms).
	P90Of string `json:"p90_of,omitempty"`
	// Limit: with Pass, the figure passes at or under it.
	Limit float64 `json:"limit,omitempty"`
	// NA, when set, says why the figure has no value in this run (TPC-C's
	// efficiency without --wait: "no keying or think times"); Value is then
	// 0 and means nothing, and reports show "n/a: " and the reason.
	NA string `json:"na,omitempty"`
}

// Said is the figure's detail as a report shows it: a part of a whole
// leads with its counts ("3 of 200: …"); a figure with no value says why
// ("n/a: no keying or think times").
func (f Figure) Said() string {
	if f.NA != "" {
		return "n/a: " + f.NA
	}
	if f.Whole > 0 {
		return fmt.Sprintf("%d of %d: %s", f.Part, f.Whole, f.Detail)
	}
	return f.Detail
}

// PerClient returns the headline rate per client (seed 002 reports its
// cumulative recs/sec and each client's share); 0 without clients.
func (r *Result) PerClient() float64 {
	if r.Config.Clients <= 0 {
		return 0
	}
	return r.Summary.Rate / float64(r.Config.Clients)
}

// Phase holds the metrics of one phase: "warmup" (discarded from the
// headline) or "measure".
type Phase struct {
	Name      string `json:"name"`
	Discarded bool   `json:"discarded,omitempty"`
	// Settled, on a --warmup auto warm-up, says whether it ended because
	// its rate had settled (false: it ran to its cap, Config.Warmup).
	Settled *bool     `json:"settled,omitempty"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Seconds float64   `json:"seconds"`
	OK      int64     `json:"ok"`      // successful units (committed: those rolled back with their group are in Lost)
	Failed  int64     `json:"failed"`  // units that failed after retries
	Nothing int64     `json:"nothing"` // units that found nothing to do (no document to pick, no stock): not in OK nor Rate
	Retries int64     `json:"retries"`
	Lost    int64     `json:"lost,omitempty"` // units done, then rolled back with their group: not in OK nor the latencies
	Late    int64     `json:"late,omitempty"` // open loop: started over one intended gap (and run.LateFloor) behind its time
	// Missed counts the open loop's intended starts that never began: a
	// slow engine left them waiting when the phase (or a capacity step)
	// ended. They are in no latency.
	Missed   int64     `json:"missed,omitempty"`
	Rate     float64   `json:"rate"`              // OK / Seconds
	Offered  float64   `json:"offered,omitempty"` // open loop: the rate of starts intended, per second
	All      Latency   `json:"all"`               // every unit kind
	Units    []Latency `json:"units"`             // per unit kind
	Ops      []Latency `json:"ops"`               // per operation inside units
	Lag      *Latency  `json:"lag,omitempty"`     // open loop: start behind schedule
	Failures []Failure `json:"failures"`          // units that failed after retries, by cause
	Retried  []Failure `json:"retried"`           // errors that were retried, by cause
	// NothingBy counts the units that found nothing to do by the reason
	// the workload gave (its code: OLTP-EMUL's exception names).
	NothingBy []Failure `json:"nothing_by,omitempty"`
	// UnitsFailedBy counts each unit kind's failures by error kind (lock,
	// deadlock, serialization, constraint…: dberr's kinds), for the kinds
	// that failed.
	UnitsFailedBy map[string]map[string]int64 `json:"units_failed_by,omitempty"`
}

// Latency summarises one HdrHistogram of latencies in microseconds. Hist holds
// the whole histogram (HdrHistogram V2 compressed, base64) so that phases and
// runs can be merged later without averaging percentiles.
type Latency struct {
	Name   string `json:"name"`
	Count  int64  `json:"count"`            // timed: units or operations that succeeded
	Failed int64  `json:"failed,omitempty"` // units of this kind that failed after retries; for an operation, its errors (every attempt)
	// Nothing counts units of this kind that found nothing to do.
	Nothing int64   `json:"nothing,omitempty"`
	MinUs   int64   `json:"min_us"`
	MeanUs  float64 `json:"mean_us"`
	SdUs    float64 `json:"sd_us,omitempty"` // the standard deviation (pgbench's "stddev"), as HdrHistogram computes it
	P50Us   int64   `json:"p50_us"`
	P90Us   int64   `json:"p90_us"`
	P95Us   int64   `json:"p95_us"`
	P99Us   int64   `json:"p99_us"`
	P999Us  int64   `json:"p999_us"`
	MaxUs   int64   `json:"max_us"`
	// Above counts the latencies over the histogram's bound (BoundUs, an
	// hour), recorded at the bound: its percentiles there are "at least".
	Above   int64  `json:"above,omitempty"`
	BoundUs int64  `json:"bound_us,omitempty"` // set when Above is
	Hist    string `json:"hist,omitempty"`
}

// Failure counts failed units of one class, kind and engine code.
type Failure struct {
	Class   string   `json:"class"`
	Kind    string   `json:"kind"`
	Code    string   `json:"code,omitempty"`
	Count   int64    `json:"count"`
	Samples []string `json:"samples"`
}

// Second is one point of the per-second series.
type Second struct {
	T  float64 `json:"t"`  // seconds since the run's first phase began, at the end of this interval
	Dt float64 `json:"dt"` // length of this interval in seconds: 1 but at phase boundaries
	// Partial marks an interval of a few milliseconds (a run stopped just
	// after a tick): its counts are real, its count ÷ dt is no rate, and
	// views leave it out of rates. The run engine merges those at a phase's
	// deadline into their neighbour.
	Partial bool   `json:"partial,omitempty"`
	Phase   string `json:"phase"`
	OK      int64  `json:"ok"`
	Failed  int64  `json:"failed"`
	Nothing int64  `json:"nothing,omitempty"` // units that found nothing to do
	Retries int64  `json:"retries,omitempty"`
	// Units counts the interval's successful units per kind, in the order
	// of the phase's Units, for a workload with figures per minute.
	Units []int64 `json:"units,omitempty"`
	// FailedBy and RetriedBy count this interval's failures and retried
	// errors by class (busy, deadlock… as dberr names them).
	FailedBy  map[string]int64 `json:"failed_by,omitempty"`
	RetriedBy map[string]int64 `json:"retried_by,omitempty"`
	P50Us     int64            `json:"p50_us"`
	P99Us     int64            `json:"p99_us"`
	MaxUs     int64            `json:"max_us"`
	MeanUs    float64          `json:"mean_us,omitempty"` // the latencies' mean and standard deviation (pgbench -P's "lat" and "stddev")
	SdUs      float64          `json:"sd_us,omitempty"`
	// Offered is the open loop's intended rate of starts over the
	// interval, per second (--rate, --profile, a capacity step), and Late
	// the units that started over one intended gap behind their time.
	Offered float64 `json:"offered,omitempty"`
	Late    int64   `json:"late,omitempty"`
	// Lag is each replica's replication lag at the second's end
	// ("lag_bytes:r1", "replay_lag_ms:r1"), with --topology.
	Lag map[string]float64 `json:"lag,omitempty"`
	// Machine is the machine's side of the interval: the data folder's
	// device, the server's processes' CPU and dbgauge's.
	Machine *MachineSecond `json:"machine,omitempty"`
	// Waits is what the workload's connections waited on in the engine in
	// this interval (backend.Waiter, read ten times a second): by wait,
	// the mean number of connections waiting on it.
	Waits map[string]float64 `json:"waits,omitempty"`
	// Engine is the engine's side: how fast each of its counters
	// (backend.Sampler: "wal_bytes", "checkpoint_buffers"…) moved, per
	// second, between the last two samples taken by then (sampled once a
	// second on their own clock, so up to a second behind the interval).
	Engine map[string]float64 `json:"engine,omitempty"`
}

// MachineSecond is what the machine did in one interval of the series,
// each figure per second of it.
type MachineSecond struct {
	// Disk is the data folder's block device, any process's
	// (/proc/diskstats); nil where the device is not known.
	Disk *DiskSecond `json:"disk,omitempty"`
	// ServerCores is a managed server's processes' CPU (1: one core kept
	// busy), the exited ones included; nil without a managed server, and
	// from a restart of it on (a --fault, a failover).
	ServerCores *float64 `json:"server_cores,omitempty"`
	// HarnessCores is dbgauge's own CPU (the engine's too when it runs
	// inside dbgauge).
	HarnessCores float64 `json:"harness_cores"`
}

// DiskSecond is a block device in one interval, per second.
type DiskSecond struct {
	ReadMiB  float64 `json:"read_mib_s"`
	WriteMiB float64 `json:"write_mib_s"`
	Reads    float64 `json:"reads_s"`  // requests completed
	Writes   float64 `json:"writes_s"` // requests completed
	UtilPct  float64 `json:"util_pct"` // of the time, a request in flight
	Queue    float64 `json:"queue"`    // requests in flight, on average
}

// Stats are the engine's own counters before and after the measure phase.
type Stats struct {
	Before map[string]int64 `json:"before"`
	After  map[string]int64 `json:"after"`
	Delta  map[string]int64 `json:"delta"`
	// Note says why there is no Delta: the server was replaced or
	// restarted during the run ("not differenced: …").
	Note string `json:"note,omitempty"`
}

// Check is one consistency check run after the measure phase.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Verdict is one --require evaluated against the measure phase.
type Verdict struct {
	Require string  `json:"require"`
	Metric  string  `json:"metric"`
	Op      string  `json:"op"`
	Want    float64 `json:"want"`
	Got     float64 `json:"got"`
	Unit    string  `json:"unit,omitempty"` // "ms" for latencies, "/s" for rates
	OK      bool    `json:"ok"`
	// Detail says what was measured in words where the figure is no
	// number (steady: the trend's verdict and why).
	Detail string `json:"detail,omitempty"`
}

// Disk is a run of the fsync-ceiling probe on one folder.
type Disk struct {
	Device   Device     `json:"device"`
	Virtual  string     `json:"virtual,omitempty"` // the hypervisor, when the machine is virtual
	Cells    []DiskCell `json:"cells"`
	Findings []Finding  `json:"findings"`
	Ceiling  float64    `json:"ceiling"` // highest rate of a method that flushes, per second
}

// DiskCell is one method × pattern × block size of the probe.
type DiskCell struct {
	Method  string  `json:"method"`  // fsync, fdatasync, osync, odsync, none
	Pattern string  `json:"pattern"` // rewrite (one block at a fixed offset) or append (the file grows)
	Block   int     `json:"block"`   // bytes per write
	Direct  bool    `json:"direct,omitempty"`
	Ops     int64   `json:"ops"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rate"` // ops per second
	Latency Latency `json:"latency"`
	Write   Latency `json:"write"`           // the write alone
	Flush   Latency `json:"flush,omitempty"` // the flush alone (fsync, fdatasync)
	Error   string  `json:"error,omitempty"`
}

// Finding is a plain-words conclusion about a device or a run.
type Finding struct {
	Level string `json:"level"` // "warning" or "info"
	Text  string `json:"text"`
}

// Durability is the verdict on whether a run's commits could have been
// durable on the device under its data folder.
type Durability struct {
	Folder      string   `json:"folder"`
	Ceiling     float64  `json:"ceiling"` // flushes per second the folder's device made in the probe
	Method      string   `json:"method"`  // the method that reached the ceiling
	ProbedAt    string   `json:"probed_at"`
	Cached      bool     `json:"cached"`
	Commits     float64  `json:"commits_per_s"`
	Flushes     float64  `json:"flushes_per_s,omitempty"` // where the engine counts its flushes
	Clients     int      `json:"clients"`
	Verdict     string   `json:"verdict"` // plausible, flagged, not durable by design, cannot judge, not measurable
	Detail      string   `json:"detail"`
	DiskWarning []string `json:"disk_warnings,omitempty"` // why the ceiling itself may be untrustworthy
	// FlushSource says what the engine's flush count counts and where it
	// comes from (pebble's WAL fsyncs, the xSync calls SQLite makes).
	FlushSource string `json:"flush_source,omitempty"`
	// Level is the durability level the engine's settings read back
	// amount to ("off"; "lazy or off" where they do not tell the two
	// apart); "" where it reads back none that decide it, or they fit none.
	Level string `json:"level_read_back,omitempty"`
	// Unlike lists the settings read back that the run's --durability does
	// not allow ("fsync=off (sync needs on)"): the verdict judges those.
	Unlike []string `json:"unlike_durability,omitempty"`
}

// The durability verdicts, the values of Durability.Verdict, which
// verdict.Durability gives and the reports colour: only Plausible is good
// news.
const (
	Plausible          = "plausible"             // a rate this disk can make durable, at --durability sync
	Flagged            = "flagged"               // faster than this disk flushes, or sync whose settings read back otherwise
	NotDurableByDesign = "not durable by design" // --durability lazy or off, or settings that read back so
	CannotJudge        = "cannot judge"          // the engine does not count what the verdict needs
	NotMeasurable      = "not measurable"        // the data folder's device has no flush ceiling
)

// Steady is the verdict on the measure phase's trend: whether its rate and
// its p99 held level, or fell or rose by more than the tolerance over the
// phase, each with its 95 % interval (docs/results.md says how).
type Steady struct {
	Verdict string `json:"verdict"` // Level, NotSteady or CannotTell
	// Why says it in one line ("the rate fell 12 % over the 10 min
	// measured [-14, -10]").
	Why          string  `json:"why"`
	TolerancePct float64 `json:"tolerance_pct"` // a change over the phase within ± this is level
	Seconds      float64 `json:"seconds"`       // the measure phase's length judged
	Method       string  `json:"method"`
	Rate         *Drift  `json:"rate,omitempty"` // nil: too short to fit
	P99          *Drift  `json:"p99,omitempty"`
}

// DeviceIO is what a block device read and wrote over the measure phase,
// from /proc/diskstats: whatever reached the device, any process's, the
// page cache's hits and the writes still in it not counted.
type DeviceIO struct {
	Device       string `json:"device"`
	ReadBytes    int64  `json:"read_bytes"`
	WrittenBytes int64  `json:"written_bytes"`
}

// Wait is one thing the workload's connections waited on in the engine
// over the measure phase ("Lock:transactionid", "IO:WalSync", "CPU" for a
// backend running with no wait; MariaDB: a thread's state).
type Wait struct {
	Wait     string  `json:"wait"`
	Waiting  float64 `json:"waiting"`   // connections waiting on it, on average over the phase's reads
	SharePct float64 `json:"share_pct"` // of all the connections seen waiting, on anything
}

// UnitCost is one thing each successful unit of the measure phase cost,
// and where the figure comes from.
type UnitCost struct {
	Key    string  `json:"key"`   // one of the CostKeys
	Label  string  `json:"label"` // "server CPU"
	Value  float64 `json:"value"` // per successful unit
	Unit   string  `json:"unit"`  // "µs", "KiB", "B", "" (a count)
	Source string  `json:"source"`
}

// The keys of UnitCost, in the order results list them.
const (
	CostServerCPU  = "server_cpu_us"  // a managed server's processes' CPU
	CostHarnessCPU = "harness_cpu_us" // dbgauge's own CPU (the engine's too when it runs inside)
	CostRead       = "read_kib"       // what the data folder's device read (DeviceIO)
	CostWritten    = "written_kib"    // what the data folder's device wrote (DeviceIO)
	CostFlushes    = "flushes"        // the engine's own flush counter
	CostLogBytes   = "log_bytes"      // the engine's log (WAL) bytes
)

// CostKeys lists the UnitCost keys in order.
var CostKeys = []string{CostServerCPU, CostHarnessCPU, CostRead, CostWritten, CostFlushes, CostLogBytes}

// Drift is one series' fitted change over the measure phase, in percent of
// its mean, with the 95 % interval; Per10MinPct is the same pace over ten
// minutes.
type Drift struct {
	Trend       string  `json:"trend"` // Level, Falling, Rising or Unclear
	Mean        float64 `json:"mean"`
	ChangePct   float64 `json:"change_pct"`
	LoPct       float64 `json:"lo_pct"`
	HiPct       float64 `json:"hi_pct"`
	Per10MinPct float64 `json:"per_10min_pct"`
	Blocks      int     `json:"blocks"`
}

// The values of Steady.Verdict and of Drift.Trend.
const (
	Level      = "steady"      // within the tolerance, the interval too
	NotSteady  = "not steady"  // the rate fell or rose, or the p99 rose, beyond the tolerance
	CannotTell = "cannot tell" // too short, or an interval too wide to say
	Falling    = "falling"     // the interval below zero, the change beyond the tolerance
	Rising     = "rising"      // the interval above zero, the change beyond the tolerance
	Unclear    = "unclear"     // neither level nor clearly moving: the interval is too wide
)

// Change is a server-wide setting dbgauge changed on a server of the
// user's for a run (MariaDB's SET GLOBAL), and whether it was set back.
type Change struct {
	Key      string `json:"key"`
	Was      string `json:"was"`             // read back before the run changed it
	Set      string `json:"set"`             // read back after the run set it
	Restored bool   `json:"restored"`        // set back when the engine closed
	Err      string `json:"error,omitempty"` // why it could not be set back
}

// Duration is a time.Duration written as text ("30s").
type Duration time.Duration

// MarshalText writes the duration as Go prints it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a duration written by MarshalText.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// Phase returns the phase named name, or nil.
func (r *Result) Phase(name string) *Phase {
	for i := range r.Phases {
		if r.Phases[i].Name == name {
			return &r.Phases[i]
		}
	}
	return nil
}

// String prints the duration as Go does.
func (d Duration) String() string { return time.Duration(d).String() }

// Profile sums each phase of an open loop's --profile, from the seconds of
// the measure phase whose middle is in it.
type Profile struct {
	Text     string         `json:"text"`
	Arrivals string         `json:"arrivals"`
	Phases   []ProfilePhase `json:"phases"`
}

// ProfilePhase is one phase of a profile.
type ProfilePhase struct {
	Text string `json:"text"`
	// FromRate and ToRate are its intended rate at its start and end.
	FromRate float64 `json:"from_rate"`
	ToRate   float64 `json:"to_rate"`
	// StartS and EndS place it from the measure phase's start, in seconds.
	StartS  float64 `json:"start_s"`
	EndS    float64 `json:"end_s"`
	Seconds float64 `json:"seconds"` // the seconds of the series summed in it
	Offered float64 `json:"offered"` // starts intended per second
	Rate    float64 `json:"rate"`    // units that succeeded per second
	OK      int64   `json:"ok"`
	Failed  int64   `json:"failed"`
	Late    int64   `json:"late"`
	Latency Latency `json:"latency"` // from the intended starts
}

// Capacity is a capacity search (dbgauge capacity, --slo): after a
// closed-loop warm-up (its probe), steps of an open loop at constant
// rates, raised until a goal breaks, then bisected. Each step's first
// SettleSeconds are left out of its judgement, and the starts it left
// waiting at its end are dropped, not carried into the next.
type Capacity struct {
	SLO           []string `json:"slo"`
	Arrivals      string   `json:"arrivals"`
	StepSeconds   float64  `json:"step_seconds"`
	SettleSeconds float64  `json:"settle_seconds"`
	// Resolution is the bisection's end: the rate that broke within this
	// fraction above the rate that held.
	Resolution float64 `json:"resolution"`
	// DroppedLimitPct is the share of a step's starts, in percent, that
	// may be left waiting at its end for the step to count as kept up.
	DroppedLimitPct float64 `json:"dropped_limit_pct"`
	// ProbeRate is the closed loop's rate over the warm-up's second half:
	// how fast the engine goes unpaced, where the search begins from.
	ProbeRate float64        `json:"probe_rate"`
	Steps     []CapacityStep `json:"steps"`
	// Knee is the highest rate whose step held every goal, 0 when none
	// did; Broke is the lowest rate whose step broke one (0: none broke).
	Knee  float64 `json:"knee"`
	Broke float64 `json:"broke,omitempty"`
	// Found says whether the search ended within its resolution; Why says
	// how it ended.
	Found bool   `json:"found"`
	Why   string `json:"why"`
}

// CapacityStep is one step of a capacity search, judged on its seconds
// after the settling ones.
type CapacityStep struct {
	N      int     `json:"n"`       // from 1
	Rate   float64 `json:"rate"`    // the rate planned
	StartT float64 `json:"start_t"` // on the run's time line, as the series
	EndT   float64 `json:"end_t"`
	// Seconds, Offered and Achieved are those of the judged part:
	// starts intended and units that succeeded per second.
	Seconds   float64 `json:"seconds"`
	Offered   float64 `json:"offered"`
	Achieved  float64 `json:"achieved"`
	OK        int64   `json:"ok"`
	Failed    int64   `json:"failed"`
	ErrorsPct float64 `json:"errors_pct"`
	Late      int64   `json:"late"`
	// Dropped is the starts the step intended that never began: left
	// waiting when it ended (the engine fell behind).
	Dropped int64   `json:"dropped"`
	Latency Latency `json:"latency"` // from the intended starts
	Held    bool    `json:"held"`
	// Trend is the steady-state rule's verdict on the judged seconds
	// (verdict.SteadyOf); Extended counts the times the step was run one
	// more length because, though it held, its rate or p99 still moved.
	Trend    *Steady `json:"trend,omitempty"`
	Extended int     `json:"extended,omitempty"`
	// Broke says what did not hold: each goal missed, with what was
	// measured, or the starts left waiting.
	Broke []string `json:"broke,omitempty"`
}
