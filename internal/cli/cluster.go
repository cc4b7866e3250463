package cli

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/knob"
)

const clusterHelp = `dbgauge cluster runs a workload on a managed PostgreSQL primary with streaming
replicas (--topology none, 1, 2-direct, 2-chain; --replication async, sync,
remote_apply), and can fail it over.

  dbgauge cluster run WORKLOAD [run's flags]
      dbgauge run WORKLOAD --db postgres:managed …: each topology a cell of the
      matrix, its cost against none in the report, each replica's lag per second.
  dbgauge cluster failover WORKLOAD --at D [--pause D] [--cycles N] [run's flags]
      the same, with the primary killed D into the measure phase and the most
      advanced replica promoted (--failover at=D,pause=D), N times each: the
      write downtime, the time of each step and the acknowledged commits lost.
      --pause stops the replicas' WAL receivers that long before the kill, so
      that they lag. The measure phase lasts D + 10 s unless --duration says.

Examples:
  dbgauge cluster run nms --topology none,1,2-direct,2-chain --replication async,sync --clients 8 --duration 60s
  dbgauge cluster failover insert --topology 2-chain --replication async,sync --at 20s --pause 1s --cycles 10`

// newClusterCmd is dbgauge cluster: a front for run with a managed cluster.
// It rewrites its arguments into run's and runs them.
func newClusterCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	return &cobra.Command{
		Use:                "cluster run|failover WORKLOAD [flags]",
		Short:              "replication topologies and failover on managed PostgreSQL",
		Long:               clusterHelp,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "--help" || args[0] == "-h" {
				return cmd.Help()
			}
			runArgs, err := clusterArgs(args)
			if err != nil {
				return err
			}
			sub := *env
			sub.Args = runArgs
			return execRoot(ctx, &sub, cancel)
		},
	}
}

// clusterArgs turns cluster's arguments into run's.
func clusterArgs(args []string) ([]string, error) {
	mode := args[0]
	if mode != "run" && mode != "failover" {
		return nil, knob.Bad("use dbgauge cluster run or dbgauge cluster failover", "dbgauge cluster has no %q", mode)
	}
	if len(args) < 2 || strings.HasPrefix(args[1], "-") {
		return nil, knob.Bad("name a workload: dbgauge cluster "+mode+" insert …", "dbgauge cluster %s needs a workload", mode)
	}
	out := []string{"run", args[1]}
	var at, pause, cycles string
	hasDB, hasDuration := false, false
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		name, val, inline := strings.Cut(strings.TrimPrefix(rest[i], "--"), "=")
		take := func() (string, error) {
			if inline {
				return val, nil
			}
			if i+1 >= len(rest) {
				return "", knob.Bad("give it a value, e.g. --"+name+" 20s", "--%s has no value", name)
			}
			i++
			return rest[i], nil
		}
		var err error
		switch {
		case mode == "failover" && name == "at":
			at, err = take()
		case mode == "failover" && name == "pause":
			pause, err = take()
		case mode == "failover" && name == "cycles":
			cycles, err = take()
		default:
			hasDB = hasDB || name == "db"
			hasDuration = hasDuration || name == "duration"
			out = append(out, rest[i])
			continue
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasDB {
		out = append(out, "--db", "postgres:managed")
	}
	if mode == "run" {
		return out, nil
	}
	if at == "" {
		return nil, knob.Bad("say when the primary dies, e.g. --at 20s", "dbgauge cluster failover needs --at")
	}
	d, err := time.ParseDuration(at)
	if err != nil {
		return nil, knob.Bad("give a duration, e.g. --at 20s", "--at %q is not a duration", at)
	}
	spec := "at=" + at
	if pause != "" {
		spec += ",pause=" + pause
	}
	out = append(out, "--failover", spec)
	if !hasDuration {
		out = append(out, "--duration", (d + 10*time.Second).String())
	}
	if cycles != "" {
		out = append(out, "--repeat", cycles)
	}
	return out, nil
}
