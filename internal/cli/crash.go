package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/crash"
	"github.com/dbgauge/dbgauge/internal/htmlreport"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/powerloss"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
)

func newCrashCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "crash WORKLOAD [flags]",
		Short: "kill a write workload at seeded random moments; count the acknowledged commits that did not survive",
		Long: `crash runs a write workload in a child process, kills it with SIGKILL at a
seeded random moment after its first acknowledged commit, reopens the database,
times the recovery, and compares what it holds with the ledger of acknowledged
commits the controlling process kept: lost (acknowledged, then missing),
unknown (in flight at the kill), and the engine's own integrity check. Any knob
given a comma list is compared (--durability sync,lazy,off).`,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return knob.Bad("use one of "+strings.Join(catalog.WorkloadNames(), ", "), "there is no workload %q", args[0])
		},
	}
	for _, spec := range catalog.Workloads() {
		cmd.AddCommand(newCrashWorkloadCmd(ctx, env, cancel, spec))
	}
	return cmd
}

// knobs a crash sets itself for its runs.
var crashOwned = []string{"db", "results", "duration", "warmup", "units", "seed", "ceiling", "stop-file", "repeat", "shuffle", "resume", "reuse-data", "keep-data"}

// crashIgnores are the run's knobs a crash neither reads nor passes on: it
// sets them itself for its runs, or (--data-dir) keeps each cycle's
// database in its own folder; a crash is one machine's (--shard, --start-at).
var crashIgnores = []string{"duration", "warmup", "units", "ceiling", "stop-file", "repeat", "shuffle", "resume", "reuse-data", "keep-data", "data-dir", "shard", "start-at"}

// crashKnobs are dbgauge crash's own knobs.
var crashKnobs = []knob.Spec{
	{Name: "cycles", Kind: knob.Int, Default: "5", Single: true, Usage: "faults per configuration, each on a fresh database"},
	{Name: "power-loss", Kind: knob.Switch, Usage: "after the kill, cut the power: the database lives on dbgauge's FUSE test disk, which drops every write never flushed"},
	{Name: "fault-after", Values: "MIN-MAX", Default: "1s-3s", Single: true, Usage: "the fault comes at a seeded random moment this long after the first acknowledged commit"},
}

