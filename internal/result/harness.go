package result

// Harness is what dbgauge's own process used during the measure phase, so
// that a reader can tell whether the harness, not the engine, was the limit:
// its CPU (user and system time of every thread) and its resident memory,
// sampled each second. Where the engine runs inside dbgauge (InProcess:
// SQLite, bbolt, …), the CPU is the engine's too.
type Harness struct {
	Clients    int  `json:"clients"`
	GoMaxProcs int  `json:"gomaxprocs"` // threads running Go code at once
	InProcess  bool `json:"in_process"` // the engine runs inside dbgauge
	// Note says what dbgauge set in its own runtime for this run, and why.
	Note          string  `json:"note,omitempty"`
	Seconds       float64 `json:"seconds"`        // the measure phase's wall time
	UserSeconds   float64 `json:"user_seconds"`   // CPU in user space
	SystemSeconds float64 `json:"system_seconds"` // CPU in the kernel on dbgauge's behalf
	// CPUPerUnitUs is (user + system) ÷ successful units, in microseconds.
	CPUPerUnitUs float64 `json:"cpu_per_unit_us"`
	// ContextSwitchesPerUnit is the process's context switches (voluntary
	// and not, getrusage) ÷ successful units.
	ContextSwitchesPerUnit float64 `json:"context_switches_per_unit"`
	// AllocsPerUnit is the Go heap allocations (runtime/metrics) ÷
	// successful units: with the CPU, what the harness adds to each unit
	// beyond its driver's calls (bench/vs-floor.sh puts them beside a bare
	// driver loop's).
	AllocsPerUnit float64 `json:"allocs_per_unit"`
	// AllocBytesPerUnit is the bytes of those allocations ÷ successful units.
	AllocBytesPerUnit float64 `json:"alloc_bytes_per_unit"`
	// Cores is (user + system) ÷ wall time: 1 is one core kept busy.
	Cores        float64 `json:"cores"`
	RSSPeakBytes int64   `json:"rss_peak_bytes"` // the largest resident set seen
	// AnonPeakBytes is the largest anonymous part of it (resident − shared):
	// the memory dbgauge takes from the machine. The rest is files mapped
	// in, which the kernel can drop and shares: the program itself (~30 MB),
	// and SQLite's database file when mmap_size is set, counted once per
	// connection that maps it.
	AnonPeakBytes int64 `json:"anon_peak_bytes"`
	// EngineBytes is what an engine inside dbgauge had allocated itself at
	// that moment (SQLite's page caches: sqlite3_memory_used); 0 elsewhere.
	EngineBytes       int64 `json:"engine_bytes,omitempty"`
	RSSPerClientBytes int64 `json:"rss_per_client_bytes"` // (AnonPeakBytes − EngineBytes) ÷ clients
	Goroutines        int   `json:"goroutines"`           // at the peak's sample
	GOGC              int   `json:"gogc"`                 // the garbage collector's target, % of the live heap

	// CPUs is the CPUs dbgauge's threads may run on, read back from the
	// kernel (sched_getaffinity); CPUCount how many. Placed says --cpus
	// harness=… put it there; else they are all the machine lets it use.
	CPUs     string `json:"cpus,omitempty"`
	CPUCount int    `json:"cpu_count,omitempty"`
	Placed   bool   `json:"placed,omitempty"`
	// CPUsBusy is how many of those CPUs were kept busy over the measure
	// phase, by any process (from /proc/stat): 1 is one CPU busy all the time.
	CPUsBusy float64 `json:"cpus_busy,omitempty"`
	// MachineCPUs is how many CPUs the machine has online, MachineBusy how
	// many of them were kept busy over the measure phase, by any process.
	MachineCPUs int     `json:"machine_cpus,omitempty"`
	MachineBusy float64 `json:"machine_busy,omitempty"`
	// Share is Cores ÷ MachineCPUs: dbgauge's share of the machine.
	Share float64 `json:"machine_share,omitempty"`
	// Limit says whether the harness could have been the limit of the run:
	// "yes" (it kept the CPUs it may use busy), "maybe" (it took more than a
	// quarter of a machine whose CPUs were all busy, the server's among
	// them), "no"; Verdict says why in one line, and what to do about it.
	Limit   string `json:"limit,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// Worker is what the engine's worker processes used over the phase,
	// where dbgauge drives the engine through workers of its own (ZODB's
	// Python worker); nil elsewhere.
	Worker *WorkerCost `json:"worker,omitempty"`
}

// WorkerCost is the CPU time of the worker processes through which dbgauge
// drives an engine without a Go client, as each worker reports its own
// (Python's time.process_time: all its threads), over the measure phase.
type WorkerCost struct {
	Seconds  float64 `json:"seconds"`  // CPU time, user and system
	Requests int64   `json:"requests"` // requests the workers answered
	Cores    float64 `json:"cores"`    // Seconds ÷ the phase's wall time
	// CPUPerRequestUs is Seconds ÷ Requests, CPUPerUnitUs Seconds ÷
	// successful units, in microseconds.
	CPUPerRequestUs float64 `json:"cpu_per_request_us"`
	CPUPerUnitUs    float64 `json:"cpu_per_unit_us"`
}

// The values of Harness.Limit, which verdict.Harness gives and the reports
// colour.
const (
	LimitYes   = "yes"   // the harness kept the CPUs it may use busy: it is the limit
	LimitMaybe = "maybe" // it took more than a quarter of busy CPUs: it could be
	LimitNo    = "no"    // it is not
)

// ServerCPU is what a managed server's processes used during the measure
// phase (user and system time of the main process and every process below
// it, those that exited included): beside Harness, it shows which side of
// the connection the time went to.
type ServerCPU struct {
	Seconds      float64 `json:"cpu_seconds"`
	Cores        float64 `json:"cores"`           // Seconds ÷ the phase's wall time
	CPUPerUnitUs float64 `json:"cpu_per_unit_us"` // Seconds ÷ successful units, in µs
	Processes    int     `json:"processes"`       // the server's processes at the end
	// CPUCount is how many CPUs the server may run on (--cpus server=…, or
	// the machine's), CPUsBusy how many of them were kept busy over the
	// measure phase, by any process (from /proc/stat).
	CPUCount int     `json:"cpu_count,omitempty"`
	CPUsBusy float64 `json:"cpus_busy,omitempty"`
}
