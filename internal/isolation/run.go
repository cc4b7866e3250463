package isolation

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

// The outcomes of a case at a level.
const (
	Prevented          = "prevented"            // no anomaly, nothing waited or aborted
	Blocked            = "blocked"              // prevented: a statement waited for another transaction
	Aborted            = "aborted"              // prevented: the engine aborted a transaction
	BlockedThenAborted = "blocked-then-aborted" // prevented: a statement waited, and a transaction was aborted
	Anomaly            = "anomaly"              // the anomaly happened
	Failed             = "error"                // the case could not be judged (setup failed, a session never ended)
)

// Outcome is what one case did at one level.
type Outcome struct {
	Case    string    `json:"case"`
	Column  string    `json:"hermitage_column"`
	Verdict string    `json:"verdict"`
	Detail  string    `json:"detail"` // what showed the anomaly, or what prevented it
	Steps   []StepLog `json:"steps"`
}

// StepLog is one step as it ran.
type StepLog struct {
	Session string `json:"session"` // "T1"
	Kind    string `json:"kind"`
	SQL     string `json:"sql,omitempty"`
	Result  string `json:"result,omitempty"` // rows read, rows changed
	Blocked bool   `json:"blocked,omitempty"`
	Skipped bool   `json:"skipped,omitempty"` // its transaction had already been aborted
	Error   string `json:"error,omitempty"`   // the engine's, with its class: "serialization: …"
}

// Config says how a case is run.
type Config struct {
	// BlockAfter: a statement that has not returned by then is blocked,
	// and the script goes on with the next step.
	BlockAfter time.Duration
	// Drain bounds how long the sessions may take to end after the
	// script's last step (deadlock detection, lock timeouts).
	Drain time.Duration
}

// RunCase runs c on db: it fills the table, runs the script on a fresh
// connection per session, and judges what they observed.
func RunCase(ctx context.Context, db backend.SQLDB, c Case, cfg Config) Outcome {
	out := Outcome{Case: c.Name, Column: c.Column}
	admin, err := db.Conn(ctx)
	if err != nil {
		return failed(out, "open a connection: %v", err)
	}
	defer admin.Close()
	dialect := db.Dialect().Name
	if err := fill(ctx, admin); err != nil {
		return failed(out, "fill the table: %v", err)
	}
	n := 0
	for _, st := range c.Steps {
		n = max(n, st.Session+1)
	}
	cctx, cancel := context.WithCancel(ctx)
	sessions := make([]*session, n)
	for i := range sessions {
		conn, err := db.Conn(cctx)
		if err != nil {
			cancel()
			closeAll(sessions)
			return failed(out, "open session T%d: %v", i+1, err)
		}
		sessions[i] = &session{c: conn, tasks: make(chan *task, len(c.Steps)), dialect: dialect}
		go sessions[i].serve(cctx)
	}
	tasks := drive(c.Steps, sessions, cfg)
	stuck := drain(tasks, cfg.Drain)
	for _, s := range sessions {
		close(s.tasks)
	}
	if stuck {
		// A statement still waits in the engine: the end of the context
		// interrupts it where the engine's connection can be interrupted,
		// and its connection ends with it.
		cancel()
		go closeAll(sessions)
	} else {
		// Closed before the context ends, so that no interruption meant
		// for a finished session reaches a connection the pool reuses.
		closeAll(sessions)
		cancel()
	}
	obs := Observed{Reads: map[string]Rows{}, Writes: map[string]int64{}, Committed: map[int]bool{}}
	blocked, aborted := false, false
	for _, t := range tasks {
		out.Steps = append(out.Steps, t.log())
		blocked = blocked || t.blocked
		switch {
		case !t.finished():
			continue
		case t.err != nil:
			aborted = aborted || t.step.Kind != Rollback
		case t.skipped:
		case t.step.Kind == Commit:
			obs.Committed[t.step.Session] = true
		case t.step.Kind == Read && t.step.Name != "":
			obs.Reads[t.step.Name] = t.rows
		case t.step.Kind == Write && t.step.Name != "":
			obs.Writes[t.step.Name] = t.n
		}
	}
	if stuck {
		return failed(out, "a session was still waiting %s after the script's last step", cfg.Drain)
	}
	if obs.Final, err = readAll(ctx, admin, dialect); err != nil {
		return failed(out, "read the table after the case: %v", err)
	}
	anomaly, detail := c.Anomaly(obs)
	out.Detail = detail
	switch {
	case anomaly:
		out.Verdict = Anomaly
	case blocked && aborted:
		out.Verdict = BlockedThenAborted
	case blocked:
		out.Verdict = Blocked
	case aborted:
		out.Verdict = Aborted
	default:
		out.Verdict = Prevented
	}
	return out
}

