// Package evloop runs clients as coroutines on a few event loops, each a
// goroutine that waits for all its clients' sockets in one epoll, the way
// pgbench's threads each wait on their share of the connections.
//
// A goroutine per client parks in Go's network poller after each request,
// and the scheduler wakes a thread for it, and often a second thread that
// spins looking for work: on a machine whose cores the server shares, those
// wake-ups are the server's CPU. A loop instead resumes the client whose
// socket became readable directly (iter.Pull's coroutine switch), and waits
// in epoll_pwait as a raw system call: the runtime is not told, so its P
// stays with the loop, the system monitor never hands it to another thread,
// and no idle P is left for a thread to spin on when there are as many loops
// as Ps (docs/backends/postgres.md, "Cost on the client").
//
// The price is that a loop's clients share its goroutine: a client that
// blocks on anything but a wait through its Task (a lock held by another
// client of the loop, a channel, a sleep) holds up the loop's other
// clients, and a lock held across a wait can deadlock them. Only workloads
// whose clients share nothing of the kind run on loops (workload.Shape's
// Independent). Other goroutines (the run's ticker, the live result) get a
// P when the runtime preempts a loop, at least every 10 ms.
//
// A client can move between the loops of a Group, between two of its
// units (Moving): when the loops are pinned, each to a CPU, a client
// follows the server process it talks to (Follow) to the loop on that
// process's CPU, so that its requests and the answers are handed over on
// one CPU instead of between two (docs/backends/postgres.md, "Event loops").
//
// Its tests are internal/rawsock's loop_test.go, with the connections
// that wait through a loop.
package evloop

