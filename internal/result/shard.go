package result

import "time"

// Shard is one process's part of a run spread over many machines (--shard
// i/N): it ran the run's clients [FirstClient, FirstClient+Config.Clients)
// of RunClients, and `dbgauge merge` makes one result of the N shards.
type Shard struct {
	Index       int `json:"index"`
	Count       int `json:"count"`
	FirstClient int `json:"first_client"`
	RunClients  int `json:"run_clients"` // all shards' clients: Count × Config.Clients
	// StartAt is --start-at: the wall-clock instant every shard's first
	// phase was to begin.
	StartAt *time.Time `json:"start_at,omitempty"`
	// LateSeconds is how long after StartAt this shard's first phase
	// began (its clients were still opening, or its clock is behind).
	LateSeconds float64 `json:"late_seconds,omitempty"`
	// Clock is this machine's clock against the server's, whose clock all
	// shards share.
	Clock *Clock `json:"clock,omitempty"`
}

// Clock is a machine's clock read against the server's: Offset is the
// server's clock minus this machine's at the same instant, known within
// half the round trip of the reading it came from (the shortest of a few).
type Clock struct {
	Source   string `json:"source"` // the query, or why none
	OffsetUs int64  `json:"offset_us"`
	RTTUs    int64  `json:"rtt_us"`
	Readings int    `json:"readings"`
	Error    string `json:"error,omitempty"`
	Measured bool   `json:"measured"`
}

// Merged is a result made by `dbgauge merge` from the results of a run's
// shards: what each shard was, and how far apart they began.
type Merged struct {
	Count int `json:"count"` // the shards the run had
	// Partial: at least one shard is missing or did not complete, and the
	// merge was asked for anyway (--partial): the whole is not the run's.
	Partial bool          `json:"partial"`
	Missing []string      `json:"missing,omitempty"` // the shards left out, and why
	Shards  []MergedShard `json:"shards"`
	// StartSpreadSeconds is how far apart the shards' measure phases
	// began, by the server's clock where each shard measured its offset
	// (ClockCorrected), else by their own clocks.
	StartSpreadSeconds float64 `json:"start_spread_seconds"`
	ClockCorrected     bool    `json:"clock_corrected"`
	// Apart says, when the starts spread over more than 1 % of the measure
	// phase, that the whole is not one run's at its edges, and what to do.
	Apart string `json:"apart,omitempty"`
}

// MergedShard is one shard's own record inside a merged result.
type MergedShard struct {
	Dir         string      `json:"dir"`
	ID          string      `json:"id"`
	Index       int         `json:"index"`
	FirstClient int         `json:"first_client"`
	Clients     int         `json:"clients"`
	Status      Status      `json:"status"`
	Reason      string      `json:"reason,omitempty"`
	Command     []string    `json:"command"`
	Started     time.Time   `json:"started"`
	Ended       *time.Time  `json:"ended,omitempty"`
	Environment Environment `json:"environment"`
	Shard       Shard       `json:"shard"`
	Summary     Summary     `json:"summary"`
	Harness     *Harness    `json:"harness,omitempty"`
	Checks      []Check     `json:"checks"`
	// MeasureStart is when its measure phase began, by its own clock.
	MeasureStart time.Time `json:"measure_start"`
}

// AddCounts adds the counts of src into dst, making it when needed, and
// returns it: FailedBy and RetriedBy of seconds put together.
func AddCounts(dst, src map[string]int64) map[string]int64 {
	for k, v := range src {
		if dst == nil {
			dst = map[string]int64{}
		}
		dst[k] += v
	}
	return dst
}
