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
	Blocked            = "blocked"              // prevented: a statement waited for a lock another transaction held
	Aborted            = "aborted"              // prevented: the engine refused a statement to keep the transactions apart
	BlockedThenAborted = "blocked-then-aborted" // prevented: a statement waited, and the engine refused one
	Anomaly            = "anomaly"              // the anomaly happened
	// Failed: the case could not be judged: a statement failed for
	// another reason than isolation (a syntax error, a lost connection),
	// one was slow without waiting on a lock, the setup failed, or a
	// session never ended.
	Failed = "error"
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
	// Wait says what showed it blocked: the engine's lock view while it
	// waited ("pg_locks: …"), or "not confirmed: " and why; for a step
	// that was slow without waiting on a lock, what the view showed.
	Wait    string `json:"wait,omitempty"`
	Skipped bool   `json:"skipped,omitempty"` // its transaction had already been aborted
	Error   string `json:"error,omitempty"`   // the engine's, with its kind: "serialization: …"
}

// Config says how a case is run.
type Config struct {
	// BlockAfter: a statement that has not returned by then is asked
	// about in the engine's lock view: blocked when it waits on a lock
	// (the script goes on with the next step), else waited for.
	BlockAfter time.Duration
	// Drain bounds how long the sessions may take to end after the
	// script's last step (deadlock detection, lock timeouts), and how long
	// a statement that waits on no lock is waited for.
	Drain time.Duration
}

// lookEvery is how often a statement that has not returned and waits on no
// lock is looked at again in the engine's lock view.
const lookEvery = 100 * time.Millisecond

