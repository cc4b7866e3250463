package cli

import (
	"context"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/workload"
)

const clusterHelp = `dbgauge cluster runs a workload on a managed PostgreSQL primary with streaming
replicas (--topology none, 1, 2-direct, 2-chain; --replication async, sync,
remote_apply), with --db mariadb:managed on a MariaDB primary and its GTID
replicas (--replication async, semi-sync), or with --db zrs:managed on a ZRS
primary and its secondaries, and can fail it over. It is dbgauge run with
--db postgres:managed by default.

  dbgauge cluster run WORKLOAD [flags]
      each topology a cell of the matrix, its cost against none in the report,
      each replica's lag per second.
  dbgauge cluster failover WORKLOAD --at D [--pause D] [--cycles N] [flags]
      the same, with the primary killed D into the measure phase and the most
      advanced replica promoted, N times each: the write downtime, the time of
      each step and the acknowledged commits lost.`

// clusterModes are each cluster command's short help, long help and examples.
var clusterModes = map[string][3]string{
	"run": {"run a workload on a managed PostgreSQL, MariaDB or ZRS primary and its replicas",
		`dbgauge cluster run WORKLOAD is dbgauge run WORKLOAD --db postgres:managed: give
--topology and --replication lists and each combination is a cell of a matrix,
its cost against none in the report, each replica's lag per second.
dbgauge cluster run WORKLOAD --help lists every flag.`,
		"  dbgauge cluster run nms --topology none,1,2-direct,2-chain --replication async,sync --clients 8 --duration 60s\n" +
			"  dbgauge cluster run nms --db mariadb:managed --topology none,1,2-direct,2-chain --replication async,semi-sync\n" +
			"  dbgauge cluster run objects --db zrs:managed --topology none,1,2-direct,2-chain"},
	"failover": {"kill a managed PostgreSQL, MariaDB or ZRS primary under a workload and promote a replica",
		`dbgauge cluster failover WORKLOAD runs WORKLOAD on a managed PostgreSQL primary
(or --db mariadb:managed, zrs:managed) with replicas (--topology), kills the primary --at D into the measure phase and
promotes the most advanced replica; the result gives the write downtime, the time
of each step and the acknowledged commits lost.

  --at D       when the primary dies (required)
  --pause D    cut the primary off from its replicas this long before, so that they lag
  --cycles N   failovers of each configuration, each on a fresh cluster
  --duration D the measure phase (default: --at plus 10s)

Every flag of dbgauge run is taken too: dbgauge cluster failover WORKLOAD --help
lists them all.`,
		"  dbgauge cluster failover insert --topology 2-chain --replication async,sync --at 20s --pause 1s --cycles 10\n" +
			"  dbgauge cluster failover insert --db mariadb:managed --topology 2-direct --replication async,semi-sync --at 20s --pause 2s --cycles 10\n" +
			"  dbgauge cluster failover insert --db zrs:managed --topology 2-direct --at 20s"},
}

const clusterExamples = `  dbgauge cluster run nms --topology none,1,2-direct,2-chain --replication async,sync --clients 8 --duration 60s
  dbgauge cluster failover insert --topology 2-chain --replication async,sync --at 20s --pause 1s --cycles 10
  dbgauge cluster failover insert --db mariadb:managed --topology 2-direct --replication async,semi-sync --at 20s --pause 2s
  dbgauge cluster failover insert --db zrs:managed --topology 2-direct --at 20s`

// failoverKnobs are cluster failover's own knobs; it turns them into run's
// --failover, --duration and --repeat.
var failoverKnobs = []knob.Spec{
	{Name: "at", Kind: knob.Duration, Single: true, Usage: "kill the primary this long into the measure phase (required)"},
	{Name: "pause", Kind: knob.Duration, Single: true, Usage: "cut the primary off from its replicas this long before the kill (a network partition; ZRS: its secondaries stopped), so that they lag"},
	{Name: "cycles", Kind: knob.Int, Default: "1", Single: true, Usage: "failovers of each configuration, each on a fresh cluster"},
}

