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

// diskKnobs are dbgauge disk's knobs.
var diskKnobs = []knob.Spec{
	{Name: "path", Values: "DIR", Default: ".", Single: true, Usage: "the folder to probe (its device is what is measured)"},
	{Name: "block", Values: "SIZE,...", Default: "8k", Single: true, Usage: "block sizes, e.g. 512,4k,8k,16k"},
	{Name: "method", Values: "fdatasync|fsync|odsync|osync|none,...", Default: "fdatasync,fsync,odsync,osync,none", Single: true,
		Usage: "how writes are made durable: fdatasync, fsync, odsync (O_DSYNC), osync (O_SYNC), none"},
	{Name: "pattern", Values: "rewrite|append,...", Default: "rewrite,append", Single: true, Usage: "rewrite one block at a fixed offset, and/or append (the file grows)"},
	{Name: "duration", Kind: knob.Duration, Default: "2s", Single: true, Usage: "time per test"},
	{Name: "ops", Kind: knob.Int, Default: "0", Single: true, Usage: "operations per test, instead of a duration (0: --duration)"},
	{Name: "direct", Kind: knob.Switch, Usage: "open with O_DIRECT, bypassing the page cache (block sizes in multiples of 512)"},
	{Name: "results", Values: "DIR", Default: "results", Single: true, Usage: "folder that receives the result folder"},
}

func newDiskCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "disk [flags]",
		Short: "the physical ceiling of durable writes in a folder, and whether its device tells the truth",
		Long: `dbgauge disk rewrites a block and flushes it, over and over, as a database's log
writer does (the "synthetic log writer" of the SAP DB commit test), with each
flushing method and block size; then an appending variant that grows the file.
It prints the rates like pg_test_fsync, the device's facts, and what they mean in
plain words, and records it all in a result folder. Runs on a data folder use the
ceiling it finds (cached a day per device) to judge whether sync commits could be
durable.`,
		Args: cobra.NoArgs,
	}
	f := cmd.Flags()
	f.SortFlags = false
	bind(f, diskKnobs)
	cmd.RunE = func(*cobra.Command, []string) error {
		v := knob.NewValues(diskKnobs)
		setValues(f, v)
		ops, err := v.Int("ops", 0, 1<<40)
		if err != nil {
			return err
		}
		direct, err := v.Bool("direct")
		if err != nil {
			return err
		}
		cfg := disk.Config{Dir: v.Get("path"), Ops: ops, Direct: direct}
		if cfg.Blocks, err = disk.ParseBlocks(v.Get("block")); err != nil {
			return err
		}
		if cfg.Methods, err = disk.ParseMethods(v.Get("method")); err != nil {
			return err
		}
		if cfg.Patterns, err = disk.ParsePatterns(v.Get("pattern")); err != nil {
			return err
		}
		if cfg.Duration, err = v.Duration("duration"); err != nil {
			return err
		}
		if ops == 0 && cfg.Duration <= 0 {
			return knob.Bad("give a duration with its unit, e.g. --duration 5s", "--duration %s is no time to measure", v.Get("duration"))
		}
		return probe(ctx, env, cancel, session.DiskRequest{Probe: cfg, Results: v.Get("results"), Args: append([]string{"dbgauge"}, env.Args...)})
	}
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
	code, why := diskExit(res.Disk.Cells, err, interrupted(), dir)
	return sayExit(env.Stdout, code, why)
}

// diskExit decides dbgauge disk's exit status and says why: 3 when the probe
// failed or any of its cells did (every cell failing gives no ceiling at
// all, which is never a success), 0 when every cell was measured.
func diskExit(cells []result.DiskCell, err error, interrupted bool, dir string) (int, string) {
	var failed []result.DiskCell
	for _, c := range cells {
		if c.Error != "" {
			failed = append(failed, c)
		}
	}
	switch {
	case err != nil:
		return ExitFailed, fmt.Sprintf("%v (what was measured is in %s)", err, dir)
	case interrupted:
		return ExitInterrupted, fmt.Sprintf("interrupted after %s: what was measured is in %s", nOf(len(cells), "cell"), dir)
	case len(cells) == 0:
		return ExitFailed, "no cell was measured"
	case len(failed) == len(cells):
		return ExitFailed, fmt.Sprintf("every cell failed (%d of %d), so there is no ceiling: %s", len(failed), len(cells), cellError(failed[0]))
	case len(failed) > 0:
		return ExitFailed, fmt.Sprintf("%d of %s failed, the ceiling is the others': %s", len(failed), nOf(len(cells), "cell"), cellError(failed[0]))
	}
	return ExitOK, "all " + nOf(len(cells), "cell") + " measured"
}

// cellError names a failed cell and its error: "8KiB fsync rewrite: write …: no space left on device".
func cellError(c result.DiskCell) string {
	direct := ""
	if c.Direct {
		direct = " O_DIRECT"
	}
	return fmt.Sprintf("%d-byte %s%s %s: %s", c.Block, c.Method, direct, c.Pattern, c.Error)
}
