package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload/script"
)

// newCheckCmd runs a workload file's checks on a database as it is: after
// pgbench or the user's own application ran on it, the same checks a run
// of the file ends with.
func newCheckCmd(ctx context.Context, env *Env) *cobra.Command {
	spec := script.Spec
	values := session.NewValues(spec)
	cmd := &cobra.Command{
		Use:   "check FILE.toml [flags]",
		Short: "run a workload file's checks on a database as it is (after another tool ran on it)",
		Long: "Runs the [[check]]s of a workload file on --db as it is, without loading or running anything:\n" +
			"after pgbench -f, or your application, ran the file's transactions on it. Exit 1 when one fails.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 || !script.IsWorkloadFile(args[0]) {
				return knob.Bad("e.g. dbgauge check examples/tpcb-like.toml --db postgres://…", "dbgauge check takes one workload file (.toml)")
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	bind(fs, runKnobs(spec))
	cmd.RunE = func(_ *cobra.Command, args []string) error {
		setValues(fs, values)
		values.Set("workload-file", args[0])
		plan, err := session.NewPlan(session.Request{Workload: spec, Values: values, Args: append([]string{"dbgauge"}, env.Args...)})
		if err != nil {
			return err
		}
		checks, eng, err := plan.CheckOnly(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s on %s %s\n", args[0], eng.Name, eng.Version)
		failed := 0
		for _, c := range checks {
			mark := "✓"
			if !c.OK {
				mark, failed = "✗", failed+1
			}
			fmt.Fprintf(env.Stdout, "  %s %s  %s\n", mark, c.Name, c.Detail)
		}
		if failed > 0 {
			return exitError{code: ExitUnmet, msg: fmt.Sprintf("%d of %d checks failed", failed, len(checks))}
		}
		return nil
	}
	return cmd
}
