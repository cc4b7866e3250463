package isolation_test

import (
	"context"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/firebird"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/backend/sqlite"
	"github.com/dbgauge/dbgauge/internal/isolation"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestSummarize: Hermitage's marks from a column's cases: R/O only when
// the read-only cases were all prevented, — when one of them was not,
// some only in a column without read-only cases.
func TestSummarize(t *testing.T) {
	cases := isolation.Cases()
	out := func(verdicts map[string]string) []isolation.Outcome {
		var outs []isolation.Outcome
		for _, c := range cases {
			v, ok := verdicts[c.Name]
			if !ok {
				v = isolation.Prevented
			}
			outs = append(outs, isolation.Outcome{Case: c.Name, Column: c.Column, Verdict: v})
		}
		return outs
	}
	for _, c := range []struct {
		verdicts map[string]string
		col      string
		want     string
	}{
		{nil, "PMP", isolation.Yes},
		{map[string]string{"PMP-write": isolation.Anomaly}, "PMP", isolation.ReadOnly},
		{map[string]string{"PMP": isolation.Anomaly}, "PMP", isolation.No},
		{map[string]string{"G-single-write": isolation.Anomaly, "G-single-pred": isolation.Anomaly}, "G-single", isolation.No},
		{map[string]string{"G2-two-edges": isolation.Anomaly}, "G2", isolation.Some},
		{map[string]string{"G2-two-edges": isolation.Anomaly, "G2": isolation.Anomaly}, "G2", isolation.No},
		{map[string]string{"P4": isolation.BlockedThenAborted}, "P4", isolation.Yes},
		{map[string]string{"G0": isolation.Failed}, "G0", isolation.Unknown},
	} {
		if got := isolation.Summarize(out(c.verdicts), cases)[c.col]; got != c.want {
			t.Errorf("%v: %s marked %s, want %s", c.verdicts, c.col, got, c.want)
		}
	}
}

// run runs the named cases on spec at level l and returns their verdicts.
func run(t *testing.T, spec backend.Spec, l backend.Isolation, names ...string) map[string]isolation.Outcome {
	t.Helper()
	var cs []isolation.Case
	for _, c := range isolation.Cases() {
		for _, n := range names {
			if c.Name == n {
				cs = append(cs, c)
			}
		}
	}
	e, err := isolation.Run(context.Background(), isolation.Request{
		Spec: spec, Options: backend.Options{DB: spec.Throwaway, Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once},
		Levels: []backend.Isolation{l}, Cases: cs, Config: isolation.Config{BlockAfter: 300 * time.Millisecond, Drain: 20 * time.Second},
	})
	if err != nil || len(e.Levels) != 1 || e.Levels[0].Error != "" {
		t.Fatalf("%s at %s: %v %+v", spec.Name, l, err, e.Levels)
	}
	got := map[string]isolation.Outcome{}
	for _, o := range e.Levels[0].Outcomes {
		got[o.Case] = o
	}
	return got
}

func expect(t *testing.T, got map[string]isolation.Outcome, want map[string]string) {
	t.Helper()
	for name, v := range want {
		if got[name].Verdict != v {
			t.Errorf("%s: %s (%s), want %s; steps %+v", name, got[name].Verdict, got[name].Detail, v, got[name].Steps)
		}
	}
}

// TestSQLite: SQLite's writers take the write lock at BEGIN, so the second
// session waits and every anomaly is prevented by blocking.
func TestSQLite(t *testing.T) {
	got := run(t, sqlite.Spec, backend.Serializable, "G1c", "P4", "G2-item")
	expect(t, got, map[string]string{"G1c": isolation.Blocked, "P4": isolation.Blocked, "G2-item": isolation.Blocked})
}

// TestPostgres: write skew and lost updates happen at read committed; at
// serializable SSI aborts the second committer, and a concurrent update
// waits, then fails.
func TestPostgres(t *testing.T) {
	if _, err := postgres.FindServer(""); err != nil {
		testenv.Need(t, err) // .ci/run installs PostgreSQL: in CI this never skips
	}
	expect(t, run(t, postgres.Spec, backend.ReadCommitted, "G1b", "P4", "G2-item"),
		map[string]string{"G1b": isolation.Prevented, "P4": isolation.Anomaly, "G2-item": isolation.Anomaly})
	expect(t, run(t, postgres.Spec, backend.Serializable, "P4", "G2-item"),
		map[string]string{"P4": isolation.BlockedThenAborted, "G2-item": isolation.Aborted})
}

// TestMariaDB: InnoDB's repeatable read prevents read skew for reads alone,
// not on a write predicate (Hermitage's R/O); read uncommitted shows
// uncommitted rows.
func TestMariaDB(t *testing.T) {
	if _, _, err := mariadb.FindServer(); err != nil {
		testenv.Need(t, err)
	}
	expect(t, run(t, mariadb.Spec, backend.RepeatableRead, "G-single", "G-single-write"),
		map[string]string{"G-single": isolation.Prevented, "G-single-write": isolation.Anomaly})
	expect(t, run(t, mariadb.Spec, backend.ReadUncommitted, "G1a"), map[string]string{"G1a": isolation.Anomaly})
}

// TestFirebird: Firebird's read committed prevents the lost update that
// PostgreSQL's allows: the second writer waits, then fails with
// update_conflict.
func TestFirebird(t *testing.T) {
	if _, _, _, _, err := firebird.FindServer(); err != nil {
		testenv.Need(t, err)
	}
	expect(t, run(t, firebird.Spec, backend.ReadCommitted, "P4"), map[string]string{"P4": isolation.BlockedThenAborted})
}
