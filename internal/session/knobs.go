package session

import (
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
)

// The --db knob lists every backend's forms, from the catalog.
func init() {
	var forms []string
	for _, b := range catalog.Backends() {
		forms = append(forms, b.Forms...)
	}
	for i := range Knobs {
		switch Knobs[i].Name {
		case "db":
			Knobs[i].Usage = "the engine:\n" + strings.Join(forms, "\n")
		case "backup":
			Knobs[i].Usage = strings.Replace(Knobs[i].Usage, "(ENGINES)", "("+engines(func(b backend.Spec) bool { return b.Has(backend.OnlineBackup) })+")", 1)
		}
	}
}

// Knobs are the knobs every workload takes. Each is mapped per backend where
// the backend has something to map (see `dbgauge list` and docs/knobs.md).
var Knobs = []knob.Spec{
	{Name: "db", Default: "sqlite", Values: "URL", Uses: knob.ForLoad | knob.ForCheck, Usage: "the engine (the list is made from the catalog)"},
	{Name: "api", Default: "auto", Kind: knob.Choice, Choices: []string{"auto", "sql", "kv"}, Uses: knob.ForLoad | knob.ForCheck, Usage: "speak SQL or key-value to the engine; kv on a SQL engine goes through its kv_ tables"},
	{Name: result.ClientsKnob, Short: "c", Default: "1", Kind: knob.Int, Usage: "concurrent clients, each with its own connection, opened before the clock starts"},
	{Name: "concurrency", Kind: knob.Int, Usage: "the same as --clients (zodbshootout's word); give one of them"},
	{Name: "warmup", Default: "2s", Values: "DURATION|auto[:MAX]", Usage: "warm-up, measured and then discarded (0 when --units ends the run, unless given); auto: until the rate settles (its last two 10 s within 2 % or their noise), at most MAX (5m)"},
	{Name: "duration", Short: "T", Default: "10s", Kind: knob.Duration, Usage: "length of the measure phase (ignored when only --units is given)"},
	{Name: "units", Default: "0", Kind: knob.Int, Usage: "end the measure phase after N units of work in all, instead of a duration"},
	{Name: "transactions", Short: "t", Default: "0", Kind: knob.Int, Usage: "end the measure phase when each client has run N units, as pgbench -t (N × clients in all)"},
	{Name: "rate", Short: "R", Default: "0", Kind: knob.Number, Usage: "open loop: start R units per second in all; latency counts from the intended start (0 = closed loop)"},
	{Name: "profile", Values: "PHASE[; PHASE…]", Single: true, Usage: "open loop: the rate of starts over time, from the start of the measure phase, which lasts as long as it; phases joined by \";\": constant R/s D, ramp A..B/s over D, steps A,B,…/s each D, spike R/s D, each optionally with mix KIND=W,… (e.g. 'constant 1000/s 10m; spike 5000/s 30s; constant 1000/s 5m'); the warm-up runs at its first rate; latency counts from the intended start"},
	{Name: "arrivals", Default: "uniform", Kind: knob.Choice, Choices: []string{"uniform", "poisson"}, Usage: "open loop (--rate, --profile, --slo): starts evenly spaced, or arriving as a Poisson process of the same rate (exponential gaps, as independent users)"},
	{Name: "slo", Values: `"METRIC OP VALUE"`, Repeat: true, Single: true, Usage: `a goal that makes the run a capacity search (dbgauge capacity): "p99<20ms", "p99.9<=50ms", "errors<0.1%" (repeatable); after a closed-loop warm-up, steps of an open loop raise the rate until a goal breaks, then bisect`},
	{Name: "step", Default: "20s", Kind: knob.Duration, Usage: "capacity search: each step's length, its first quarter left out of its judgement"},
	{Name: "first-rate", Default: "0", Kind: knob.Number, Usage: "capacity search: the first step's rate (0: half the warm-up's closed-loop rate)"},
	{Name: "resolution", Default: "5%", Values: "PCT", Usage: "capacity search: bisect until the rate that broke is within this much of the rate that held"},
	{Name: "durability", Default: "sync", Kind: knob.Choice, Choices: names(backend.Sync, backend.Lazy, backend.Off), Uses: knob.ForLoad, Usage: "flush at every commit, flush in the background, or never flush"},
	{Name: "isolation", Default: string(backend.DefaultIsolation), Kind: knob.Choice, Choices: names(append([]backend.Isolation{backend.DefaultIsolation}, backend.Isolations...)...), Usage: "the isolation level of every client's transactions: the engine's default, or a SQL standard level mapped per engine (dbgauge list) and read back from the engine; a level the engine lacks is refused"},
	{Name: "commit", Default: "unit", Values: "op|unit|every:N", Usage: "commit every operation, every unit, or every N units"},
	{Name: "prepare", Default: "once", Kind: knob.Choice, Choices: names(backend.Once, backend.Each), Usage: "prepare statements once per connection, or at every use"},
	{Name: "set", Values: "key=value", Repeat: true, Uses: knob.ForLoad | knob.ForCheck, Usage: "a raw engine setting (repeatable); read back and recorded"},
	{Name: "require", Values: `"METRIC OP VALUE"`, Repeat: true, Single: true, Usage: `a requirement, e.g. "calls/s>=16", "p99<=20ms" or "steady" (the measure phase held level; repeatable); exit 1 when unmet`},
	{Name: "retries", Default: "10", Kind: knob.Int, Usage: "retries of a unit after a retryable error (busy, deadlock, serialization)"},
	{Name: "seed", Kind: knob.Int, Uses: knob.ForLoad, Usage: "random seed (default: from the clock); recorded in the result"},
	{Name: "progress", Short: "P", Default: "1", Kind: knob.Int, Single: true, Uses: knob.ForLoad,
		Usage: "a progress line every N seconds, as pgbench -P and sysbench --report-interval (a run's rate and latency average, sd, p99; a load's pace and time left); 0: none"},
	{Name: "interval", Default: "1s", Kind: knob.Duration, Usage: "resolution of the series, the dynamic report (OLTP-EMUL's is 1m); percentiles are exact per interval"},
	{Name: "log-units", Kind: knob.Switch, Usage: "write every unit (start, client, kind, latency, outcome, engine code) to units.csv.gz in the result folder"},
	{Name: "stop-file", Values: "PATH", Single: true, Usage: "end the run cleanly when this file appears"},
	{Name: "shard", Values: "i/N", Single: true, Usage: "run shard i (from 0) of a run over N processes or machines: this one runs clients [i·C, (i+1)·C) of N·C (C: --clients), seeded as one process would; shard 0 loads, the others wait for it; results in --results/shard-i for dbgauge merge; --shard /N takes i from JOB_COMPLETION_INDEX, which a Kubernetes Indexed Job sets (docs/many-machines.md)"},
	{Name: "start-at", Values: "TIME|file:PATH", Single: true, Usage: "begin the warm-up at this wall-clock instant (RFC 3339, e.g. 2026-12-01T10:00:00Z), once the clients are open: shards begin together; file:PATH: once the clients are open, write ready-shard-i in --results and wait for PATH to hold the instant (a coordinator writes it when every shard is ready)"},
	{Name: "shard-wait", Default: "1h", Kind: knob.Duration, Single: true, Usage: "how long a shard waits for shard 0's load (its dataset-loaded in --results) and, with --start-at file:PATH, for the start time, before it gives up and says what it waited for; raise it for a load that takes longer"},
	{Name: "results", Default: "results", Values: "DIR", Single: true, Usage: "folder that receives the result folder of each run"},
	{Name: "backup", Values: "at=D[,to=D]", Single: true, Usage: "take the engine's own online backup D into the measure phase (ENGINES); to=D: also restore it rolled forward to D into the measure phase (PostgreSQL)"},
	{Name: "failover", Values: "at=D[,pause=D]", Single: true, Usage: "with --topology: kill the primary D into the measure phase and promote a replica; pause=D cuts the primary off from its replicas that long before (a network partition; ZRS: its secondaries stopped), so that they lag"},
	{Name: "fault", Values: "kill-at=D[,node=NODE]|pause-at=D,for=P|partition=A[|B]@D[,heal@H]|loss=NODE:PCT%@D[,heal@H]|delay=NODE:T@D[,heal@H]", Single: true, Usage: "managed servers: kill the server (SIGKILL to its processes; node=: a cluster's server by name, primary, r1, node3, or etcd's member that has that role then, leader or follower) D into the measure phase and restart it on its data; the clients reconnect, and the result gives the outage, the recovery, the rate before and after, and the acknowledged commits lost; pause-at=D,for=P: stop the server's processes (SIGSTOP) for P, a stall, then let them go on; partition=, loss=, delay=: a fault of a cluster's own network (as root: each server in a network namespace), made D into the measure phase and undone at H (else at the run's end): nodes A (joined by +) cut off from B or from every other node, a share of a node's packets dropped, or its packets delayed (tc netem, where the kernel has it)"},
	{Name: "reconnect", Default: "5s", Kind: knob.Duration, Usage: "how long clients keep reconnecting while the engine answers nothing (a restart, a failover) before the run fails; each outage is measured"},
	{Name: "restore-check", Kind: knob.Switch, Default: "true", Usage: "after --backup: restore the backup into a fresh instance and check it against the commits acknowledged (--restore-check=false skips it)"},
	{Name: "crash-recovery", Kind: knob.Switch, Default: "true", Usage: "managed servers: after the run, kill the server with SIGKILL and time its crash recovery; its shut-down is then timed after recovery (--crash-recovery=false: straight after the load)"},
	{Name: "telemetry", Default: "on", Kind: knob.Choice, Choices: []string{"on", "off"}, Usage: "the machine's and the engine's side of every second (the data folder's device, the CPUs, the engine's counters and waits); off measures the run without it (a list makes an axis: its own cost)"},
	{Name: "ceiling", Default: "auto", Kind: knob.Choice, Choices: []string{"auto", "off"}, Usage: "probe the data folder's flush ceiling (cached a day per device) to judge whether sync commits were physically durable"},
	{Name: "data-dir", Values: "DIR", Usage: "where the engine's files go (the embedded file, a managed server's data folder): a folder of the run's own inside DIR, removed after it; DIR's device and flush ceiling are recorded"},
	{Name: "cache", Kind: knob.Size, Uses: knob.ForLoad, Usage: "the engine's own cache, e.g. 256MB, 64KiB, 1GiB (KB, MB, GB are powers of 1024): mapped per engine, read back, recorded in bytes"},
	{Name: "page-size", Kind: knob.Size, Uses: knob.ForLoad, Usage: "the engine's page size, applied when the database is created and read back (engines that have one)"},
	{Name: "server-memory", Kind: knob.Size, Uses: knob.ForLoad, Usage: "managed servers: run the server in a memory cgroup of its own with this limit, the OS page cache its reads bring in included (root; cgroup v1 or v2), e.g. 512MB; read back and recorded"},
	{Name: "cpus", Values: "server=LIST,harness=LIST", Single: true, Usage: "place a managed server and dbgauge's own process on CPU lists (as taskset does), e.g. server=0,harness=1 or server=0-2,harness=3; either part alone; read back and recorded. Without it the kernel places both"},
	{Name: "dataset", Values: "Nx", Usage: "size the data as N times the engine's cache (--cache, read back), e.g. 0.25x, 1x, 4x; with --dataset-of ram, of the machine's memory; the size reached is recorded (kv; replaces --records)"},
	{Name: "dataset-of", Default: "cache", Kind: knob.Choice, Choices: []string{"cache", "ram"}, Usage: "what --dataset multiplies: the engine's cache, or the machine's memory"},
	// A matrix: any other knob given a comma list (--clients 1,8,64) is an axis.
	{Name: "repeat", Default: "1", Kind: knob.Int, Single: true, Usage: "run every cell N times, for the mean, its 95 % interval and the noise"},
	{Name: "shuffle", Kind: knob.Switch, Single: true, Usage: "run the cells of a matrix in a random order (its random seed is recorded)"},
	{Name: "resume", Values: "DIR", Single: true, Usage: "finish an interrupted matrix: run only the cells of DIR without a completed result"},
	{Name: "reuse-data", Kind: knob.Switch, Single: true, Usage: "let the cells of a matrix share one embedded database instead of a fresh one each"},
	{Name: "keep-data", Kind: knob.Switch, Single: true, Usage: "keep each matrix cell's embedded database in the cell's folder (by default a matrix of embedded engines removes it after the cell, keeping the results)"},
}

// MatrixKnobs are the knobs of the matrix itself, never passed to a cell.
var MatrixKnobs = []string{"repeat", "shuffle", "resume", "reuse-data", "keep-data"}

// names spells an enumeration's values as its knob's choices.
func names[T ~string](vs ...T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}
