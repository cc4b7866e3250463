// Package workloadtest runs a workload for real on an embedded backend, the
// way `dbgauge run` does, and fails the test unless the run completes, does
// work, and passes every consistency check.
package workloadtest

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Quiet is an Observer that discards everything.
type Quiet struct{}

// Note discards msg.
func (Quiet) Note(string) {}

// Started discards res.
func (Quiet) Started(*result.Result) {}

// Second discards the second.
func (Quiet) Second(*result.Result, result.Second) {}

// Run runs w with the knobs in args (flag name → value; a short run unless
// they say otherwise) and returns the result after checking that it
// completed, did some work and passed its checks.
func Run(t *testing.T, w workload.Spec, args map[string]string) *result.Result {
	t.Helper()
	res := Exec(t, w, args)
	if res.Status != result.Completed {
		t.Fatalf("run %s: status %s (%s)", res.Config.Workload, res.Status, res.Reason)
	}
	if res.Summary.OK == 0 {
		t.Fatalf("run %s on %s: no unit succeeded: %+v", res.Config.Workload, res.Config.DB, res.Summary)
	}
	for _, c := range res.Checks {
		if !c.OK {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
	if len(res.Checks) == 0 {
		t.Error("no consistency check ran")
	}
	return res
}

// Exec runs w and returns its result, failing the test only on an error.
func Exec(t *testing.T, w workload.Spec, args map[string]string) *result.Result {
	t.Helper()
	v := session.NewValues(w)
	v.Set("results", t.TempDir())
	// A second, unless the test counts its units: then the units end the
	// run, however slow the machine (a second as well would cut them short
	// on a loaded one, and the test's count would fail for it). A profile
	// or a capacity search sets its own length.
	if args["units"] == "" && args["transactions"] == "" && args["profile"] == "" && args["slo"] == "" {
		v.Set("duration", "1s")
	}
	v.Set("warmup", "0s")
	for k, s := range args {
		v.Set(k, s)
	}
	plan, err := session.NewPlan(session.Request{Workload: w, Values: v, Args: []string{"test"}})
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	res, err := plan.Execute(context.Background(), nil, Quiet{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	back, err := result.Load(session.Dir(plan.ResultsRoot(), res))
	if err != nil {
		t.Fatalf("the saved result does not load: %v", err)
	}
	return back
}

// Live waits, up to limit, until the result a run writes as it goes (the
// one run folder under root) satisfies cond, looking every 50 ms; it
// reports whether it did. A test ends a run (a stop file) or acts on it
// when the run says it is time, not after a fixed delay that a loaded
// machine overruns.
func Live(root string, limit time.Duration, cond func(*result.Result) bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		paths, _ := filepath.Glob(filepath.Join(root, "*", result.FileName))
		if len(paths) != 1 {
			continue
		}
		if r, err := result.Load(paths[0]); err == nil && cond(r) {
			return true
		}
	}
	return false
}

// Event is a Live condition: the result holds an event whose detail says what.
func Event(what string) func(*result.Result) bool {
	return func(r *result.Result) bool {
		return slices.ContainsFunc(r.Events, func(e result.Event) bool { return strings.Contains(e.Detail, what) })
	}
}
