package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/script"
)

// newCheckCmd runs a workload file's checks on a database as it is: after
// pgbench or the user's own application ran on it, the same checks a run
// of the file ends with. Its subcommands do the same for the workloads
// whose checks hold on any database of their schema (tpcc: one go-tpc
// loaded and ran, too).
func newCheckCmd(ctx context.Context, env *Env) *cobra.Command {
	spec := script.Spec
	cmd := newCheckSpecCmd(ctx, env, spec, "check FILE.toml [flags]",
		"run a workload file's checks on a database as it is (after another tool ran on it)",
		"Runs the [[check]]s of a workload file on --db as it is, without loading or running anything:\n"+
			"after pgbench -f, or your application, ran the file's transactions on it. Exit 1 when one fails.")
	cmd.Args = func(_ *cobra.Command, args []string) error {
		if len(args) != 1 || !script.IsWorkloadFile(args[0]) {
			return knob.Bad("e.g. dbgauge check examples/tpcb-like.toml --db postgres://…, or dbgauge check tpcc --db …",
				"dbgauge check takes one workload file (.toml) or a workload whose checks hold on any database of its schema")
		}
		return nil
	}
	for _, w := range catalog.Workloads() {
		if w.ChecksAsIs {
			sub := newCheckSpecCmd(ctx, env, w, w.Name+" [flags]", "run "+w.Name+"'s consistency checks on --db as it is",
				"Runs "+w.Name+"'s checks on --db as it is, without loading or running anything: on a database\n"+
					"dbgauge, or another tool, loaded and ran. Exit 1 when one fails.")
			sub.Args = flagsOnly("--db postgres://…")
			cmd.AddCommand(sub)
		}
	}
	return cmd
}

// newCheckSpecCmd is `dbgauge check` for one workload: a workload file's
// (script) or a catalog workload's whose checks hold as is.
func newCheckSpecCmd(ctx context.Context, env *Env, spec workload.Spec, use, short, long string) *cobra.Command {
	values := session.NewValues(spec)
	cmd := &cobra.Command{Use: use, Short: short, Long: long}
	fs := cmd.Flags()
	fs.SortFlags = false
	// Checks on a database as it is: which database, the engine's
	// settings, and what the checks read, but nothing of a run.
	bindOne(fs, knobsFor(spec, knob.ForCheck))
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		setValues(fs, values)
		what := spec.Name
		if spec.Name == script.Spec.Name {
			values.Set("workload-file", args[0])
			what = args[0]
		}
		plan, err := session.NewPlan(session.Request{Workload: spec, Values: values, Args: append([]string{"dbgauge"}, env.Args...)})
		if err != nil {
			return err
		}
		checks, eng, err := plan.CheckOnly(ctx)
		if len(checks) == 0 {
			if err == nil && spec.Name == script.Spec.Name {
				return knob.Bad("add a [[check]] to it (docs/workload-file.md)", "%s has no [[check]] to run", what)
			}
			return err
		}
		fmt.Fprintf(env.Stdout, "%s on %s %s\n", what, eng.Name, eng.Version)
		var failed []string
		for _, c := range checks {
			mark := "✓"
			if !c.OK {
				mark, failed = "✗", append(failed, c.Name+" ("+c.Detail+")")
			}
			fmt.Fprintf(env.Stdout, "  %s %s  %s\n", mark, c.Name, c.Detail)
		}
		code, why := checkExit(len(checks), failed, err)
		return sayExit(env.Stdout, code, why)
	}
	return cmd
}

// checkExit decides dbgauge check's exit status and says why: 1 when a check
// failed (naming each, with what it found), whatever else happened; 3 when
// not every check could be run; 0 when all ran and hold.
func checkExit(ran int, failed []string, err error) (int, string) {
	short := ""
	if err != nil {
		short = fmt.Sprintf("after %s, the checks could not go on: %v", nOf(ran, "check"), err)
	}
	switch {
	case len(failed) > 0:
		why := fmt.Sprintf("%d of %d checks failed: %s", len(failed), ran, strings.Join(failed, "; "))
		if short != "" {
			why += "; besides, " + short
		}
		return ExitUnmet, why
	case short != "":
		return ExitFailed, short
	}
	if ran == 1 {
		return ExitOK, "the one check holds"
	}
	return ExitOK, fmt.Sprintf("all %d checks hold", ran)
}