func newCrashWorkloadCmd(ctx context.Context, env *Env, cancel context.CancelFunc, spec workload.Spec) *cobra.Command {
	cmd := &cobra.Command{
		Use:   spec.Name + " [flags]",
		Short: "crash " + spec.Name + " and count what survives",
		Args:  flagsOnly("--cycles 5"),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	bind(fs, crashKnobs)
	bind(fs, slices.DeleteFunc(runKnobs(spec), func(k knob.Spec) bool { return slices.Contains(crashIgnores, k.Name) }))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		own := knob.NewValues(crashKnobs)
		var knobs []matrix.Knob
		for _, k := range given(fs, env.Args) {
			if slices.ContainsFunc(crashKnobs, func(s knob.Spec) bool { return s.Name == k.Name }) {
				own.Set(k.Name, k.Value)
			} else {
				knobs = append(knobs, k)
			}
		}
		cycles, err := own.Int("cycles", 1, 10_000)
		if err != nil {
			return err
		}
		power, err := own.Bool("power-loss")
		if err != nil {
			return err
		}
		window, err := parseWindow(own.Get("fault-after"))
		if err != nil {
			return err
		}
		fault := "kill -9"
		var powerless error // --power-loss asked for, and not possible here
		if power {
			if err := powerloss.Available(); err != nil {
				fmt.Fprintf(env.Stderr, "dbgauge: --power-loss needs FUSE, which is not available here (%v): running process kills only\n", err)
				power, powerless = false, err
			} else {
				fault = "power loss (kill -9, then every write never flushed dropped)"
			}
		}
		values := session.NewValues(spec)
		for _, k := range knobs {
			values.Set(k.Name, k.Value)
		}
		seed := uint64(time.Now().UnixNano())
		if fs.Changed("seed") {
			s, err := values.Int("seed", 0, 1<<62)
			if err != nil {
				return err
			}
			seed = uint64(s)
		}
		var cellKnobs []matrix.Knob
		for _, k := range knobs {
			if !slices.Contains(crashOwned, k.Name) || k.Name == "db" {
				cellKnobs = append(cellKnobs, k)
			}
		}
		fixed, axes := matrix.Split(cellKnobs, single(spec))
		rec := &result.Crash{
			Schema: result.CrashSchema, Status: result.Running, Command: redact.Args(append([]string{"dbgauge"}, env.Args...)),
			Workload: spec.Name, Fault: fault, Seed: seed, Started: time.Now().UTC(), Axes: axes,
		}
		targets := map[string]crash.Target{}
		for _, c := range matrix.Combos(axes) {
			t, err := crashTarget(spec, fixed, axes, c)
			if err != nil {
				return err
			}
			key := matrix.Key(axes, c)
			if len(axes) == 0 { // one configuration: name it by its knobs
				key = strings.ReplaceAll(strings.Join(t.Flags[1:], " "), "--", "")
			}
			targets[matrix.Key(axes, c)] = t
			if rec.Backend == "" || rec.Backend == t.Backend {
				rec.Backend = t.Backend
			} else {
				rec.Backend = "several"
			}
			rec.Configs = append(rec.Configs, result.CrashConfig{Key: key, Values: c})
		}
		root := values.Get("results")
		rec.ID = time.Now().Format("20060102-150405") + "-crash-" + spec.Name
		dir, err := filepath.Abs(filepath.Join(root, rec.ID))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return knob.Bad("pass --results DIR with a folder you can write", "cannot create %s: %v", dir, err)
		}
		exe := env.Exe
		if exe == "" {
			if exe, err = os.Executable(); err != nil {
				return err
			}
		}
		fmt.Fprintf(env.Stderr, "dbgauge: crash %s: %d configuration(s) × %d cycles of %s, seed %d, in %s\n", spec.Name, len(rec.Configs), cycles, fault, seed, dir)
		stop, interrupted, release := watchSignals(env, cancel, func() {
			fmt.Fprintln(env.Stderr, "dbgauge: stopping after this cycle")
		})
		defer release()
		ctl := &crash.Controller{Dir: dir, Exe: exe, Cycles: int(cycles), Seed: seed, After: window, PowerLoss: power,
			Log:    func(s string) { fmt.Fprintln(env.Stderr, "dbgauge: "+s) },
			Target: func(v map[string]string) (crash.Target, error) { return targets[matrix.Key(axes, v)], nil }}
		runErr := ctl.Run(ctx, rec, stop)
		html := filepath.Join(dir, ReportFile)
		if err := writeHTML(html, htmlreport.Page{Crash: rec}); err != nil && runErr == nil {
			runErr = fmt.Errorf("write the report: %w", err)
		}
		fmt.Fprintf(env.Stdout, "dbgauge crash %s on %s (%s, seed %d): %s\n  folder  %s\n  report  %s\n\n", spec.Name, rec.Backend, rec.Fault, seed, rec.Status, dir, html)
		for _, c := range rec.Configs {
			if c.Summary != "" {
				fmt.Fprintln(env.Stdout, "  "+c.Summary)
			}
		}
		if powerless != nil {
			runErr = errors.Join(runErr, fmt.Errorf("--power-loss could not be run here, every cycle was a kill -9 only: %w", powerless))
		}
		code, why := crashExit(rec, int(cycles), runErr, interrupted(), dir)
		return sayExit(env.Stdout, code, why)
	}
	return cmd
}

// crashExit decides dbgauge crash's exit status and says why: 1 when a
// configuration broke its engine's promise or failed a check (did not open
// again, failed its integrity check, held rows no commit made), whatever
// else happened, since that finding stands; 3 when a cycle, or the crash
// itself, could not be run; 0 when every cycle ran and every judgement held.
func crashExit(rec *result.Crash, cycles int, runErr error, interrupted bool, dir string) (int, string) {
	o := crash.Tally(rec)
	planned := cycles * len(rec.Configs)
	if interrupted {
		return ExitInterrupted, fmt.Sprintf("interrupted after %d of %d cycles: what was found is in %s", o.Cycles, planned, dir)
	}
	var shorts []string // what could not be run, and why
	n := len(o.NotRun) + planned - o.Cycles
	switch {
	case len(o.NotRun) > 0:
		shorts = append(shorts, fmt.Sprintf("%d of %s could not be run: %s", n, nOf(planned, "cycle"), o.NotRun[0]))
	case n > 0 && runErr != nil: // the crash stopped early
		shorts = append(shorts, fmt.Sprintf("%d of %s could not be run: %v", n, nOf(planned, "cycle"), runErr))
		runErr = nil
	case n > 0:
		shorts = append(shorts, fmt.Sprintf("%d of %s could not be run", n, nOf(planned, "cycle")))
	}
	if runErr != nil {
		shorts = append(shorts, runErr.Error())
	}
	short := strings.Join(shorts, "; ")
	var broken []string
	if n := len(o.NotDocumented); n > 0 {
		broken = append(broken, nOf(n, "configuration")+" NOT as documented: "+strings.Join(o.NotDocumented, "; "))
	}
	if n := len(o.Failed); n > 0 {
		broken = append(broken, nOf(n, "configuration")+" failed a check: "+strings.Join(o.Failed, "; "))
	}
	switch {
	case len(broken) > 0:
		why := strings.Join(broken, "; ")
		if short != "" {
			why += "; besides, " + short
		}
		return ExitUnmet, why
	case short != "":
		return ExitFailed, short + " (what was found is in " + dir + ")"
	}
	held := []string{"every database opened again", "passed its integrity check", "held no row that no commit made"}
	judged := 0
	for _, c := range rec.Configs {
		if c.Verdict != "" {
			judged++
		}
	}
	if judged == len(rec.Configs) {
		held = append([]string{"every configuration as documented"}, held...)
	}
	return ExitOK, fmt.Sprintf("all %s ran and every judgement held: %s", nOf(planned, "cycle"), strings.Join(held, ", "))
}

