package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/upgrade"
	"github.com/dbgauge/dbgauge/internal/workload"
)

func newUpgradeCmd(ctx context.Context, env *Env, cancel context.CancelFunc) *cobra.Command {
	cmd := workloadParent(env, "upgrade WORKLOAD [flags]",
		"rehearse an upgrade: run a workload on the old version, upgrade by each method, verify every acknowledged commit, run again on the new")
	cmd.Long = `upgrade rehearses moving a managed server to a newer version of its engine,
once per method: a fresh server of --from loads and runs the workload (its
ledger of acknowledged commits on, where the workload records one), is
stopped and upgraded (each step timed, the window in which no commit could
be made marked), starts as --to on the upgraded data, is held to every
commit the old version acknowledged and to the workload's checks (without a
ledger: its checks and each table's row count), runs the workload again as
long, and the two runs are compared with the usual significance.`
	for _, spec := range catalog.Workloads() {
		cmd.AddCommand(newUpgradeWorkloadCmd(ctx, env, cancel, spec))
	}
	return cmd
}

// upgradeIgnores are the run's knobs an upgrade neither reads nor passes on:
// it sets the engine (--db, its version and binaries) and the results'
// folders itself; a matrix, shards, replicas, backups and faults are other
// commands' rehearsals.
var upgradeIgnores = []string{"db", "pg-version", "pg-bin", "repeat", "shuffle", "resume", "reuse-data", "keep-data", "data-dir",
	"shard", "start-at", "topology", "replication", "read-from", "backup", "restore-check", "failover", "fault", "reconnect", "crash-recovery"}

// upgradeOutput are the output knobs an upgrade reads: each run's notes and
// progress lines on stderr, or none.
var upgradeOutput = slices.DeleteFunc(slices.Clone(outputKnobs), func(k knob.Spec) bool { return k.Name != "live" && k.Name != "quiet" })

// upgradeKnobs are dbgauge upgrade's own knobs.
var upgradeKnobs = []knob.Spec{
	{Name: "from", Values: "FORM@VERSION", Single: true, Usage: "the managed server to upgrade from, e.g. postgres:managed@15"},
	{Name: "to", Values: "FORM@VERSION", Single: true, Usage: "the managed server to upgrade to, a newer version of the same engine, e.g. postgres:managed@18"},
	{Name: "method", Values: "M[,M…]", Default: "link,copy,dump", Single: true, Usage: "the upgrade methods, each rehearsed on a fresh server: link, copy (pg_upgrade --link, --copy), dump (pg_dump and pg_restore)"},
}

func newUpgradeWorkloadCmd(ctx context.Context, env *Env, cancel context.CancelFunc, spec workload.Spec) *cobra.Command {
	cmd := &cobra.Command{
		Use:   spec.Name + " [flags]",
		Short: "rehearse an upgrade under " + spec.Name,
		Args:  flagsOnly("--from postgres:managed@15"),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	bind(fs, upgradeKnobs)
	runs := slices.DeleteFunc(runKnobs(spec), func(k knob.Spec) bool { return slices.Contains(upgradeIgnores, k.Name) })
	for i := range runs {
		runs[i].Single = true // one configuration: --help says no list makes an axis
	}
	bind(fs, runs)
	bind(fs, upgradeOutput)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		out, err := readOutput(fs)
		if err != nil {
			return err
		}
		own := knob.NewValues(upgradeKnobs)
		var knobs []matrix.Knob
		for _, k := range given(fs, env.Args) {
			switch {
			case slices.ContainsFunc(upgradeKnobs, func(s knob.Spec) bool { return s.Name == k.Name }):
				own.Set(k.Name, k.Value)
			case !slices.ContainsFunc(upgradeOutput, func(s knob.Spec) bool { return s.Name == k.Name }):
				knobs = append(knobs, k)
			}
		}
		ctl, rec, methods, err := planUpgrade(env, spec, own, knobs)
		if err != nil {
			return err
		}
		ctl.Observer = func(p *session.Plan) session.Observer { return &progress{env: env, out: out, every: p.Progress()} }
		return runUpgrade(ctx, env, cancel, ctl, rec, methods)
	}
	return cmd
}