func failed(o Outcome, format string, args ...any) Outcome {
	o.Verdict, o.Detail = Failed, fmt.Sprintf(format, args...)
	return o
}

func closeAll(ss []*session) {
	for _, s := range ss {
		if s != nil {
			_ = s.c.Close()
		}
	}
}

// drive sends each step to its session in the script's order. It waits for
// a step to return, up to cfg.BlockAfter (then the step is blocked and the
// script goes on); a step queued behind a blocked one of its session is
// not waited for. After a step that ends a transaction (a commit, a
// rollback, an error), the blocked steps are given BlockAfter to go on
// before the next step is sent, as a person at Hermitage's terminals
// would watch them return.
func drive(steps []Step, ss []*session, cfg Config) []*task {
	var tasks []*task
	for _, st := range steps {
		t := &task{step: st, done: make(chan struct{})}
		s := ss[st.Session]
		queued := s.last != nil && !s.last.finished()
		s.last = t
		tasks = append(tasks, t)
		s.tasks <- t
		if queued {
			continue
		}
		select {
		case <-t.done:
		case <-time.After(cfg.BlockAfter):
			t.blocked = true
			continue
		}
		if st.Kind == Commit || st.Kind == Rollback || t.err != nil {
			drain(tasks, cfg.BlockAfter) // those that finish in time
		}
	}
	return tasks
}

// drain waits up to d for every task to finish; it reports whether some
// never did.
func drain(tasks []*task, d time.Duration) bool {
	deadline := time.After(d)
	for _, t := range tasks {
		select {
		case <-t.done:
		case <-deadline:
			return true
		}
	}
	return false
}

// task is a step sent to a session; its results are written by the
// session before done closes, and read after.
type task struct {
	step    Step
	done    chan struct{}
	blocked bool // set by drive only
	rows    Rows
	n       int64
	err     error
	skipped bool
}

func (t *task) finished() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

