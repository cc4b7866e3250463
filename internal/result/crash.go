package result

import "time"

// CrashSchema names the version of a crash record.
const CrashSchema = "dbgauge.crash/1"

// CrashFile is the name of the record inside a crash folder.
const CrashFile = "crash.json"

// Crash is what `dbgauge crash` found: per configuration, per cycle, what was
// acknowledged before the fault and what the database held after it.
type Crash struct {
	Schema   string        `json:"schema"`
	ID       string        `json:"id"`
	Status   Status        `json:"status"`
	Command  []string      `json:"command"`
	Workload string        `json:"workload"`
	Backend  string        `json:"backend"`
	Fault    string        `json:"fault"` // "kill -9"
	Seed     uint64        `json:"seed"`  // the same seed gives the same fault moments
	Started  time.Time     `json:"started"`
	Updated  time.Time     `json:"updated"`
	Axes     []Axis        `json:"axes"`
	Configs  []CrashConfig `json:"configs"`
}

// CrashConfig is one configuration's cycles and its verdict.
type CrashConfig struct {
	Key     string            `json:"key"` // "durability=lazy"
	Values  map[string]string `json:"values"`
	Cycles  []CrashCycle      `json:"cycles"`
	Summary string            `json:"summary"` // one line a person reads in ten seconds
	// Promise is what the engine's documentation promises this
	// configuration keeps through the fault; Verdict holds the cycles to
	// it: "as documented", or "NOT as documented: …".
	Promise string `json:"promise,omitempty"`
	Verdict string `json:"verdict,omitempty"`
}

// CrashCycle is one run, one fault, one recovery.
type CrashCycle struct {
	N               int     `json:"n"`
	Dir             string  `json:"dir"`      // relative to the crash folder
	FaultAt         float64 `json:"fault_at"` // seconds after the first acknowledged commit
	Acknowledged    int64   `json:"acknowledged"`
	Lost            int64   `json:"lost"` // acknowledged, then missing
	LostSample      []int64 `json:"lost_sample,omitempty"`
	Unknown         int64   `json:"unknown"`                 // in flight at the fault: may or may not survive
	UnknownSurvived int64   `json:"unknown_survived"`        // of those, present after recovery
	Phantom         int64   `json:"phantom"`                 // present but never committed: a harness or engine bug
	Started         bool    `json:"started"`                 // the database opened again
	RecoverySeconds float64 `json:"recovery_seconds"`        // open and first read after the fault
	RecoveryNote    string  `json:"recovery_note,omitempty"` // what the engine's crash recovery said it replayed
	Integrity       string  `json:"integrity"`               // the engine's own check
	IntegrityOK     bool    `json:"integrity_ok"`
	Error           string  `json:"error,omitempty"`
	Dropped         string  `json:"dropped,omitempty"`       // power loss: what the cut dropped
	Harness         bool    `json:"harness_error,omitempty"` // the cycle could not be run: Error is dbgauge's, not the engine's
}
