package cli

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
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
		p := &progress{env: env, out: show}
		lp := &loadProgress{p: p, start: time.Now(), every: time.Duration(every) * time.Second}
		lp.last = lp.start
		out, err := plan.LoadOnly(ctx, lp.update, p.Note)
		p.clear()
		if err != nil {
			return err
		}
		verb := "loaded"
		if out.Dataset.Reused {
			verb = "reused (it matches; nothing loaded)"
		}
		fmt.Fprintf(env.Stdout, "%s on %s %s: %s in %.1f s", spec.Name, out.Engine.Name, out.Engine.Version, verb, out.Seconds)
		if lp.total > 0 && !out.Dataset.Reused && out.Seconds > 0 {
			fmt.Fprintf(env.Stdout, " (%.0f records/s)", float64(lp.total)/out.Seconds)
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

// loadProgress shows a load's progress: a line every --progress seconds
// that stays, or with --live on a terminal one line rewritten a few times
// a second.
type loadProgress struct {
	p     *progress
	start time.Time
	every time.Duration // 0: no lines
	mu    sync.Mutex
	last  time.Time
	total int64
}

func (l *loadProgress) update(done, total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total = total
	if l.every == 0 || l.p.out.quiet {
		return
	}
	now := time.Now()
	step := l.every
	if l.p.inPlace() {
		step = 250 * time.Millisecond
	}
	if now.Sub(l.last) < step && done < total {
		return
	}
	l.last = now
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	l.p.line(workLine("loading", "records", done, total, now.Sub(l.start)))
}

// workLine is a progress line of long work (a load, a fill, a restore):
// how far it got, its rate and, once it has a pace, the time to go.
func workLine(what, unit string, done, total int64, el time.Duration) string {
	s := el.Seconds()
	line := fmt.Sprintf("%s: %d of %d %s (%.0f %%), %.0f %s/s, %.0f s", what, done, total, unit, 100*float64(done)/float64(max(total, 1)), float64(done)/max(s, 1e-3), unit, s)
	if done > 0 && done < total && s >= 1 {
		line += fmt.Sprintf(", about %.0f s to go", s*float64(total-done)/float64(done))
	}
	return line
}