func (t *task) log() StepLog {
	l := StepLog{Session: "T" + strconv.Itoa(t.step.Session+1), Kind: string(t.step.Kind), SQL: t.step.SQL, Blocked: t.blocked}
	if !t.finished() {
		l.Error = "never returned"
		return l
	}
	l.Skipped = t.skipped
	switch {
	case t.err != nil:
		_, kind, _ := dberr.Describe(t.err)
		l.Error = string(kind) + ": " + oneLine(t.err.Error())
	case t.skipped:
	case t.step.Kind == Read:
		l.Result = t.rows.String()
	case t.step.Kind == Write:
		l.Result = strconv.FormatInt(t.n, 10) + " rows"
	}
	return l
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// session runs one connection's steps in order.
type session struct {
	c       backend.Conn
	tasks   chan *task
	dialect string
	last    *task // the last task drive sent (drive's only)
	failed  bool  // the open transaction was aborted by an error (serve's only)
}

func (s *session) serve(ctx context.Context) {
	for t := range s.tasks {
		s.run(ctx, t)
		close(t.done)
	}
}

func (s *session) run(ctx context.Context, t *task) {
	st := t.step
	if s.failed {
		// Hermitage: "There's nothing else we can do, this transaction
		// has failed": its other statements are not run.
		t.skipped = true
		if st.Kind == Commit || st.Kind == Rollback {
			s.failed = false
		}
		return
	}
	switch st.Kind {
	case Begin:
		t.err = s.c.Begin(ctx)
	case Commit:
		t.err = s.c.Commit(ctx)
	case Rollback:
		t.err = s.c.Rollback(ctx)
	case Read:
		t.rows = Rows{}
		t.err = s.c.Query(ctx, &backend.Stmt{SQL: portable(st.SQL, s.dialect)}, nil, t.rows.add)
	case Write:
		t.n, t.err = s.c.Exec(ctx, &backend.Stmt{SQL: portable(st.SQL, s.dialect)})
	}
	if t.err != nil && st.Kind != Commit && st.Kind != Rollback {
		// The transaction has failed: end it in the engine now, which
		// frees what it holds (Hermitage's "abort" after the error).
		_ = s.c.Rollback(ctx)
		s.failed = true
	}
}

// modulo matches "val % N" in the portable SQL.
var modulo = regexp.MustCompile(`val % (\d+)`)

// portable rewrites the cases' SQL for dialect: Firebird has MOD, not %.
func portable(sql, dialect string) string {
	if dialect == "firebird" {
		return modulo.ReplaceAllString(sql, "MOD(val, $1)")
	}
	return sql
}

var (
	clear = &backend.Stmt{SQL: "DELETE FROM dbgauge_hermitage"}
	seed  = &backend.Stmt{SQL: "INSERT INTO dbgauge_hermitage (id, val) VALUES (?, ?)"}
)

// Prepare creates the table dbgauge_hermitage (id, val), replacing one an
// interrupted run left; Drop removes it.
func Prepare(ctx context.Context, db backend.SQLDB) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.ExecScript(ctx, "DROP TABLE dbgauge_hermitage")
	return c.ExecScript(ctx, "CREATE TABLE dbgauge_hermitage (id INT NOT NULL PRIMARY KEY, val INT)")
}

// Drop removes the table, leaving a database of the user's as it was.
func Drop(ctx context.Context, db backend.SQLDB) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.ExecScript(ctx, "DROP TABLE dbgauge_hermitage")
}

// fill gives the table Hermitage's two rows, (1, 10) and (2, 20).
func fill(ctx context.Context, c backend.Conn) error {
	if err := c.Begin(ctx); err != nil {
		return err
	}
	_, err := c.Exec(ctx, clear)
	for _, r := range [][2]int64{{1, 10}, {2, 20}} {
		if err == nil {
			_, err = c.Exec(ctx, seed, r[0], r[1])
		}
	}
	if err != nil {
		_ = c.Rollback(ctx)
		return err
	}
	return c.Commit(ctx)
}

// readAll reads the whole table in a transaction of its own.
func readAll(ctx context.Context, c backend.Conn, dialect string) (Rows, error) {
	if err := c.Begin(ctx); err != nil {
		return nil, err
	}
	rows := Rows{}
	err := c.Query(ctx, &backend.Stmt{SQL: portable(all, dialect)}, nil, rows.add)
	if err != nil {
		_ = c.Rollback(ctx)
		return nil, err
	}
	return rows, c.Commit(ctx)
}

// add scans one row (id, val) into r.
func (r Rows) add(scan func(dest ...any) error) error {
	var id, v int64
	if err := scan(&id, &v); err != nil {
		return err
	}
	r[id] = v
	return nil
}

// String writes rows as {1=10 2=20}, by id.
func (r Rows) String() string {
	if r == nil {
		return "(no read)"
	}
	ids := make([]int64, 0, len(r))
	for id := range r {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%d=%d", id, r[id])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// committed says which of the first n sessions committed.
func committed(o Observed, n int) string {
	var parts []string
	for s := 0; s < n; s++ {
		w := "aborted"
		if o.Committed[s] {
			w = "committed"
		}
		parts = append(parts, fmt.Sprintf("T%d %s", s+1, w))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func count(n int64, ok bool) string {
	if !ok {
		return "no"
	}
	return strconv.FormatInt(n, 10)
}
