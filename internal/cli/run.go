package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/openmetrics"
	"github.com/dbgauge/dbgauge/internal/placement"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/script"
)

// workloadParent returns a command with one subcommand per workload (run,
// load): on its own it prints its help; an unknown workload is reported as
// such, whatever flags follow it, and flags without a workload as that.
func workloadParent(env *Env, use, short string) *cobra.Command {
	cmd := &cobra.Command{
		Use: use, Short: short,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return knob.Bad("use one of "+strings.Join(catalog.WorkloadNames(), ", ")+" (dbgauge list describes them)",
				"there is no workload %q", args[0])
		}
		if slices.ContainsFunc(env.Args, func(a string) bool {
			return strings.HasPrefix(a, "-") && a != "-h" && a != "--help" && !strings.HasPrefix(a, "--cpuprofile")
		}) {
			return knob.Bad("name one before its flags, e.g. "+cmd.CommandPath()+" insert --clients 4", "%s needs a workload", cmd.CommandPath())
		}
		return cmd.Help()
	}
	return cmd
}

// parentArgs refuses a word that names none of a parent's subcommands.
func parentArgs(hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return knob.Bad(hint, "%s has no %q", cmd.CommandPath(), args[0])
		}
		return nil
	}
}

// newCapacityCmd is dbgauge capacity WORKLOAD: a run whose --slo goals make
// it a capacity search (session/capacity.go); a list of any other knob
// makes it a matrix, the capacity of each cell.
func newCapacityCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	cmd := workloadParent(env, "capacity WORKLOAD --slo GOAL [flags]", "find the highest rate that meets latency goals")
	for _, spec := range catalog.Workloads() {
		c := newWorkloadCmd(ctx, env, cancel, spec)
		c.Use = spec.Name + " --slo GOAL [flags]"
		c.Long = "The highest rate of " + spec.Name + " (" + spec.Metric() + ") that meets every --slo goal: after a closed-loop\n" +
			"warm-up (how fast the engine goes unpaced), steps of an open loop at constant rates, each --step long,\n" +
			"its first quarter left out, raise the rate by half until a goal breaks or the engine cannot keep up,\n" +
			"then bisect to --resolution. Latency counts from each intended start; starts a step left waiting are\n" +
			"dropped and counted, never carried into the next. The same as dbgauge run " + spec.Name + " --slo ....\n\n" + listHelp
		inner := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("slo") {
				return knob.Bad("give a goal, e.g. dbgauge capacity "+spec.Name+" --slo 'p99<20ms'", "dbgauge capacity needs at least one --slo")
			}
			return inner(cmd, args)
		}
		cmd.AddCommand(c)
	}
	return cmd
}

func newRunCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	cmd := workloadParent(env, "run WORKLOAD [flags]", "run a workload and measure it")
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
	bind(fs, outputKnobs)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		out, err := readOutput(fs)
		if err != nil {
			return err
		}
		// Of the output knobs, the cells of a matrix take --quiet; the
		// matrix itself prints the summary (--json) and the cells' lines.
		knobs := slices.DeleteFunc(given(fs, env.Args), func(k matrix.Knob) bool { return k.Name == "json" || k.Name == "live" })
		if _, axes := matrix.Split(knobs, single(spec)); len(axes) > 0 || fs.Changed("resume") || (fs.Changed("repeat") && fs.Lookup("repeat").Value.String() != "1") {
			for _, k := range knobs {
				values.Set(k.Name, k.Value)
			}
			return runMatrix(ctx, env, cancel, spec, values, knobs, out)
		}
		setValues(fs, values)
		for _, name := range []string{"shuffle", "reuse-data", "keep-data"} { // a matrix's, refused when wrong in a single run too
			if _, err := values.Bool(name); err != nil {
				return err
			}
		}
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
		return execute(ctx, env, cancel, plan, out)
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
// repeatable one), those of the knobs values declares.
func setValues(fs *pflag.FlagSet, values *knob.Values) {
	fs.Visit(func(f *pflag.Flag) {
		if !values.Declares(f.Name) {
			return
		}
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
func execute(ctx context.Context, env *Env, cancel context.CancelFunc, plan *session.Plan, out output) error {
	p := &progress{env: env, out: out, every: plan.Progress()}
	if env.run != nil {
		p.cell, p.after = env.run.Cell, env.run.After
	}
	if out.metricsAddr != "" {
		srv, err := openmetrics.Listen(out.metricsAddr)
		if err != nil {
			return knob.Bad("give a free port, or port 0 for any", "--metrics-addr %s: %v", out.metricsAddr, err)
		}
		p.serve = srv
		p.Note("serving the run as OpenMetrics on http://" + srv.Addr() + "/metrics")
		defer srv.Close()
	}
	stop, interrupted, release := watchSignals(env, cancel, func() {
		p.Note("stopping: no more waiting, and the units in flight finish (interrupt again to abandon them)")
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
	summary := report.Summary
	if out.json {
		summary = report.JSON
	}
	if perr := summary(env.Stdout, res, dir); perr != nil && err == nil {
		return perr
	}
	echarts := "" // a page of its own embeds ECharts; a matrix's cell loads the matrix's
	if env.run != nil && env.run.Cell != "" {
		echarts = sharedECharts(filepath.Join("cells", res.ID)) // a cell's folder in its matrix's (matrix.New)
	}
	if _, herr := writeRunReport(dir, res, echarts); herr != nil && err == nil {
		return fmt.Errorf("write the report: %w", herr)
	}
	stopped := interrupted() // before a linger, which an interrupt ends
	if p.serve != nil {
		p.serve.Update(res, "done")
		if out.linger > 0 && !stopped {
			p.Note(fmt.Sprintf("serving the final figures for %s more (--metrics-linger)", out.linger))
			select {
			case <-time.After(out.linger):
			case <-stop:
			}
		}
	}
	switch {
	case errors.Is(err, session.ErrInterrupted):
		return exitError{ExitInterrupted, fmt.Sprintf("%v: nothing was measured (%s)", err, dir)}
	case err != nil:
		return exitError{ExitFailed, fmt.Sprintf("%v (what was measured is in %s)", err, dir)}
	case stopped:
		return exitError{ExitInterrupted, "interrupted: what was measured is in " + dir}
	case !res.Summary.ChecksOK:
		return exitError{ExitUnmet, "a consistency check failed: see the checks above"}
	case res.Summary.Pass != nil && !*res.Summary.Pass:
		return exitError{ExitUnmet, "a requirement was not met"}
	case res.Capacity != nil && res.Capacity.Knee == 0:
		return exitError{ExitUnmet, "no rate met the goals: " + res.Capacity.Why}
	case res.Capacity != nil && !res.Capacity.Found:
		return exitError{ExitFailed, fmt.Sprintf("the capacity search did not end: %s (what was measured is in %s)", res.Capacity.Why, dir)}
	case res.Cluster != nil && res.Cluster.Failover != nil && res.Cluster.Failover.Error != "":
		// What --failover was to measure did not happen: not all of the run ran.
		return exitError{ExitFailed, fmt.Sprintf("the failover failed: %s (what was measured is in %s)", res.Cluster.Failover.Error, dir)}
	case res.Fault != nil && res.Fault.Error != "":
		// Likewise --fault: a kill, pause or cut not made, or not undone.
		return exitError{ExitFailed, fmt.Sprintf("the fault failed: %s (what was measured is in %s)", res.Fault.Error, dir)}
	}
	return nil
}

// watchSignals wires the interrupts: the first closes stop (and calls
// onFirst), the second cancels. interrupted says whether one came; release
// stops watching.
func watchSignals(env *Env, cancel context.CancelFunc, onFirst func()) (stop <-chan struct{}, interrupted func() bool, release func()) {
	stopCh := make(chan struct{})
	var got atomic.Bool
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
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
	// release waits for the watcher: a note it is printing ends before the
	// command's last words.
	return stopCh, got.Load, func() { close(done); <-exited }
}
