package isolation_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/firebird"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/backend/sqlite"
	"github.com/dbgauge/dbgauge/internal/dberr"
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
	// --case G0: the other columns ran nothing and have no mark.
	if marks := isolation.Summarize(out(nil)[:1], cases); len(marks) != 1 || marks["G0"] != isolation.Yes {
		t.Errorf("only G0 ran: marks %v, want G0 alone", marks)
	}
}

// run runs the named cases on spec at level l and returns their outcomes.
func run(t *testing.T, spec backend.Spec, l backend.Isolation, names ...string) map[string]isolation.Outcome {
	t.Helper()
	return runCases(t, spec, l, testConfig, cases(names...)...)
}

// testConfig is how the tests run cases.
var testConfig = isolation.Config{BlockAfter: 300 * time.Millisecond, Drain: 20 * time.Second}

// cases returns Hermitage's cases of these names.
func cases(names ...string) []isolation.Case {
	var cs []isolation.Case
	for _, c := range isolation.Cases() {
		for _, n := range names {
			if c.Name == n {
				cs = append(cs, c)
			}
		}
	}
	return cs
}

// runCases runs cs on spec at level l, through isolation.Run as `dbgauge
// isolation` does, and returns their outcomes by name.
func runCases(t *testing.T, spec backend.Spec, l backend.Isolation, cfg isolation.Config, cs ...isolation.Case) map[string]isolation.Outcome {
	t.Helper()
	e, err := isolation.Run(context.Background(), isolation.Request{
		Spec: spec, Options: backend.Options{DB: spec.Throwaway, Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once},
		Levels: []backend.Isolation{l}, Cases: cs, Config: cfg,
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

// planted is Hermitage's case name with the SQL of its step i replaced by
// sql: a statement that fails for another reason than isolation.
func planted(name string, i int, sql string) isolation.Case {
	c := cases(name)[0]
	c.Steps = append([]isolation.Step(nil), c.Steps...)
	c.Steps[i].SQL = sql
	return c
}

// syntaxError is G1a's first write (T1's) misspelt.
var syntaxError = planted("G1a", 2, "UPDAT dbgauge_hermitage SET val = 101 WHERE id = 1")

// slow is a case of one session whose read is slow for another reason than
// a lock: it must be waited for, not judged blocked.
func slow(sql string) isolation.Case {
	return isolation.Case{
		Name: "slow", Column: "G0", What: "a read slow for another reason than a lock",
		Steps:   []isolation.Step{{Session: 0, Kind: isolation.Begin}, {Session: 0, Kind: isolation.Read, SQL: sql, Name: "a"}, {Session: 0, Kind: isolation.Commit}},
		Anomaly: func(o isolation.Observed) (bool, string) { return false, "read " + o.Reads["a"].String() },
	}
}

// waited returns the waits of o's blocked steps, as "T2 write: pg_locks: …".
func waited(o isolation.Outcome) []string {
	var out []string
	for _, s := range o.Steps {
		if s.Blocked {
			out = append(out, s.Session+" "+s.Kind+": "+s.Wait)
		}
	}
	return out
}

// expectWaits checks that every blocked step of o was seen waiting by the
// view whose words begin its wait ("pg_locks: "), and that one was.
func expectWaits(t *testing.T, o isolation.Outcome, view string) {
	t.Helper()
	ws := waited(o)
	if len(ws) == 0 {
		t.Errorf("%s: no step blocked; steps %+v", o.Case, o.Steps)
	}
	for _, w := range ws {
		if _, seen, _ := strings.Cut(w, ": "); !strings.HasPrefix(seen, view) {
			t.Errorf("%s: %s, want it seen in %s", o.Case, w, view)
		}
	}
}

// expectSyntaxError checks that the planted syntax error made its case an
// error that names the failed step and the engine's code.
func expectSyntaxError(t *testing.T, got map[string]isolation.Outcome, code string) {
	t.Helper()
	o := got["G1a"]
	if o.Verdict != isolation.Failed || !strings.Contains(o.Detail, "T1 write") || !strings.Contains(o.Detail, code) {
		t.Errorf("G1a with a syntax error: %s (%s), want %s naming T1 write and %s; steps %+v", o.Verdict, o.Detail, isolation.Failed, code, o.Steps)
	}
}

func expect(t *testing.T, got map[string]isolation.Outcome, want map[string]string) {
	t.Helper()
	for name, v := range want {
		if got[name].Verdict != v {
			t.Errorf("%s: %s (%s), want %s; steps %+v", name, got[name].Verdict, got[name].Detail, v, got[name].Steps)
		}
	}
}

// TestPrevents: only the errors by which an engine keeps transactions
// apart prevent an anomaly; a syntax error, a lost connection, a
// constraint or an interruption does not.
func TestPrevents(t *testing.T) {
	e := errors.New("driver")
	for _, c := range []struct {
		err  error
		want bool
	}{
		{dberr.New(dberr.Retryable, dberr.Serialization, "40001", e), true},
		{dberr.New(dberr.Retryable, dberr.Deadlock, "1213", e), true},
		{dberr.New(dberr.Retryable, dberr.Lock, "55P03", e), true},
		{dberr.New(dberr.Retryable, dberr.Timeout, "1205", e), true},
		{dberr.New(dberr.Retryable, dberr.Busy, "SQLITE_BUSY", e), true},
		{fmt.Errorf("commit: %w", dberr.New(dberr.Retryable, dberr.Serialization, "335544451", e)), true},
		{dberr.New(dberr.Fatal, dberr.Other, "42601", e), false},
		{dberr.New(dberr.Unavailable, dberr.Connection, "57P01", e), false},
		{dberr.New(dberr.Rollback, dberr.Unique, "23505", e), false},
		{dberr.New(dberr.Canceled, dberr.Timeout, "1969", e), false},
		{dberr.New(dberr.Retryable, dberr.Other, "SQLITE_SCHEMA", e), false},
		{e, false},
	} {
		if got := isolation.Prevents(c.err); got != c.want {
			t.Errorf("Prevents(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// TestSQLite: SQLite's writers take the write lock at BEGIN, so the second
// session waits and every anomaly is prevented by blocking, not confirmed
// (SQLite has no lock view); a syntax error is not a prevention but an
// error, and its case is not judged.
func TestSQLite(t *testing.T) {
	got := runCases(t, sqlite.Spec, backend.Serializable, testConfig, append(cases("G1c", "P4", "G2-item"), syntaxError)...)
	expect(t, got, map[string]string{"G1c": isolation.Blocked, "P4": isolation.Blocked, "G2-item": isolation.Blocked})
	expectWaits(t, got["P4"], "not confirmed: sqlite has no lock view")
	expectSyntaxError(t, got, "SQLITE_ERROR")
}

// TestPostgres: write skew and lost updates happen at read committed; at
// serializable SSI aborts the second committer, and a concurrent update
// waits, then fails.
func TestPostgres(t *testing.T) {
	if _, err := postgres.FindServer(""); err != nil {
		testenv.Need(t, err) // .ci/run installs PostgreSQL: in CI this never skips
	}
	got := runCases(t, postgres.Spec, backend.ReadCommitted, testConfig,
		append(cases("G1b", "P4", "G2-item"), syntaxError, slow("SELECT id, val FROM dbgauge_hermitage, pg_sleep(1) WHERE id = 1"))...)
	expect(t, got, map[string]string{"G1b": isolation.Prevented, "P4": isolation.Anomaly, "G2-item": isolation.Anomaly, "slow": isolation.Prevented})
	expectWaits(t, got["P4"], "pg_locks: ")
	expectSyntaxError(t, got, "42601")
	expectSlow(t, got["slow"], "pg_locks: ")
	got = run(t, postgres.Spec, backend.Serializable, "P4", "G2-item")
	expect(t, got, map[string]string{"P4": isolation.BlockedThenAborted, "G2-item": isolation.Aborted})
	expectWaits(t, got["P4"], "pg_locks: ")
}

// TestSlowBound: a statement that waits on no lock is waited for up to
// --drain, then its case is an error that says so.
func TestSlowBound(t *testing.T) {
	if _, err := postgres.FindServer(""); err != nil {
		testenv.Need(t, err)
	}
	got := runCases(t, postgres.Spec, backend.ReadCommitted, isolation.Config{BlockAfter: 100 * time.Millisecond, Drain: 500 * time.Millisecond},
		slow("SELECT id, val FROM dbgauge_hermitage, pg_sleep(3) WHERE id = 1"))
	if o := got["slow"]; o.Verdict != isolation.Failed || !strings.Contains(o.Detail, "T1 read is slow, not waiting on a lock") {
		t.Errorf("a read sleeping past --drain: %s (%s), want an error saying it is slow", o.Verdict, o.Detail)
	}
}

// expectSlow checks that the slow case's read was waited for, not judged
// blocked, and that the lock view said it waited on no lock.
func expectSlow(t *testing.T, o isolation.Outcome, view string) {
	t.Helper()
	for _, s := range o.Steps {
		if s.Kind != string(isolation.Read) {
			continue
		}
		if s.Blocked || !strings.HasPrefix(s.Wait, "slow, not blocked: "+view) {
			t.Errorf("the slow read: blocked %v, %q; want not blocked, and %s seen", s.Blocked, s.Wait, view)
		}
	}
}

// TestMariaDB: InnoDB's repeatable read prevents read skew for reads alone,
// not on a write predicate (Hermitage's R/O); read uncommitted shows
// uncommitted rows.
func TestMariaDB(t *testing.T) {
	if _, _, err := mariadb.FindServer(); err != nil {
		testenv.Need(t, err)
	}
	got := runCases(t, mariadb.Spec, backend.RepeatableRead, testConfig,
		append(cases("G-single", "G-single-write", "P4"), slow("SELECT id, val FROM dbgauge_hermitage WHERE id = 1 AND SLEEP(1) = 0"))...)
	expect(t, got, map[string]string{"G-single": isolation.Prevented, "G-single-write": isolation.Anomaly, "P4": isolation.Anomaly, "slow": isolation.Prevented})
	expectWaits(t, got["P4"], "INNODB_TRX: ")
	expectSlow(t, got["slow"], "INNODB_TRX: ")
	expect(t, run(t, mariadb.Spec, backend.ReadUncommitted, "G1a"), map[string]string{"G1a": isolation.Anomaly})
}

// TestFirebird: Firebird's read committed prevents the lost update that
// PostgreSQL's allows: the second writer waits (a record wait, in MON$),
// then fails with update_conflict. SNAPSHOT TABLE STABILITY blocks on the
// table, a wait Firebird 3's MON$ tables do not show and its lock table
// (fb_lock_print) does.
func TestFirebird(t *testing.T) {
	if _, _, _, _, err := firebird.FindServer(); err != nil {
		testenv.Need(t, err)
	}
	got := runCases(t, firebird.Spec, backend.ReadCommitted, testConfig, append(cases("P4"), syntaxError)...)
	expect(t, got, map[string]string{"P4": isolation.BlockedThenAborted})
	expectWaits(t, got["P4"], "MON$RECORD_STATS: ")
	expectSyntaxError(t, got, "335544569") // isc_dsql_error: Dynamic SQL Error
	got = run(t, firebird.Spec, backend.Serializable, "G1a")
	expect(t, got, map[string]string{"G1a": isolation.Blocked})
	expectWaits(t, got["G1a"], "the lock table (fb_lock_print): ")
}