// lookTimeout bounds one look in a lock view, and the making of one.
const lookTimeout = 10 * time.Second

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
	lw, _ := db.(backend.LockWaiter)
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
			endAll(sessions[:i])
			cancel()
			return failed(out, "open session T%d: %v", i+1, err)
		}
		sessions[i] = &session{c: conn, tasks: make(chan *task, len(c.Steps)), ended: make(chan struct{}), dialect: dialect, view: lw}
		go sessions[i].serve(cctx)
	}
	tasks, broke := drive(ctx, c.Steps, sessions, cfg, dialect)
	stuck := broke != "" || drain(tasks, cfg.Drain)
	if stuck {
		// A statement still waits in the engine: the end of the context
		// interrupts it where the engine's connection can be interrupted;
		// its session closes its connection when it returns, and runs
		// nothing after it.
		for _, s := range sessions {
			close(s.tasks)
		}
		cancel()
	} else {
		// Closed before the context ends, so that no interruption meant
		// for a finished session reaches a connection the pool reuses.
		endAll(sessions)
		cancel()
	}
	obs := Observed{Reads: map[string]Rows{}, Writes: map[string]int64{}, Committed: map[int]bool{}}
	blocked, aborted := false, false
	var errs []string // the steps that failed for another reason than isolation
	for _, t := range tasks {
		out.Steps = append(out.Steps, t.log())
		blocked = blocked || t.blocked
		switch {
		case !t.finished():
			continue
		case t.err != nil && !Prevents(t.err):
			errs = append(errs, t.name()+": "+t.log().Error)
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
	switch {
	case broke != "":
		return failed(out, "%s", broke)
	case stuck:
		return failed(out, "a session was still waiting %s after the script's last step", cfg.Drain)
	case len(errs) > 0:
		return failed(out, "not an isolation error: %s", strings.Join(errs, "; "))
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

// endAll ends sessions whose statements have all returned: each closes
// its connection, and endAll returns once they have.
func endAll(ss []*session) {
	for _, s := range ss {
		close(s.tasks)
	}
	for _, s := range ss {
		<-s.ended
	}
}

// drive sends each step to its session in the script's order. It waits for
// a step to return, up to cfg.BlockAfter; a step that has not returned by
// then is looked at in the engine's lock view (waitOn): blocked when it
// waits on a lock, and the script goes on; a step queued behind a blocked
// one of its session is not waited for. After a step that ends a
// transaction (a commit, a rollback, an error), the blocked steps are
// given BlockAfter to go on before the next step is sent, as a person at
// Hermitage's terminals would watch them return. It returns the tasks
// sent and, when the case cannot go on, why.
func drive(ctx context.Context, steps []Step, ss []*session, cfg Config, engine string) ([]*task, string) {
	var tasks []*task
	for _, st := range steps {
		t := &task{step: st, started: make(chan struct{}), done: make(chan struct{})}
		s := ss[st.Session]
		queued := s.last != nil && !s.last.finished()
		s.last = t
		tasks = append(tasks, t)
		s.tasks <- t
		if queued {
			continue
		}
		<-t.started // bounded: the session makes a lock view within lookTimeout
		select {
		case <-t.done:
		case <-time.After(cfg.BlockAfter):
			if why := waitOn(ctx, t, cfg, engine); why != "" {
				return tasks, why
			}
			if t.blocked {
				continue
			}
		}
		if st.Kind == Commit || st.Kind == Rollback || t.err != nil {
			drain(tasks, cfg.BlockAfter) // those that finish in time
		}
	}
	return tasks, ""
}

// waitOn decides what a step that has not returned after cfg.BlockAfter is
// doing, from the engine's lock view: blocked when the view shows it
// waiting on a lock (or cannot show the wait it may be in: not confirmed,
// and said); a step the view shows waiting on no lock is looked at again
// until it returns (slow, not blocked) or for cfg.Drain, after which the
// case cannot be judged and waitOn says why. An engine without a lock view
// (SQLite) leaves the step blocked by the time alone, and says so.
func waitOn(ctx context.Context, t *task, cfg Config, engine string) string {
	if t.view == nil {
		if t.viewErr != nil {
			return fmt.Sprintf("%s did not return within %s and the engine's lock view could not be made: %v", t.name(), cfg.BlockAfter, t.viewErr)
		}
		t.blocked, t.wait = true, fmt.Sprintf("not confirmed: %s has no lock view; not returned after %s", engine, cfg.BlockAfter)
		return ""
	}
	deadline := time.Now().Add(cfg.Drain)
	for {
		lctx, cancel := context.WithTimeout(ctx, lookTimeout)
		w, err := t.view(lctx)
		cancel()
		switch {
		case err == nil && w.Waiting:
			t.blocked, t.wait = true, w.Seen
			return ""
		case err == nil && w.Unseen != "":
			t.blocked, t.wait = true, "not confirmed: "+w.Seen+"; the lock view cannot show "+w.Unseen
			return ""
		case t.finished():
			t.wait = "slow, not blocked: " + w.Seen
			return ""
		case err != nil:
			return fmt.Sprintf("%s did not return within %s and the engine's lock view failed: %v", t.name(), cfg.BlockAfter, err)
		case time.Now().After(deadline):
			return fmt.Sprintf("%s is slow, not waiting on a lock: running after %s (%s)", t.name(), cfg.BlockAfter+cfg.Drain, w.Seen)
		}
		select {
		case <-t.done:
		case <-time.After(lookEvery):
		case <-ctx.Done():
			return fmt.Sprintf("%s: interrupted while it ran", t.name())
		}
	}
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
	started chan struct{} // closed when the statement goes to the engine, or is skipped
	done    chan struct{}
	// Set by the session before started closes: the engine's lock view of
	// the statement, or why there is none.
	view    backend.LockView
	viewErr error
	blocked bool   // set by drive only
	wait    string // drive's: what showed it blocked, or slow
	rows    Rows
	n       int64
	err     error
	skipped bool
}

// name is the step as the table says it: "T2 write".
func (t *task) name() string {
	return "T" + strconv.Itoa(t.step.Session+1) + " " + string(t.step.Kind)
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
	l := StepLog{Session: "T" + strconv.Itoa(t.step.Session+1), Kind: string(t.step.Kind), SQL: t.step.SQL, Blocked: t.blocked, Wait: t.wait}
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
	ended   chan struct{} // closed when serve has closed the connection
	dialect string
	view    backend.LockWaiter // nil when the engine has no lock view
	last    *task              // the last task drive sent (drive's only)
	failed  bool               // the open transaction was aborted by an error (serve's only)
}

// serve runs the tasks sent to it, in order, until tasks is closed, then
// closes the connection: only its goroutine uses the connection. Once ctx
// has ended (a stuck case), it runs nothing more.
func (s *session) serve(ctx context.Context) {
	defer close(s.ended)
	defer s.c.Close()
	for t := range s.tasks {
		if ctx.Err() != nil {
			t.skipped = true
			close(t.started)
			close(t.done)
			continue
		}
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
		close(t.started)
		return
	}
	if s.view != nil {
		// Made while the connection is idle, for drive to look through
		// should the statement not return.
		vctx, cancel := context.WithTimeout(ctx, lookTimeout)
		t.view, t.viewErr = s.view.LockView(vctx, s.c)
		cancel()
	}
	close(t.started)
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

// Prevents reports whether err is the engine keeping transactions apart,
// by its class (dberr, from the driver's codes): a serialization failure
// or update conflict, a deadlock victim, a lock refused (NOWAIT, Firebird's
// lock conflict, SQLite's SQLITE_LOCKED) or not granted in time (a lock
// wait timeout, SQLite's SQLITE_BUSY). Any other error (a syntax error, a
// lost connection, a constraint) says nothing about isolation.
func Prevents(err error) bool {
	class, kind, _ := dberr.Describe(err)
	if class != dberr.Retryable {
		return false
	}
	switch kind {
	case dberr.Serialization, dberr.Deadlock, dberr.Lock, dberr.Busy, dberr.Timeout:
		return true
	}
	return false
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
