package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/merge"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
)

// jobIndexVar is the variable Kubernetes sets in each pod of an Indexed
// Job: its completion index, 0 to completions-1. It is Kubernetes', not
// dbgauge's: `--shard /N` reads the shard's index from it.
const jobIndexVar = "JOB_COMPLETION_INDEX"

// jobIndex fills in the index of `--shard /N` from the pod's completion
// index (deploy/kubernetes/indexed-job.yaml).
func jobIndex(values *knob.Values) error {
	s := values.Get("shard")
	if !values.IsSet("shard") || !strings.HasPrefix(s, "/") {
		return nil
	}
	i, ok := os.LookupEnv(jobIndexVar)
	if !ok || strings.TrimSpace(i) == "" {
		return knob.Bad("give the index, --shard i"+s+", or run it in a Kubernetes Indexed Job, which sets "+jobIndexVar,
			"--shard %s takes its index from %s, which is not set", s, jobIndexVar)
	}
	values.Set("shard", strings.TrimSpace(i)+s)
	return nil
}

func newMergeCmd(env *Env) *cobra.Command {
	var out string
	var partial bool
	cmd := &cobra.Command{
		Use:   "merge SHARD_DIR... --out DIR",
		Short: "make one result of the shards of a run over many machines (--shard i/N)",
		Long: `Makes one result, and its report, of the results of a run's shards, as if one
machine had run all their clients: latency histograms merged (HdrHistogram's
Merge: percentiles are never averaged), counts and rates summed, the
per-second series aligned by wall clock (the server's, where each shard
measured its offset) and summed, failures and checks combined, every shard's
environment kept, --require judged again on the whole.

It refuses shards of different runs or configurations, and names a shard
that is missing or did not complete; --partial merges the rest into a result
marked partial. See docs/many-machines.md.`,
		Example: "  dbgauge merge /shared/run1/shard-* --out /shared/run1/merged",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if out == "" {
				return knob.Bad("give the folder for the merged result, e.g. --out results/run1/merged", "--out is missing")
			}
			if _, err := os.Stat(out); err == nil {
				return knob.Bad("give a folder that does not exist yet", "--out %s exists", out)
			}
			shards := make([]merge.Shard, len(args))
			for i, dir := range args {
				shards[i].Dir = dir
				shards[i].Res, shards[i].Err = result.Load(dir)
			}
			res, err := merge.Merge(shards, merge.Options{Partial: partial, ID: filepath.Base(out), Command: append([]string{"dbgauge"}, env.Args...)})
			if err != nil {
				return err
			}
			w, err := result.Create(filepath.Dir(out), filepath.Base(out))
			if err != nil {
				return knob.Bad("give --out a folder you can write", "cannot create %s: %v", out, err)
			}
			if err := w.Save(res); err != nil {
				return err
			}
			if err := report.Summary(env.Stdout, res, w.Dir()); err != nil {
				return err
			}
			report.Shards(env.Stdout, res)
			if _, err := writeRunReport(w.Dir(), res, ""); err != nil { // a page of its own: ECharts inside
				return fmt.Errorf("write the report: %w", err)
			}
			code, why := mergeExit(res)
			return sayExit(env.Stdout, code, why)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the folder of the merged result (made; it must not exist)")
	cmd.Flags().BoolVar(&partial, "partial", false, "merge the shards that completed even when others are missing or incomplete; the result is marked partial")
	return cmd
}

// mergeExit decides dbgauge merge's exit status and says why, as a run's:
// 1 when a check of the whole failed or a requirement is not met (judged
// again on the whole), whatever else; 3 when the whole is partial (a shard
// missing or incomplete, merged anyway with --partial): not all of the run
// is in it; 0 otherwise.
func mergeExit(res *result.Result) (int, string) {
	short := ""
	if m := res.Merged; m != nil && m.Partial {
		short = fmt.Sprintf("the result is partial, %d of %d shards merged: %s", len(m.Shards), m.Count, strings.Join(m.Missing, "; "))
	}
	var failed []string
	for _, c := range res.Checks {
		if !c.OK {
			failed = append(failed, c.Name+" ("+c.Detail+")")
		}
	}
	for _, v := range res.Verdicts {
		if !v.OK {
			failed = append(failed, "--require "+v.Require+" (measured "+report.Measured(v)+")")
		}
	}
	switch {
	case len(failed) > 0:
		why := "on the whole, " + strings.Join(failed, "; ")
		if short != "" {
			why += "; besides, " + short
		}
		return ExitUnmet, why
	case short != "":
		return ExitFailed, short
	}
	return ExitOK, fmt.Sprintf("all %d shards merged; every check of the whole holds, every requirement met", len(res.Merged.Shards))
}
