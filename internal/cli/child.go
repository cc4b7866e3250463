package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/child"
	"github.com/dbgauge/dbgauge/internal/powerloss"
)

// newChildCmd is the hidden `dbgauge child ROLE`: dbgauge started again by
// itself (child.Start), told what to do by the spec on its fd 3. A run
// goes through `dbgauge run` with what its spec says as Go values (Env.run);
// a test disk's server serves until its user unmounts it.
func newChildCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	return &cobra.Command{
		Use:    "child ROLE",
		Short:  "a process dbgauge starts itself: a matrix's cell, a crash's run, a test disk's server",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			switch role := child.Role(args[0]); role {
			case child.RoleRun:
				spec, err := child.Read(role)
				if err != nil {
					return exitError{ExitUsage, err.Error()}
				}
				run := *env
				run.Args, run.run = append([]string{"run"}, spec.Run.Args...), spec.Run
				return execRoot(ctx, &run, cancel)
			case child.RolePowerLoss:
				// The signals' default actions, as before main wired them: the
				// server is stopped by its user, never by an interrupt meant for
				// a run (its own process group keeps the terminal's away).
				signal.Reset(os.Interrupt, syscall.SIGTERM)
				if code := powerloss.Serve(env.Stderr); code != 0 {
					return exitError{code: code}
				}
				return nil
			}
			return exitError{ExitUsage, fmt.Sprintf("child: no role %q (only dbgauge starts its children)", args[0])}
		},
	}
}
