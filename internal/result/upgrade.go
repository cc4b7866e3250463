package result

import "time"

// UpgradeSchema names the version of an upgrade record.
const UpgradeSchema = "dbgauge.upgrade/1"

// UpgradeFile is the name of the record inside an upgrade folder.
const UpgradeFile = "upgrade.json"

// Upgrade is what `dbgauge upgrade` found: per method, the run on the old
// version, the upgrade's steps and window, what the upgraded database held
// against what was acknowledged, and the run on the new version beside the
// first. Each run's own result is a folder beside it (Before, After).
type Upgrade struct {
	Schema   string    `json:"schema"`
	ID       string    `json:"id"`
	Status   Status    `json:"status"`
	Command  []string  `json:"command"`
	Workload string    `json:"workload"`
	From     string    `json:"from"` // the managed forms: "postgres:managed@15"
	To       string    `json:"to"`
	Started  time.Time `json:"started"`
	Updated  time.Time `json:"updated"`
	// Verification says how the upgraded database was judged: "ledger"
	// (every acknowledged commit's id looked for, and the workload's
	// checks) or "checks and row counts" (a workload that records no
	// ledger: its checks, and each table's rows before and after).
	Verification string          `json:"verification"`
	Methods      []UpgradeMethod `json:"methods"`
}

// UpgradeMethod is one method's rehearsal.
type UpgradeMethod struct {
	Method      string `json:"method"`          // "link", "copy", "dump"
	Before      string `json:"before"`          // the old version's run: its result folder, beside the record
	After       string `json:"after,omitempty"` // the new version's run
	FromVersion string `json:"from_version"`    // as the servers reported it
	ToVersion   string `json:"to_version,omitempty"`
	// Steps are the upgrade's steps in order, each timed; Window marks
	// those during which no commit could be made.
	Steps []UpgradeStep `json:"steps"`
	// WindowSeconds is the upgrade window: from the old server's last
	// possible commit (its stop, or the dump's start) to the new one's first
	// (its start done, or the restore's end): the window steps' sum.
	WindowSeconds float64 `json:"window_seconds"`
	// StepsSeconds is every step's time, the window's and the rest's.
	StepsSeconds float64 `json:"steps_seconds"`
	// SinceLastCommit is the time from the last commit the old version
	// acknowledged to the new one's first possible commit, dbgauge's own
	// checks between the run and the upgrade included; 0 without a ledger.
	SinceLastCommit float64 `json:"since_last_commit_seconds,omitempty"`
	// Ledger is what the upgraded database held against the ledger of the
	// old version's run; nil for a workload that records none.
	Ledger *UpgradeLedger `json:"ledger,omitempty"`
	// RowsBefore and RowsAfter count each table's rows as the old version's
	// run ended and once upgraded (a workload without a ledger).
	RowsBefore map[string]int64 `json:"rows_before,omitempty"`
	RowsAfter  map[string]int64 `json:"rows_after,omitempty"`
	// Checks are the workload's checks on the upgraded database, against
	// what the old version's run acknowledged, and the row counts'.
	Checks []Check `json:"checks"`
	// Compare sets the new version's run beside the old one's: throughput
	// and latencies, with their 95 % intervals and verdicts.
	Compare []UpgradeDiff `json:"compare"`
	OK      bool          `json:"ok"` // every run completed, nothing lost, every check held
	// Failed says what failed (a loss, a check); Error what could not be
	// run (dbgauge's side, or the engine's).
	Failed  string `json:"failed,omitempty"`
	Error   string `json:"error,omitempty"`
	Summary string `json:"summary"` // one line
}

// UpgradeStep is one timed step of an upgrade.
type UpgradeStep struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Window  bool    `json:"window"`
}

// UpgradeLedger is what an upgraded database held of the ids the old
// version's run committed.
type UpgradeLedger struct {
	Acknowledged int64   `json:"acknowledged"` // commits acknowledged by the old version
	Required     int64   `json:"required"`     // ids that must be there: acknowledged, or there before the run
	Present      int64   `json:"present"`
	Lost         int64   `json:"lost"`
	LostSample   []int64 `json:"lost_sample,omitempty"`
	Phantom      int64   `json:"phantom"` // present, never sent for commit
	Unknown      int64   `json:"unknown"` // in flight when the run ended: either way is right
}

// UpgradeDiff is one metric of the new version's run against the old one's.
type UpgradeDiff struct {
	Metric  string  `json:"metric"` // "rate", "p50_us", "p99_us"
	Label   string  `json:"label"`  // "inserts/s", "p99"
	Before  float64 `json:"before"`
	After   float64 `json:"after"`
	Ratio   float64 `json:"ratio"` // after / before
	Lo      float64 `json:"lo"`    // 95 % interval of the ratio
	Hi      float64 `json:"hi"`
	Method  string  `json:"method"`  // the statistics' ("bootstrap", "welch", "none")
	Verdict string  `json:"verdict"` // "faster", "slower", "not significant", "cannot judge: …"
}

// Upgraded is, in a run's result, the upgrade its server went through just
// before it.
type Upgraded struct {
	From          string  `json:"from"`   // the version upgraded from, as its server reported it
	Method        string  `json:"method"` // "link", "copy", "dump"
	WindowSeconds float64 `json:"window_seconds"`
	// Verified is what the upgraded database was found to hold, in a line.
	Verified string `json:"verified"`
	// Record is the upgrade's record, from the result's folder.
	Record string `json:"record"`
}
