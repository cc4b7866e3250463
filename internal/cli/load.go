package cli

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
)

func newLoadCmd(ctx context.Context, env *Env) *cobra.Command {
	cmd := workloadParent(env, "load WORKLOAD [flags]", "load a workload's dataset only (batched, parallel), for later runs to reuse")
	for _, spec := range catalog.Workloads() {
		cmd.AddCommand(newLoadWorkloadCmd(ctx, env, spec))
	}
	return cmd
}

func newLoadWorkloadCmd(ctx context.Context, env *Env, spec workload.Spec) *cobra.Command {
	values := session.NewValues(spec)
	cmd := &cobra.Command{
		Use:   spec.Name + " [flags]",
		Short: "load " + spec.Name + "'s dataset into --db",
		Long: "Loads " + spec.Name + "'s dataset into --db (a path or a server of yours: sqlite:PATH, bbolt:PATH, postgres://…) and\n" +
			"reports the time it took; a run with the same --db and dataset knobs reuses it. With postgres:managed\n" +
			"the load is timed and the throwaway server removed.",
		Args: flagsOnly("--db sqlite:/data/kv.db"),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	bindOne(fs, knobsFor(spec, knob.ForLoad))
	bindOne(fs, slices.DeleteFunc(slices.Clone(outputKnobs), func(k knob.Spec) bool { return !k.UsedBy(knob.ForLoad) }))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		show, err := readOutput(fs)
		if err != nil {
			return err
		}
		setValues(fs, values)
		every, err := values.Int("progress", 0, 86400)
		if err != nil {
			return err
		}
		for _, k := range given(fs, env.Args) {
			if strings.Contains(k.Value, ",") && !single(spec)(k.Name) && k.Name != "set" {
				return knob.Bad("give one value: a load fills one dataset", "--%s %s: dbgauge load takes no lists", k.Name, k.Value)
			}
		}
		if !fs.Changed("seed") {
			values.Set("seed", "1") // the dataset's bytes do not depend on the day
		}
		plan, err := session.NewPlan(session.Request{Workload: spec, Values: values, Args: append([]string{"dbgauge"}, env.Args...)})
		if err != nil {
			return err
		}
		p := &progress{env: env, out: show, every: time.Duration(every) * time.Second}
		out, err := plan.LoadOnly(ctx, func(done, total int64) { p.Work("loading", done, total) }, p.Note)
		p.clear()
		if err != nil {
			return err
		}
		verb := "loaded"
		if out.Dataset.Reused {
			verb = "reused (it matches; nothing loaded)"
		}
		fmt.Fprintf(env.Stdout, "%s on %s %s: %s in %.1f s", spec.Name, out.Engine.Name, out.Engine.Version, verb, out.Seconds)
		if total := p.workDone(); total > 0 && !out.Dataset.Reused && out.Seconds > 0 {
			fmt.Fprintf(env.Stdout, " (%.0f records/s)", float64(total)/out.Seconds)
		}
		fmt.Fprintln(env.Stdout)
		keys := make([]string, 0, len(out.Dataset.Facts))
		for k := range out.Dataset.Facts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(env.Stdout, "  %-18s %s\n", k, out.Dataset.Facts[k])
		}
		fmt.Fprintln(env.Stdout, "  "+out.Note)
		return nil
	}
	return cmd
}
