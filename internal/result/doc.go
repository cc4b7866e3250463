// Package result is the versioned record of one run: what was asked, what the
// engine applied, the environment, every phase's metrics with full latency
// histograms, the per-second series, failures, checks and verdicts. Its JSON
// carries its version (Schema; Load reads the older ones in Readable too)
// and is described by docs/result.schema.json, which TestSchema holds to
// the types.
//
// A Result is data only. The session fills it as the run goes and a Writer
// (Create) saves it atomically at least once a second, so a crash leaves a
// readable file. Reports are pure functions of a Result, so any old result
// renders again. Beside a run's record are a shard's part of a run (Shard,
// and Merged for shards made one), a crash test's record (Crash) and a
// matrix's index (Matrix).
package result