// planUpgrade validates everything before anything starts: the forms, each
// method (the engine's CheckUpgrade), and the runs on both versions.
func planUpgrade(env *Env, spec workload.Spec, own *knob.Values, knobs []matrix.Knob) (*upgrade.Controller, *result.Upgrade, []string, error) {
	from, to := own.Get("from"), own.Get("to")
	if from == "" || to == "" {
		return nil, nil, nil, knob.Bad("e.g. --from postgres:managed@15 --to postgres:managed@18", "dbgauge upgrade needs --from and --to")
	}
	if _, axes := matrix.Split(knobs, single(spec)); len(axes) > 0 {
		return nil, nil, nil, knob.Bad("give each knob one value (dbgauge run makes a matrix)", "dbgauge upgrade runs one configuration, and --%s is a list", axes[0].Knob)
	}
	bspec, ok := catalog.Backend(from)
	if tspec, _ := catalog.Backend(to); !ok || tspec.Name != bspec.Name || bspec.CheckUpgrade == nil {
		return nil, nil, nil, knob.Bad("give --from and --to as managed forms of one engine that dbgauge can upgrade, e.g. postgres:managed@15 and postgres:managed@18",
			"dbgauge cannot upgrade --from %s to --to %s", redact.DSN(from), redact.DSN(to))
	}
	var methods []string
	for _, m := range strings.Split(own.Get("method"), ",") {
		if m = strings.TrimSpace(m); m != "" && !slices.Contains(methods, m) {
			if err := bspec.CheckUpgrade(from, to, m); err != nil {
				return nil, nil, nil, err
			}
			methods = append(methods, m)
		}
	}
	if len(methods) == 0 {
		return nil, nil, nil, knob.Bad("give one or more of "+strings.Join(bspec.UpgradeMethods, ", "), "--method is empty")
	}
	root := session.NewValues(spec).Get("results")
	for _, k := range knobs {
		if k.Name == "results" {
			root = k.Value
		}
	}
	rec := &result.Upgrade{Schema: result.UpgradeSchema, Status: result.Running, Command: redact.Args(append([]string{"dbgauge"}, env.Args...)),
		Workload: spec.Name, From: from, To: to, Started: time.Now().UTC(), Methods: []result.UpgradeMethod{}}
	rec.ID = time.Now().Format("20060102-150405") + "-upgrade-" + spec.Name
	dir, err := filepath.Abs(filepath.Join(root, rec.ID))
	if err != nil {
		return nil, nil, nil, err
	}
	ctl := &upgrade.Controller{Workload: spec, Args: rec.Command, From: from, To: to, Dir: dir, Seed: uint64(time.Now().UnixNano()),
		Values: func() *knob.Values {
			v := session.NewValues(spec)
			for _, k := range knobs {
				for _, s := range strings.Split(k.Value, "\n") { // a repeatable knob's values
					v.Set(k.Name, s)
				}
			}
			return v
		}}
	for _, toSide := range []bool{false, true} {
		p, err := ctl.Plan("check", toSide, nil, nil, nil)
		if err != nil {
			return nil, nil, nil, err
		}
		_, ctl.Ledgered = p.Workload().(workload.Ledgered)
	}
	rec.Verification = "checks and row counts"
	if ctl.Ledgered {
		rec.Verification = "ledger"
	}
	return ctl, rec, methods, nil
}

