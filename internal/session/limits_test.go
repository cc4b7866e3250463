package session_test

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestLimitsInTheResult: what the engine says of the run's connections
// before it begins is in the result and in the summary.
func TestLimitsInTheResult(t *testing.T) {
	res := workloadtest.Run(t, spec(t, "kv"), map[string]string{"db": "sqlite", "records": "2000", "clients": "200", "cache": "2MB", "mix": "read=90,update=10"})
	all := strings.Join(res.Limits, "\n")
	if !strings.Contains(all, "200 connections, each with a page cache of 2.0 MiB") || !strings.Contains(all, "one connection write at a time") {
		t.Fatalf("limits %q", res.Limits)
	}
	var b bytes.Buffer
	if err := report.Summary(&b, res, "dir"); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s+limits\s+200 connections`).MatchString(b.String()) {
		t.Errorf("the summary does not show the limits:\n%s", b.String())
	}
}

// TestGCPercent: GOGC 50 for many clients of a server, whose connections
// make the heap; an engine inside dbgauge keeps the runtime's.
func TestGCPercent(t *testing.T) {
	for _, c := range []struct {
		db, clients string
		want        int
	}{
		{"postgres:managed", "1000", 50},
		{"postgres:managed", "64", 0},
		{"sqlite", "1000", 0},
		{"bbolt", "1000", 0},
	} {
		w := spec(t, "kv")
		v := session.NewValues(w)
		v.Set("db", c.db)
		v.Set("clients", c.clients)
		plan, err := session.NewPlan(session.Request{Workload: w, Values: v})
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.GCPercent(); got != c.want {
			t.Errorf("%s with %s clients: GOGC %d, want %d", c.db, c.clients, got, c.want)
		}
	}
}

// TestRefusedDurabilityInThePlan: a durability level the engine refuses
// (Firebird 3 has no lazy) is refused by the plan, before anything opens,
// so a matrix refuses the cell before it runs the first.
func TestRefusedDurabilityInThePlan(t *testing.T) {
	w := spec(t, "tpcc")
	v := session.NewValues(w)
	v.Set("db", "firebird:managed")
	v.Set("durability", "lazy")
	_, err := session.NewPlan(session.Request{Workload: w, Values: v})
	var bad *knob.Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "Firebird 3 has no group-commit") {
		t.Fatalf("firebird with --durability lazy: %v, want a bad-input error saying why", err)
	}
	v.Set("durability", "off")
	if _, err := session.NewPlan(session.Request{Workload: w, Values: v}); err != nil {
		t.Fatalf("firebird with --durability off: %v", err)
	}
}

// TestRefusedIsolationInThePlan: a level the engine lacks is refused by the
// plan with the engine's reason and the levels it has; a key-value engine
// takes none.
func TestRefusedIsolationInThePlan(t *testing.T) {
	w := spec(t, "insert")
	for _, c := range []struct{ db, level, want string }{
		{"sqlite", "read-committed", "give --isolation serializable"},
		{"firebird:managed", "read-uncommitted", "Firebird never shows a row"},
		{"bbolt", "serializable", "bbolt has no isolation levels"},
	} {
		v := session.NewValues(w)
		v.Set("db", c.db)
		v.Set("isolation", c.level)
		_, err := session.NewPlan(session.Request{Workload: w, Values: v})
		var bad *knob.Error
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s --isolation %s: %v, want a bad-input error saying %q", c.db, c.level, err, c.want)
		}
	}
	v := session.NewValues(w)
	v.Set("db", "firebird:managed")
	v.Set("isolation", "repeatable-read")
	if _, err := session.NewPlan(session.Request{Workload: w, Values: v}); err != nil {
		t.Fatalf("firebird --isolation repeatable-read: %v", err)
	}
}
