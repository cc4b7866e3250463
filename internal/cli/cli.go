// Package cli is the command tree. It is the only package that reads flags,
// prints, handles signals or decides the exit status; everything below it
// returns errors, which Main maps to exit codes through one table.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbgauge/dbgauge/internal/child"
	"github.com/dbgauge/dbgauge/internal/hostinfo"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// Exit codes, the one table that maps outcomes to the process status.
const (
	ExitOK          = 0   // ran, checks passed, requirements met
	ExitUnmet       = 1   // a requirement was not met, a consistency check failed, or a promise was broken (crash)
	ExitUsage       = 2   // bad input: nothing was run
	ExitFailed      = 3   // the run began and failed, or not all of it could run: the result says how far it got
	ExitInterrupted = 130 // stopped by a signal: what was measured is saved
)

// Env is the process as cli sees it.
type Env struct {
	Args    []string
	Stdout  io.Writer
	Stderr  io.Writer
	Signals <-chan os.Signal // interrupts: the first stops cleanly, the second abandons
	IsTTY   bool             // stderr is a terminal: progress overwrites one line
	Exe     string           // the binary a matrix runs its cells with ("" = this one)

	run *child.Run // what started this process as `child run`; nil otherwise
}

// usageError marks errors raised by cobra itself (unknown command, bad flag).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }

// exitError carries a status decided by a command after it printed its output.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// Main runs dbgauge and returns the exit status.
func Main(env Env) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := execRoot(ctx, &env, cancel)
	pprof.StopCPUProfile() // --cpuprofile: nothing when it was not started
	code, msg := exitStatus(err)
	if msg != "" {
		fmt.Fprintln(env.Stderr, "dbgauge: "+oneLine(msg))
	}
	return code
}

// oneLine joins the lines of a driver's message: an error is one line.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "; ")
}

// exitStatus maps an error to the exit status and the line to print.
func exitStatus(err error) (int, string) {
	var bad *knob.Error
	var ex exitError
	switch {
	case err == nil:
		return ExitOK, ""
	case errors.As(err, &ex):
		return ex.code, ex.msg
	case errors.As(err, &bad):
		return ExitUsage, bad.Error()
	case errors.As(err, new(usageError)):
		return ExitUsage, err.Error() + ": see dbgauge --help"
	default:
		return ExitFailed, err.Error()
	}
}

// execRoot runs env.Args through a command tree of its own: Main's, and
// the run that cluster or a child's spec rewrites them into.
func execRoot(ctx context.Context, env *Env, cancel context.CancelFunc) error {
	root := newRoot(ctx, env, cancel)
	root.SetArgs(workloadFile(env.Args))
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	return root.Execute()
}

// runsFlag says why load or check WORKLOAD refuses a flag that run WORKLOAD
// takes (--results, --ceiling, --clients…): neither measures nor writes a
// result. "" for any other command or flag.
func runsFlag(cmd *cobra.Command, err error) string {
	var unknown *pflag.NotExistError
	if !errors.As(err, &unknown) || !cmd.HasParent() {
		return ""
	}
	does := map[string]string{
		"load":  "load only fills the dataset: it measures nothing and writes no result",
		"check": "check only runs the checks: it measures nothing and writes no result",
	}[cmd.Parent().Name()]
	run, _, ferr := cmd.Root().Find([]string{"run", cmd.Name()})
	if does == "" || ferr != nil || run.Flags().Lookup(unknown.GetSpecifiedName()) == nil {
		return ""
	}
	return fmt.Sprintf(" (a flag of dbgauge run %s; %s)", cmd.Name(), does)
}

func newRoot(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	root := &cobra.Command{
		Use:   "dbgauge",
		Short: "will this database hold up for my workload, and keep what it acknowledged?",
		Long: `dbgauge runs realistic workloads against real database engines under the settings
that matter, measures throughput and latency honestly, checks that nothing
acknowledged was lost, and writes a result that survives anything.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       hostinfo.Version(),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown command %q", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetUsageFunc(usage)
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%s: %w%s", cmd.CommandPath(), err, runsFlag(cmd, err))}
	})
	profile := root.PersistentFlags().String("cpuprofile", "", "write a CPU profile of dbgauge's own process to `FILE` (go tool pprof FILE), for work on the harness's cost")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if *profile == "" {
			return nil
		}
		f, err := os.Create(*profile)
		if err != nil {
			return usageError{fmt.Errorf("--cpuprofile: %w", err)}
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(newRunCmd(ctx, env, cancel), newCapacityCmd(ctx, env, cancel), newDiskCmd(ctx, env, cancel), newListCmd(env), newIsolationCmd(ctx, env, cancel), newCompareCmd(env), newReportCmd(env), newLoadCmd(ctx, env), newCheckCmd(ctx, env), newCrashCmd(ctx, env, cancel), newClusterCmd(ctx, env, cancel), newVersionCmd(env), newVersionsCmd(env), newUpgradeCmd(ctx, env, cancel), newEnginesCmd(ctx, env), newMergeCmd(env), newChildCmd(ctx, env, cancel))
	return root
}