// newClusterCmd is dbgauge cluster: a front for run with a managed cluster.
// Each workload's command binds run's flags and runs the run they make.
func newClusterCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "cluster run|failover WORKLOAD [flags]",
		Short:   "replication topologies and failover on managed PostgreSQL and ZRS",
		Long:    clusterHelp,
		Example: clusterExamples,
		Args:    parentArgs("use dbgauge cluster run or dbgauge cluster failover"),
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	for _, mode := range []string{"run", "failover"} {
		sub := workloadParent(env, mode+" WORKLOAD [flags]", clusterModes[mode][0])
		sub.Long, sub.Example = clusterModes[mode][1], clusterModes[mode][2]
		for _, spec := range catalog.Workloads() {
			sub.AddCommand(newClusterWorkloadCmd(ctx, env, cancel, mode, spec))
		}
		cmd.AddCommand(sub)
	}
	return cmd
}

// clusterKnobs are the knobs of cluster MODE WORKLOAD: run's, --db a
// managed PostgreSQL unless given; failover's own in place of --failover
// and --repeat.
func clusterKnobs(mode string, spec workload.Spec) []knob.Spec {
	knobs := runKnobs(spec)
	for i, k := range knobs {
		switch {
		case k.Name == "db":
			knobs[i].Default = "postgres:managed"
		case k.Name == "duration" && mode == "failover":
			knobs[i].Default, knobs[i].Usage = "", "length of the measure phase (default: --at plus 10s)"
		}
	}
	if mode == "run" {
		return knobs
	}
	knobs = slices.DeleteFunc(knobs, func(k knob.Spec) bool { return k.Name == "failover" || k.Name == "repeat" })
	return slices.Concat(failoverKnobs, knobs)
}

func newClusterWorkloadCmd(ctx context.Context, env *Env, cancel context.CancelFunc, mode string, spec workload.Spec) *cobra.Command {
	cmd := &cobra.Command{
		Use:   spec.Name + " [flags]",
		Short: spec.Summary,
		Long:  "dbgauge cluster " + mode + " " + spec.Name + ": " + spec.Summary + ", on a managed PostgreSQL (or --db mariadb:managed, MariaDB; --db zrs:managed, ZRS) cluster.\n\n" + listHelp,
		Args:  flagsOnly("--topology 1"),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	bind(fs, clusterKnobs(mode, spec))
	cmd.RunE = func(*cobra.Command, []string) error {
		args, err := clusterRun(mode, spec.Name, given(fs, env.Args))
		if err != nil {
			return err
		}
		sub := *env
		sub.Args = args
		return execRoot(ctx, &sub, cancel)
	}
	return cmd
}

// clusterRun turns cluster's knobs into run's arguments.
func clusterRun(mode, name string, knobs []matrix.Knob) ([]string, error) {
	own := knob.NewValues(failoverKnobs)
	var rest []matrix.Knob
	hasDB, hasDuration := false, false
	for _, k := range knobs {
		if mode == "failover" && slices.ContainsFunc(failoverKnobs, func(s knob.Spec) bool { return s.Name == k.Name }) {
			own.Set(k.Name, k.Value)
			continue
		}
		hasDB = hasDB || k.Name == "db"
		hasDuration = hasDuration || k.Name == "duration"
		rest = append(rest, k)
	}
	out := slices.Concat([]string{"run", name}, matrix.Flags(rest))
	if !hasDB {
		out = append(out, "--db=postgres:managed")
	}
	if mode == "run" {
		return out, nil
	}
	if !own.IsSet("at") {
		return nil, knob.Bad("say when the primary dies, e.g. --at 20s", "dbgauge cluster failover needs --at")
	}
	at, err := own.Duration("at")
	if err != nil {
		return nil, err
	}
	failover := "at=" + own.Get("at")
	if own.IsSet("pause") {
		if _, err := own.Duration("pause"); err != nil {
			return nil, err
		}
		failover += ",pause=" + own.Get("pause")
	}
	cycles, err := own.Int("cycles", 1, 10_000)
	if err != nil {
		return nil, err
	}
	out = append(out, "--failover="+failover)
	if !hasDuration {
		out = append(out, "--duration="+(at+10*time.Second).String())
	}
	if cycles > 1 {
		out = append(out, "--repeat="+own.Get("cycles"))
	}
	return out, nil
}
