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
	"sync/atomic"
	"time"
)

// ErrStopped is returned by a wait whose loop was abandoned.
var ErrStopped = errors.New("evloop: the loop stopped")

// Task is one client's coroutine on a loop. Its connections wait through
// it (Wait) when their reads find nothing.
type Task struct {
	loop *Loop
	fn   func()
	next func() (struct{}, bool)
	stop func()
	// yield returns to the loop; set when the coroutine starts.
	yield func(struct{}) bool
	// attached says a connection of the client waits through the task.
	attached atomic.Bool
	// Touched only by the task's coroutine and the loop's goroutine, which
	// never run at once (each coroutine switch orders them).
	waitReg    *Reg          // the registration waited on; nil when not waiting
	deadline   *atomic.Int64 // its connection's read deadline, unix ns, 0 for none
	sleepUntil int64         // a Sleep's end, unix ns
	timedOut   bool          // the wait ended at its deadline
	gone       bool          // the wait ended because its socket was closed
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

// Current reports whether t's coroutine is the one its loop is running.
func (t *Task) Current() bool { return t.loop.cur.Load() == t }

// Start sets what the task runs: fn, on the loop, from Loop.Run.
func (t *Task) Start(fn func()) { t.fn = fn }

// NewReg returns the registration of a connection of t's on descriptor fd,
// to wait with. Any goroutine may make it.
func (t *Task) NewReg(fd int) *Reg { return &Reg{fd: fd, idx: -1, task: t} }

// Wait suspends the calling task until r's socket is readable or deadline
// (unix ns, 0 for none; read again whenever the loop is poked) has passed,
// when it returns os.ErrDeadlineExceeded, or r is closed (net.ErrClosed).
// It must be called from t's coroutine (Current), with one of t's
// registrations.
func (t *Task) Wait(r *Reg, deadline *atomic.Int64) error {
	l := t.loop
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
	l := t.loop
	t.sleepUntil = nanotime() + int64(d)
	if l.nearest == 0 || t.sleepUntil < l.nearest {
		l.nearest = t.sleepUntil
	}
	t.waitReg = sleeping
	t.yield(struct{}{})
}

// Poke wakes the loop to read its waiting tasks' deadlines again: a
// deadline was set from another goroutine (a run abandoned).
func (t *Task) Poke() { t.loop.poke() }

// Loop runs tasks as coroutines on one goroutine, waiting for their sockets.
type Loop struct {
	sys     // the epoll and its wake-up descriptor
	cur     atomic.Pointer[Task]
	tasks   []*Task
	regs    []*Reg
	live    int
	nearest int64 // the earliest deadline a waiting task has, unix ns; 0 for none
	cpu     int   // the CPU Run keeps its thread on; -1 for none
}

// NewTask adds a task to l; Start says what it runs.
func (l *Loop) NewTask() *Task {
	t := &Task{loop: l}
	l.tasks = append(l.tasks, t)
	return t
}

// Pin makes Run keep its thread on cpu, one loop per CPU. Where the
// server's processes run stays the kernel's choice (docs/backends/
// postgres.md, "Event loops", has what pinning was worth).
func (l *Loop) Pin(cpu int) { l.cpu = cpu }

// Run runs the started tasks until every one has returned, then releases
// the loop. It must not be called twice.
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
	for _, t := range l.tasks {
		if t.fn == nil {
			continue
		}
		t.next, t.stop = iter.Pull(func(yield func(struct{}) bool) {
			t.yield = yield
			t.fn()
		})
		l.live++
		l.resume(t) // until its first wait
	}
	for l.live > 0 {
		n, poked := l.wait(l.timeout())
		for _, ev := range l.events[:n] {
			r := l.regs[ev.Pad]
			if r.closed.Load() {
				continue // its number may be another socket's by now
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
		if n == 0 || poked {
			l.expire()
		}
	}
}

// Close releases a loop that was never run.
func (l *Loop) Close() { l.close() }

// resume runs t until it waits again or returns.
func (l *Loop) resume(t *Task) {
	l.cur.Store(t)
	_, ok := t.next()
	l.cur.Store(nil)
	if !ok {
		t.stop()
		l.live--
	}
}

// expire resumes the waiting tasks whose deadline has passed or whose
// socket was closed, with an error, and finds the next deadline.
func (l *Loop) expire() {
	now := nanotime()
	l.nearest = 0
	for _, t := range l.tasks {
		r := t.waitReg
		if r == nil {
			continue
		}
		d := t.sleepUntil
		if r != sleeping {
			if r.closed.Load() {
				t.waitReg, t.gone = nil, true
				l.resume(t)
				continue
			}
			d = t.deadline.Load()
		}
		switch {
		case d == 0:
		case d <= now:
			t.waitReg, t.timedOut = nil, r != sleeping
			l.resume(t)
		case l.nearest == 0 || d < l.nearest:
			l.nearest = d
		}
	}
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