import (
	"context"
	"errors"
	"iter"
	"net"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// ErrStopped is returned by a wait whose loop was abandoned.
var ErrStopped = errors.New("evloop: the loop stopped")

// Task is one client's coroutine on a loop. Its connections wait through
// it (Wait) when their reads find nothing.
type Task struct {
	loop atomic.Pointer[Loop] // changes when the task moves
	fn   func() bool
	next func() (struct{}, bool)
	stop func()
	// yield returns to the loop; set when the coroutine starts.
	yield func(struct{}) bool
	// g is the goroutine its coroutine runs on (getg), 0 when none runs.
	g atomic.Uintptr
	// attached says a connection of the client waits through the task.
	attached atomic.Bool
	peer     atomic.Int32         // the process to follow (Follow); 0 for none
	moveTo   atomic.Pointer[Loop] // where the follower wants the task
	away     int                  // the follower's readings in a row of peer on another loop's CPU
	// Touched only by the task's coroutine and the loop's goroutine, which
	// never run at once (each coroutine switch orders them).
	waitReg    *Reg          // the registration waited on; nil when not waiting
	deadline   *atomic.Int64 // its connection's read deadline, unix ns, 0 for none
	sleepUntil int64         // a Sleep's end, unix ns
	timedOut   bool          // the wait ended at its deadline
	gone       bool          // the wait ended because its socket was closed
	moved      bool          // fn returned to move
	regs       []*Reg        // its registrations in its loop's table
}

// Reg is one socket's registration in a loop's epoll. Its connection keeps
// it; Close tells it the descriptor is gone.
type Reg struct {
	fd     int
	task   *Task
	closed atomic.Bool
	// Touched only by the task and its loop.
	idx   int32 // in loop.regs, the event's data; -1 until the first wait
	added bool  // in the epoll now
}

// Close says the registration's descriptor is closed (or about to be): an
// event already read for it is ignored rather than acted on, since the
// descriptor's number may belong to another socket by then.
func (r *Reg) Close() {
	if r != nil {
		r.closed.Store(true)
	}
}

// Attach marks t as having a connection that waits through it. The run
// engine uses loops only when every client's connections are attached.
func (t *Task) Attach() { t.attached.Store(true) }

// Attached reports whether a connection attached to t.
func (t *Task) Attached() bool { return t.attached.Load() }

// Current reports whether the caller is t's coroutine. Another goroutine
// can read t's connections while the coroutine runs (pgx starts a reader
// of its own when a write is slow): it must not wait through the loop.
func (t *Task) Current() bool {
	g := t.g.Load()
	return g != 0 && g == getg()
}

// Start sets what the task runs: fn, on the loop, from Loop.Run. fn
// returns false when the task is done, true when it returned because it
// saw Moving, at a point where it held nothing: it is then run again, from
// its start, on the loop it moves to.
func (t *Task) Start(fn func() (moved bool)) {
	t.fn = fn
	t.loop.Load().g.live.Add(1)
}

// Moving reports whether the task should return from its function to move
// to another loop. It is one atomic load: a client asks it between units.
func (t *Task) Moving() bool { return t.moveTo.Load() != nil }

// Follow says that most of the work t waits for is done by process pid
// of this machine (a PostgreSQL backend): when the group's loops are
// pinned, t moves to the loop on the CPU where pid runs (Group.Run).
func (t *Task) Follow(pid int) {
	t.peer.Store(int32(pid))
}

// NewReg returns the registration of a connection of t's on descriptor fd,
// to wait with. Any goroutine may make it.
func (t *Task) NewReg(fd int) *Reg { return &Reg{fd: fd, idx: -1, task: t} }

// Wait suspends the calling task until r's socket is readable or deadline
// (unix ns, 0 for none; read again whenever the loop is poked) has passed,
// when it returns os.ErrDeadlineExceeded, or r is closed (net.ErrClosed).
// It must be called from t's coroutine (Current), with one of t's
// registrations.
func (t *Task) Wait(r *Reg, deadline *atomic.Int64) error {
	l := t.loop.Load()
	if r.closed.Load() {
		return net.ErrClosed
	}
	if d := deadline.Load(); d != 0 {
		if now := nanotime(); now >= d {
			return os.ErrDeadlineExceeded
		}
		if l.nearest == 0 || d < l.nearest {
			l.nearest = d
		}
	}
	if r.idx < 0 {
		r.idx = int32(len(l.regs))
		l.regs = append(l.regs, r)
		t.regs = append(t.regs, r)
	}
	if !r.added {
		if err := l.add(r); err != nil {
			return err
		}
		r.added = true
	}
	t.waitReg, t.deadline = r, deadline
	if !t.yield(struct{}{}) {
		return ErrStopped
	}
	switch {
	case t.timedOut:
		t.timedOut = false
		return os.ErrDeadlineExceeded
	case t.gone:
		t.gone = false
		return net.ErrClosed
	}
	return nil
}

// sleeping is the registration of a task in Sleep.
var sleeping = &Reg{}

// Sleep suspends the calling task for d, while the loop's other tasks run.
// It must be called from t's coroutine (Current).
func (t *Task) Sleep(d time.Duration) {
	l := t.loop.Load()
	t.sleepUntil = nanotime() + int64(d)
	if l.nearest == 0 || t.sleepUntil < l.nearest {
		l.nearest = t.sleepUntil
	}
	t.waitReg = sleeping
	t.yield(struct{}{})
}

// Poke wakes the loop to read its waiting tasks' deadlines again: a
// deadline was set from another goroutine (a run abandoned).
func (t *Task) Poke() { t.loop.Load().poke() }

// Loop runs tasks as coroutines on one goroutine, waiting for their sockets.
type Loop struct {
	sys     // the epoll and its wake-up descriptor
	g       *Group
	tasks   []*Task // the tasks it runs
	regs    []*Reg  // by index, the event's data; nil once its task moved
	nearest int64   // the earliest deadline a waiting task has, unix ns; 0 for none
	cpu     int     // the CPU Run keeps its thread on; -1 for none

	inMu  sync.Mutex
	inbox []*Task // tasks moving to this loop
}

// Group is loops that run tasks together: each runs until all the
// group's tasks are done, and tasks move between them (Follow).
type Group struct {
	Loops []*Loop
	Stay  bool // tasks stay on their first loop, whatever they Follow
	tasks []*Task
	live  atomic.Int64 // tasks started and not done
	moves atomic.Int64
}

// NewGroup makes n loops.
func NewGroup(n int) (*Group, error) {
	g := &Group{}
	for range n {
		l, err := newLoop()
		if err != nil {
			g.Close()
			return nil, err
		}
		l.g = g
		g.Loops = append(g.Loops, l)
	}
	return g, nil
}

// New makes a loop, in a group of its own.
func New() (*Loop, error) {
	g, err := NewGroup(1)
	if err != nil {
		return nil, err
	}
	return g.Loops[0], nil
}

// Close releases loops that were never run.
func (g *Group) Close() {
	for _, l := range g.Loops {
		l.close()
	}
}

// Moves is how many times a task moved to another loop.
func (g *Group) Moves() int { return int(g.moves.Load()) }

// Run runs every loop of g until all its started tasks are done, and, when
// each loop is pinned to a CPU of its own, moves the tasks that Follow a
// process to the loop on that process's CPU.
func (g *Group) Run() {
	var wg sync.WaitGroup
	for _, l := range g.Loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Run()
		}()
	}
	done := make(chan struct{})
	go g.follow(done)
	wg.Wait()
	close(done)
}

