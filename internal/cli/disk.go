package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/disk"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
)

func newDiskCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	var path, blocks, methods, patterns, duration, results string
	var ops int64
	var direct bool
	cmd := &cobra.Command{
		Use:   "disk [flags]",
		Short: "the physical ceiling of durable writes in a folder, and whether its device tells the truth",
		Long: `dbgauge disk rewrites a block and flushes it, over and over, as a database's log
writer does (seed 004's "synthetic log writer"), with each flushing method and
block size; then an appending variant that grows the file. It prints the rates
like pg_test_fsync, the device's facts, and what they mean in plain words, and
records it all in a result folder. Runs on a data folder use the ceiling it finds
(cached a day per device) to judge whether sync commits could be durable.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cfg := disk.Config{Dir: path, Ops: ops, Direct: direct}
			var err error
			if cfg.Blocks, err = disk.ParseBlocks(blocks); err != nil {
				return err
			}
			if cfg.Methods, err = disk.ParseMethods(methods); err != nil {
				return err
			}
			if cfg.Patterns, err = disk.ParsePatterns(patterns); err != nil {
				return err
			}
			if ops == 0 {
				if cfg.Duration, err = knob.ParseDuration(duration); err != nil || cfg.Duration <= 0 {
					return knob.Bad("give a duration with its unit, e.g. --duration 5s", "--duration %q is not a duration", duration)
				}
			} else if ops < 0 {
				return knob.Bad("give a number of operations ≥ 1", "--ops %d", ops)
			}
			return probe(ctx, env, cancel, session.DiskRequest{Probe: cfg, Results: results, Args: append([]string{"dbgauge"}, env.Args...)})
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&path, "path", ".", "the folder to probe (its device is what is measured)")
	f.StringVar(&blocks, "block", "8k", "block sizes, e.g. 512,4k,8k,16k")
	f.StringVar(&methods, "method", "fdatasync,fsync,odsync,osync,none", "how writes are made durable: fdatasync, fsync, odsync (O_DSYNC), osync (O_SYNC), none")
	f.StringVar(&patterns, "pattern", "rewrite,append", "rewrite one block at a fixed offset, and/or append (the file grows)")
	f.StringVar(&duration, "duration", "2s", "time per test")
	f.Int64Var(&ops, "ops", 0, "operations per test, instead of a duration")
	f.BoolVar(&direct, "direct", false, "open with O_DIRECT, bypassing the page cache (block sizes in multiples of 512)")
	f.StringVar(&results, "results", "results", "folder that receives the result folder")
	return cmd
}

func probe(ctx context.Context, env *Env, cancel context.CancelFunc, req session.DiskRequest) error {
	stop, interrupted, release := watchSignals(env, cancel, nil)
	defer release()
	headed := false
	res, dir, err := session.ProbeDisk(ctx, req, stop, func(r *result.Result, c result.DiskCell) {
		if !headed {
			report.DiskHeader(env.Stdout, r)
			headed = true
		}
		report.DiskCell(env.Stdout, r, c)
	})
	var bad *knob.Error
	if errors.As(err, &bad) || res == nil {
		return err
	}
	if !headed {
		report.DiskHeader(env.Stdout, res)
	}
	report.DiskFooter(env.Stdout, res, dir)
	switch {
	case err != nil:
		return exitError{ExitFailed, fmt.Sprintf("%v (what was measured is in %s)", err, dir)}
	case interrupted():
		return exitError{ExitInterrupted, "interrupted: what was measured is in " + dir}
	}
	return nil
}