// parseWindow reads "1s-3s" (or one duration).
func parseWindow(s string) ([2]time.Duration, error) {
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		hi = lo
	}
	a, err1 := time.ParseDuration(strings.TrimSpace(lo))
	b, err2 := time.ParseDuration(strings.TrimSpace(hi))
	if err1 != nil || err2 != nil || a < 0 || b < a {
		return [2]time.Duration{}, knob.Bad("give a window such as --fault-after 1s-3s", "--fault-after %q is not MIN-MAX", s)
	}
	return [2]time.Duration{a, b}, nil
}

// noLedger stands in for the real one while plans are validated.
type noLedger struct{}

func (noLedger) Mark(workload.Mark, []int64) {}

// crashTarget validates one configuration and says how to run and verify it.
func crashTarget(spec workload.Spec, fixed []matrix.Knob, axes []result.Axis, combo map[string]string) (crash.Target, error) {
	m := &result.Matrix{Workload: spec.Name, Axes: axes, Args: matrix.Flags(fixed)}
	flags := matrix.CellFlags(m, result.Cell{Values: combo})
	values := session.NewValues(spec)
	be := "sqlite"
	var rest []string
	for _, f := range flags {
		name, val, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if name == "db" {
			be = val
			continue
		}
		values.Set(name, val)
		rest = append(rest, f)
	}
	bspec, _ := catalog.Backend(be)
	managed := bspec.Reopen != nil && bspec.Managed(be)
	ext := ""
	if be == bspec.Throwaway {
		ext = bspec.Ext
	}
	if ext == "" && !managed {
		return crash.Target{}, knob.Bad("use --db "+strings.Join(crashable(), ", ")+" (a fresh database per cycle)",
			"crash needs a database it can create and kill, not --db %s", redact.DSN(be))
	}
	values.Set("db", be)
	values.Set("results", os.TempDir())
	plan, err := session.NewPlan(session.Request{Workload: spec, Values: values, Ledger: noLedger{}})
	if err != nil {
		return crash.Target{}, err
	}
	// The database is reopened to be read, with the engine's safest setting:
	// what survived is on disk already, and recovery itself must be durable.
	// What the data was made with (its page size, the engine's own knobs;
	// a managed server's --set, which may fix its layout) comes from the
	// plan's options, built once.
	po := plan.Options()
	reading := func(db, dir string) backend.Options {
		return backend.Options{DB: db, Dir: dir, Durability: backend.Sync, Prepare: backend.Once, Conns: 1, Own: po.Own, PageSize: po.PageSize}
	}
	w, err := spec.New(workload.Common{Commit: workload.Commit{Mode: workload.PerUnit, Every: 1}, Clients: 1, Seed: 1}, values)
	if err != nil {
		return crash.Target{}, err
	}
	led := w.(workload.Ledgered)
	present := func(ctx context.Context, db backend.DB) (map[int64]bool, error) {
		return led.Present(ctx, session.WorkloadView(spec, db))
	}
	var promise *backend.Promise
	if p, ok := bspec.Promises[backend.Durability(values.Get("durability"))]; ok {
		promise = &p
	}
	if managed {
		return crash.Target{
			Flags: append([]string{spec.Name}, rest...), Backend: bspec.Name, Managed: true, DB: be,
			Open: func(ctx context.Context, dataDir, logDir string) (backend.DB, error) {
				log := filepath.Join(logDir, "recovery.log")
				o := reading("", filepath.Dir(dataDir))
				o.Set = po.Set
				return bspec.Reopen(ctx, dataDir, log, o)
			},
			Present: present, Promise: promise,
		}, nil
	}
	return crash.Target{
		Flags: append([]string{spec.Name}, rest...), Backend: be, Ext: ext,
		Open: func(ctx context.Context, path, _ string) (backend.DB, error) {
			return bspec.Open(ctx, reading(be+":"+path, filepath.Dir(path)))
		},
		Present: present, Promise: promise,
	}, nil
}

// crashable lists the --db values crash can put on trial: the engines that
// make a fresh database per cycle (an embedded file, a managed server
// restarted on a killed one's data).
func crashable() []string {
	return catalog.Throwaways(func(b backend.Spec) bool { return b.Ext != "" || b.Reopen != nil })
}