// followEvery is how often the follower reads where the followed processes
// run, and followAfter how many readings in a row must find one on another
// loop's CPU before its task moves there: a process the kernel moved for a
// moment is not followed.
const (
	followEvery = 100 * time.Millisecond
	followAfter = 6
)

// follow moves tasks to the loop on their followed process's CPU, until done.
func (g *Group) follow(done <-chan struct{}) {
	if g.Stay {
		return
	}
	byCPU := map[int]*Loop{}
	for _, l := range g.Loops {
		if l.cpu < 0 {
			return
		}
		byCPU[l.cpu] = l
	}
	if len(byCPU) < 2 {
		return
	}
	// Reading a process's CPU costs a few microseconds: with many tasks,
	// read less often.
	tick := time.NewTicker(max(followEvery, time.Duration(len(g.tasks))*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		for _, t := range g.tasks {
			pid := t.peer.Load()
			if pid == 0 || t.moveTo.Load() != nil {
				continue
			}
			cpu, ok := processCPU(int(pid))
			dst := byCPU[cpu]
			if !ok || dst == nil || dst == t.loop.Load() {
				t.away = 0
				continue
			}
			if t.away++; t.away >= followAfter {
				t.away = 0
				t.moveTo.Store(dst)
			}
		}
	}
}

// NewTask adds a task to l; Start says what it runs. Tasks are added
// before the loops run.
func (l *Loop) NewTask() *Task {
	t := &Task{}
	t.loop.Store(l)
	l.tasks = append(l.tasks, t)
	l.g.tasks = append(l.g.tasks, t)
	return t
}

// Pin makes Run keep its thread on cpu, one loop per CPU. Where the
// server's processes run stays the kernel's choice (docs/backends/
// postgres.md, "Event loops", has what pinning was worth).
func (l *Loop) Pin(cpu int) { l.cpu = cpu }

// Run runs the started tasks, and those that move to l, until every task
// of its group is done, then releases the loop. It must not be called
// twice; Group.Run calls it for each of its loops.
func (l *Loop) Run() {
	defer l.close()
	if l.cpu >= 0 {
		runtime.LockOSThread()
		if unpin := pinThread(l.cpu); unpin != nil {
			defer func() {
				unpin()
				runtime.UnlockOSThread()
			}()
		} else {
			runtime.UnlockOSThread()
		}
	}
	l.tasks = slices.DeleteFunc(l.tasks, func(t *Task) bool { return t.fn == nil })
	for _, t := range slices.Clone(l.tasks) {
		l.start(t)
	}
	for l.g.live.Load() > 0 {
		n, poked := l.wait(l.timeout())
		for _, ev := range l.events[:n] {
			r := l.regs[ev.Pad]
			if r == nil || r.closed.Load() {
				continue // its task moved; or its number may be another socket's by now
			}
			t := r.task
			if t.waitReg != r {
				// Nobody waits for it (data nobody asked for, a socket
				// its client no longer reads): level-triggered, it would
				// wake the loop again and again. Its next wait adds it back.
				l.del(r)
				r.added = false
				continue
			}
			t.waitReg = nil
			l.resume(t)
		}
		if poked {
			l.adopt()
		}
		if n == 0 || poked {
			l.expire()
		}
	}
}

// Close releases a loop that was never run.
func (l *Loop) Close() { l.close() }

// start runs t's function in a new coroutine, until its first wait.
func (l *Loop) start(t *Task) {
	t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
		t.yield = yield
		t.g.Store(getg())
		t.moved = t.fn()
		t.g.Store(0)
	})
	l.resume(t)
}