// runUpgrade rehearses each method, prints one line per method and decides
// the exit status.
func runUpgrade(ctx context.Context, env *Env, cancel context.CancelFunc, ctl *upgrade.Controller, rec *result.Upgrade, methods []string) error {
	if err := os.MkdirAll(ctl.Dir, 0o755); err != nil {
		return knob.Bad("pass --results DIR with a folder you can write", "cannot create %s: %v", ctl.Dir, err)
	}
	// The controller's lines and the interrupt's come from two goroutines.
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(env.Stderr, s)
	}
	ctl.Log = func(s string) { say("dbgauge: upgrade " + s) }
	say(fmt.Sprintf("dbgauge: upgrade %s from %s to %s by %s (verified by %s), in %s", rec.Workload, rec.From, rec.To, strings.Join(methods, ", "), rec.Verification, ctl.Dir))
	stop, interrupted, release := watchSignals(env, cancel, func() {
		say("dbgauge: stopping: the run under way ends, its server is stopped")
	})
	defer release()
	runErr := ctl.Run(ctx, rec, methods, stop)
	if ctl.Bad != nil && len(rec.Methods) == 1 { // refused by the engine as it opened: nothing was measured
		_ = os.RemoveAll(ctl.Dir)
		return ctl.Bad
	}
	for _, m := range rec.Methods { // each run's own page, as dbgauge run writes it
		for _, id := range []string{m.Before, m.After} {
			if r, err := result.Load(filepath.Join(ctl.Dir, id)); id != "" && err == nil {
				if _, err := writeRunReport(filepath.Join(ctl.Dir, id), r, ""); err != nil && runErr == nil {
					runErr = fmt.Errorf("write the report: %w", err)
				}
			}
		}
	}
	fmt.Fprintf(env.Stdout, "dbgauge upgrade %s from %s to %s: %s\n  folder  %s\n  verified by %s\n\n", rec.Workload, rec.From, rec.To, rec.Status, ctl.Dir, rec.Verification)
	for _, m := range rec.Methods {
		fmt.Fprintf(env.Stdout, "  %-5s %s\n", m.Method, m.Summary)
	}
	code, why := upgradeExit(rec, len(methods), runErr, interrupted() || errors.Is(runErr, upgrade.ErrInterrupted), ctl.Dir)
	return sayExit(env.Stdout, code, why)
}

// upgradeExit decides dbgauge upgrade's exit status: 1 when a method lost
// an acknowledged commit or failed a check, whatever else happened; 3 when
// a method could not be run to its end; 0 when every method ran, lost
// nothing and every check held.
func upgradeExit(rec *result.Upgrade, planned int, runErr error, interrupted bool, dir string) (int, string) {
	var failed, notRun []string
	for _, m := range rec.Methods {
		if m.Failed != "" {
			failed = append(failed, m.Method+": "+m.Failed)
		}
		if m.Error != "" {
			notRun = append(notRun, m.Method+": "+m.Error)
		}
	}
	switch {
	case len(failed) > 0:
		return ExitUnmet, nOf(len(failed), "method") + " lost a commit or failed a check: " + strings.Join(failed, "; ")
	case interrupted:
		return ExitInterrupted, fmt.Sprintf("interrupted after %d of %s: what was found is in %s", len(rec.Methods), nOf(planned, "method"), dir)
	case len(notRun) > 0:
		return ExitFailed, nOf(len(notRun), "method") + " could not be run to its end: " + strings.Join(notRun, "; ") + " (what was found is in " + dir + ")"
	case runErr != nil:
		return ExitFailed, runErr.Error()
	}
	if rec.Verification == "ledger" {
		return ExitOK, fmt.Sprintf("every method (%s) ran, lost no acknowledged commit and every check held", strings.Join(methodNames(rec), ", "))
	}
	return ExitOK, fmt.Sprintf("every method (%s) ran and every check held: the workload's, and each table's rows", strings.Join(methodNames(rec), ", "))
}

func methodNames(rec *result.Upgrade) []string {
	var out []string
	for _, m := range rec.Methods {
		out = append(out, m.Method)
	}
	return out
}
