// Package session runs one session: it validates a request into a Plan, then
// opens the backend, applies the settings, loads the data, runs the phases,
// runs the checks, judges the requirements and records it all in a result
// that is saved as the run goes.
//
// # Plan, then Execute
//
// NewPlan reads a Request (the workload, its knobs as knob.Values, the
// command line) into a Plan, refusing bad input before anything runs: every
// knob is checked, the engine's options are built once (Plan.Options, which
// dbgauge crash reuses), the workload is made, and a server of the user's is
// looked at (Spec.Preflight). Execute then runs the fixed pipeline of phases
// (session.go): open the engine and read it back, load, warm up and measure,
// check, judge, record; LoadOnly and CheckOnly run parts of it for dbgauge
// load and dbgauge check.
//
// # Extensions
//
// Everything else a run does is an extension (extension.go), one file each,
// which implements only the hooks of the phases it takes part in: the flush
// ceiling and durability verdict, the settings changed on a server of the
// user's, --dataset, cold caches, --backup, a cluster and --failover,
// --fault, --log-units, series.csv and latency.hlog, dbgauge's own cost, the
// crash-recovery timing, the server's log, sharding, a script's debug lines.
// TestExtensionHooks holds every extension to the hooks the session calls;
// an extension kills a managed server only through crashOnPurpose.
//
// An Observer hears the run as it goes (notes, the result as it starts,
// each second); only cli prints it.
package session