// resume runs t until it waits again or returns.
func (l *Loop) resume(t *Task) {
	if _, ok := t.next(); !ok {
		t.stop()
		l.finish(t)
	}
}

// finish takes t, whose function returned, off l: to the loop it moves
// to, or done.
func (l *Loop) finish(t *Task) {
	l.tasks = slices.DeleteFunc(l.tasks, func(x *Task) bool { return x == t })
	for _, r := range t.regs {
		// A closed socket left the epoll by itself, and its number may
		// be another's by now.
		if r.added && !r.closed.Load() {
			l.del(r)
		}
		l.regs[r.idx] = nil
		r.idx, r.added = -1, false
	}
	t.regs = t.regs[:0]
	if t.moved { // it saw moveTo set, which only this clears
		t.moved = false
		dst := t.moveTo.Swap(nil)
		t.loop.Store(dst)
		l.g.moves.Add(1)
		dst.inMu.Lock()
		dst.inbox = append(dst.inbox, t)
		dst.inMu.Unlock()
		dst.poke()
		return
	}
	t.peer.Store(0)
	if l.g.live.Add(-1) == 0 {
		for _, o := range l.g.Loops {
			o.poke() // the loops waiting without tasks end
		}
	}
}

// adopt starts the tasks that moved to l.
func (l *Loop) adopt() {
	l.inMu.Lock()
	in := l.inbox
	l.inbox = nil
	l.inMu.Unlock()
	for _, t := range in {
		l.tasks = append(l.tasks, t)
		l.start(t)
	}
}

// expire resumes the waiting tasks whose deadline has passed or whose
// socket was closed, with an error, and finds the next deadline.
func (l *Loop) expire() {
	now := nanotime()
	l.nearest = 0
	// A task resumed here may return and leave l.tasks: the one after it
	// then takes its index.
	for i := 0; i < len(l.tasks); i++ {
		t := l.tasks[i]
		if l.expireOne(t, now) && (i >= len(l.tasks) || l.tasks[i] != t) {
			i--
		}
	}
}

// expireOne resumes t if its wait has ended, and reports whether it did.
func (l *Loop) expireOne(t *Task, now int64) bool {
	r := t.waitReg
	if r == nil {
		return false
	}
	d := t.sleepUntil
	if r != sleeping {
		if r.closed.Load() {
			t.waitReg, t.gone = nil, true
			l.resume(t)
			return true
		}
		d = t.deadline.Load()
	}
	switch {
	case d == 0:
	case d <= now:
		t.waitReg, t.timedOut = nil, r != sleeping
		l.resume(t)
		return true
	case l.nearest == 0 || d < l.nearest:
		l.nearest = d
	}
	return false
}

// timeout is how long the next wait may last, in ms: -1 for no deadline.
func (l *Loop) timeout() int {
	if l.nearest == 0 {
		return -1
	}
	ms := (l.nearest - nanotime() + 999_999) / 1_000_000
	return int(max(ms, 0))
}

func nanotime() int64 { return time.Now().UnixNano() }

type ctxKey struct{}

// With returns ctx carrying t: connections opened with it wait through t.
func With(ctx context.Context, t *Task) context.Context {
	return context.WithValue(ctx, ctxKey{}, t)
}

// From returns the task ctx carries, or nil.
func From(ctx context.Context) *Task {
	t, _ := ctx.Value(ctxKey{}).(*Task)
	return t
}
