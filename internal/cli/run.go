package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/placement"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/script"
)

// workloadParent returns a command with one subcommand per workload (run,
// load): on its own it prints its help, and an unknown workload is reported
// as such, whatever flags follow it.
func workloadParent(use, short string) *cobra.Command {
	return &cobra.Command{
		Use: use, Short: short,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return knob.Bad("use one of "+strings.Join(catalog.WorkloadNames(), ", ")+" (dbgauge list describes them)",
				"there is no workload %q", args[0])
		},
	}
}

func newRunCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	cmd := workloadParent("run WORKLOAD [flags]", "run a workload and measure it")
	for _, spec := range catalog.Workloads() {
		cmd.AddCommand(newWorkloadCmd(ctx, env, cancel, spec))
	}
	return cmd
}

func newWorkloadCmd(ctx context.Context, env *Env, cancel context.CancelFunc, spec workload.Spec) *cobra.Command {
	values := session.NewValues(spec)
	cmd := &cobra.Command{
		Use:   spec.Name + " [flags]",
		Short: spec.Summary,
		Long:  spec.Summary + "\nFrom " + spec.Source + ".\nHeadline: " + spec.Metric() + ".\n\n" + listHelp,
		Args:  flagsOnly("--clients 4"),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	bind(fs, runKnobs(spec))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		knobs := given(fs, env.Args)
		if _, axes := matrix.Split(knobs, single(spec)); len(axes) > 0 || fs.Changed("resume") || (fs.Changed("repeat") && fs.Lookup("repeat").Value.String() != "1") {
			for _, k := range knobs {
				values.Set(k.Name, k.Value)
			}
			return runMatrix(ctx, env, cancel, spec, values, knobs)
		}
		setValues(fs, values)
		if err := jobIndex(values); err != nil {
			return err
		}
		req := session.Request{Workload: spec, Values: values, Args: append([]string{"dbgauge"}, env.Args...)}
		if r := env.run; r != nil { // a matrix's cell, or the run a crash cycle kills
			req.ResultID, req.DropCache = r.ResultID, r.Cell != ""
			if r.Ledger != nil {
				req.Ledger = ledger.NewPipe(r.Ledger.Open("ledger"))
			}
		}
		plan, err := session.NewPlan(req)
		if err != nil {
			return err
		}
		return execute(ctx, env, cancel, plan)
	}
	return cmd
}

// workloadFile reads `run FILE.toml`, `load FILE.toml` and `crash
// FILE.toml` as the script workload with --workload-file FILE.toml: a
// user's workload file stands where a workload's name does.
func workloadFile(args []string) []string {
	if len(args) < 2 || !slices.Contains([]string{"run", "load", "crash"}, args[0]) || !script.IsWorkloadFile(args[1]) {
		return args
	}
	return slices.Concat([]string{args[0], script.Spec.Name, "--workload-file=" + args[1]}, args[2:])
}

// setValues copies the flags the user set into values (each value of a
// repeatable one).
func setValues(fs *pflag.FlagSet, values *knob.Values) {
	fs.Visit(func(f *pflag.Flag) {
		if sa, ok := f.Value.(pflag.SliceValue); ok {
			for _, s := range sa.GetSlice() {
				values.Set(f.Name, s)
			}
			return
		}
		values.Set(f.Name, f.Value.String())
	})
}

// execute runs a plan with signals wired: the first interrupt stops the run
// cleanly, the second abandons the units in flight.
func execute(ctx context.Context, env *Env, cancel context.CancelFunc, plan *session.Plan) error {
	p := &progress{env: env}
	if env.run != nil {
		p.cell, p.after = env.run.Cell, env.run.After
	}
	stop, interrupted, release := watchSignals(env, cancel, func() {
		p.Note("stopping: finishing the units in flight (interrupt again to abandon them)")
	})
	defer release()
	if pct := plan.GCPercent(); pct > 0 && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(pct)
	}
	if cpus := plan.HarnessCPUs(); cpus != nil {
		// --cpus harness=…: every thread of dbgauge's on those CPUs, and as
		// many Ps as CPUs (the result reads both back).
		got, err := placement.PinSelf(cpus)
		if err != nil {
			return exitError{ExitFailed, err.Error()}
		}
		runtime.GOMAXPROCS(len(got))
	}
	res, err := plan.Execute(ctx, stop, p)
	p.clear()
	var bad *knob.Error
	if errors.As(err, &bad) || res == nil {
		return err
	}
	dir := session.Dir(plan.ResultsRoot(), res)
	if perr := report.Summary(env.Stdout, res, dir); perr != nil && err == nil {
		return perr
	}
	if _, herr := writeRunReport(dir, res); herr != nil && err == nil {
		return fmt.Errorf("write the report: %w", herr)
	}
	switch {
	case err != nil:
		return exitError{ExitFailed, fmt.Sprintf("%v (what was measured is in %s)", err, dir)}
	case interrupted():
		return exitError{ExitInterrupted, "interrupted: what was measured is in " + dir}
	case !res.Summary.ChecksOK:
		return exitError{ExitUnmet, "a consistency check failed: see the checks above"}
	case res.Summary.Pass != nil && !*res.Summary.Pass:
		return exitError{ExitUnmet, "a requirement was not met"}
	}
	return nil
}

// watchSignals wires the interrupts: the first closes stop (and calls
// onFirst), the second cancels. interrupted says whether one came; release
// stops watching.
func watchSignals(env *Env, cancel context.CancelFunc, onFirst func()) (stop <-chan struct{}, interrupted func() bool, release func()) {
	stopCh := make(chan struct{})
	var got atomic.Bool
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case _, ok := <-env.Signals:
				if !ok {
					return
				}
				if got.CompareAndSwap(false, true) {
					close(stopCh)
					if onFirst != nil {
						onFirst()
					}
				} else {
					cancel()
				}
			}
		}
	}()
	return stopCh, got.Load, func() { close(done) }
}

// progress prints the session's notes and one line a second to stderr.
type progress struct {
	env   *Env
	cell  string        // a matrix's cell: "3/24"
	after time.Duration // the matrix's time left after this cell
	mu    sync.Mutex
	open  bool // a progress line is on screen without its newline
}

func (p *progress) Note(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(p.env.Stderr, "dbgauge: "+msg)
}

func (p *progress) Started(res *result.Result) {
	p.Note(fmt.Sprintf("%s on %s %s, %d client(s), results in %s", res.Config.Workload, res.Engine.Name, res.Engine.Version, res.Config.Clients, res.ID))
}

func (p *progress) Second(res *result.Result, s result.Second) {
	if s.Dt < 0.25 {
		return // a sliver at a phase boundary: in the series, not worth a line
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	line := report.Progress(res, s)
	if p.cell != "" {
		left := p.after
		if res.Config.Units == 0 {
			left += time.Duration(res.Config.Warmup+res.Config.Duration) - time.Duration(s.T*float64(time.Second))
		}
		line += fmt.Sprintf("  [cell %s, matrix done in ~%s]", p.cell, max(left, 0).Round(time.Second))
	}
	if p.env.IsTTY {
		fmt.Fprint(p.env.Stderr, "\r\033[K"+line)
		p.open = true
		return
	}
	fmt.Fprintln(p.env.Stderr, line)
}

func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

func (p *progress) clearLocked() {
	if p.open {
		fmt.Fprintln(p.env.Stderr)
		p.open = false
	}
}
