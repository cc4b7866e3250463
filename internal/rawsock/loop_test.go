//go:build linux && (amd64 || arm64)

// The event loops' tests, here because they need connections that wait
// through a loop (internal/evloop).
package rawsock

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/dbgauge/dbgauge/internal/evloop"
)

// runLoop runs l and fails the test if it has not ended within d.
func runLoop(t *testing.T, l *evloop.Loop, d time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() { l.Run(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatal("the loop did not end: a wait blocked it instead of yielding")
	}
}

// Two tasks on one loop: A waits for data that is sent only after B has
// run. Were A's wait to block the loop's goroutine, B would never run.
func TestWaitYieldsToOtherTasks(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := l.NewTask(), l.NewTask()
	a, aPeer := pairWith(t, evloop.With(context.Background(), ta))
	b, bPeer := pairWith(t, evloop.With(context.Background(), tb))
	if !ta.Attached() || !tb.Attached() {
		t.Fatal("connections opened with a task's context did not attach to it")
	}
	// The peer of b, on being written to, writes to a's peer.
	go func() {
		buf := make([]byte, 1)
		for {
			if _, err := bPeer.Read(buf); err != nil {
				return
			}
			if _, err := aPeer.Write([]byte("a")); err != nil {
				return
			}
			if _, err := bPeer.Write([]byte("b")); err != nil {
				return
			}
		}
	}()
	var order []string
	var aCurrent bool
	const rounds = 50
	ta.Start(func() bool {
		buf := make([]byte, 1)
		for range rounds {
			if _, err := io.ReadFull(a, buf); err != nil {
				t.Error(err)
				return false
			}
			aCurrent = aCurrent || ta.Current()
			order = append(order, "a")
		}
		return false
	})
	tb.Start(func() bool {
		buf := make([]byte, 1)
		for range rounds {
			order = append(order, "b")
			if _, err := b.Write([]byte("x")); err != nil {
				t.Error(err)
				return false
			}
			if _, err := io.ReadFull(b, buf); err != nil {
				t.Error(err)
				return false
			}
		}
		return false
	})
	runLoop(t, l, 10*time.Second)
	if len(order) != 2*rounds || order[0] != "b" {
		t.Fatalf("%d units, first %v: want %d, b first (a waits for it)", len(order), order[:min(len(order), 4)], 2*rounds)
	}
	if !aCurrent {
		t.Error("a task's coroutine was not its loop's current one")
	}
	if ta.Current() {
		t.Error("a task is still current after its loop ended")
	}
}

// A read deadline set in the past from another goroutine ends a wait at
// once, with the error net.Conn gives (a timeout); one closed from another
// goroutine ends it with net.ErrClosed.
func TestWaitEndsOnDeadlineAndClose(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	td, tc := l.NewTask(), l.NewTask()
	d, _ := pairWith(t, evloop.With(context.Background(), td))
	c, _ := pairWith(t, evloop.With(context.Background(), tc))
	var dErr, cErr error
	var waited atomic.Bool
	td.Start(func() bool {
		waited.Store(true)
		_, dErr = d.Read(make([]byte, 1))
		return false
	})
	tc.Start(func() bool { _, cErr = c.Read(make([]byte, 1)); return false })
	go func() {
		for !waited.Load() {
			runtime.Gosched()
		}
		time.Sleep(50 * time.Millisecond)
		d.SetReadDeadline(time.Now().Add(-time.Second))
		time.Sleep(50 * time.Millisecond)
		c.Close()
	}()
	start := time.Now()
	runLoop(t, l, 10*time.Second)
	var ne net.Error
	if !errors.As(dErr, &ne) || !ne.Timeout() || !errors.Is(dErr, os.ErrDeadlineExceeded) {
		t.Errorf("a wait past its deadline: %v, want a timeout", dErr)
	}
	if !errors.Is(cErr, net.ErrClosed) {
		t.Errorf("a wait on a closed connection: %v, want net.ErrClosed", cErr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the waits ended after %s", took)
	}
}

// A task that sleeps lets the others run; it wakes after its time.
func TestSleep(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	var slept time.Duration
	ts, tr := l.NewTask(), l.NewTask()
	ts.Start(func() bool {
		start := time.Now()
		ts.Sleep(30 * time.Millisecond)
		slept = time.Since(start)
		order = append(order, "sleeper")
		return false
	})
	tr.Start(func() bool { order = append(order, "runner"); return false })
	runLoop(t, l, 10*time.Second)
	if len(order) != 2 || order[0] != "runner" {
		t.Errorf("order %v: the sleeper held up the loop", order)
	}
	if slept < 30*time.Millisecond {
		t.Errorf("slept %s, want at least 30ms", slept)
	}
}

// Outside its task's coroutine (before the loop runs, from another
// goroutine), an attached connection reads as any other: through Go's poller.
func TestReadOutsideTheLoop(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	task := l.NewTask()
	c, peer := pairWith(t, evloop.With(context.Background(), task))
	go peer.Write([]byte("hi"))
	buf := make([]byte, 2)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "hi" {
		t.Fatalf("read %q, %v", buf, err)
	}
}

// A loop pinned to a CPU gives its thread back to the runtime as it was.
func TestPinRestoresAffinity(t *testing.T) {
	cpus := evloop.CPUs()
	if len(cpus) < 2 {
		t.Skip("one CPU")
	}
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	l.Pin(cpus[1])
	task := l.NewTask()
	var during []int
	task.Start(func() bool { during = evloop.CPUs(); return false })
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	l.Run() // on this locked thread
	if len(during) != 1 || during[0] != cpus[1] {
		t.Errorf("during the loop the thread could run on %v, want [%d]", during, cpus[1])
	}
	if after := evloop.CPUs(); len(after) != len(cpus) {
		t.Errorf("after the loop the thread can run on %v, want %v", after, cpus)
	}
}

// A connection can outlive its loop (the run fell back to goroutines): its
// deadlines and its close must not poke the loop's closed eventfd, whose
// number other files take next.
func TestPokeAfterLoopClosed(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := pairWith(t, evloop.With(context.Background(), l.NewTask()))
	l.Close()
	// The descriptors just freed are the lowest: these pipes take them.
	var readEnds []*os.File
	for range 4 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		readEnds = append(readEnds, r)
	}
	c.SetReadDeadline(time.Now().Add(time.Hour))
	c.Close()
	for _, r := range readEnds {
		r.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if n, _ := r.Read(make([]byte, 8)); n > 0 {
			t.Fatalf("%d bytes written into pipe %s after its descriptor was the loop's", n, r.Name())
		}
	}
}

// Another goroutine that reads a task's connection while the task runs
// (pgx's reader for a slow write) is not the task: were it taken for it, its
// read would wait through the loop from the wrong goroutine.
func TestCurrentIsTheCoroutineOnly(t *testing.T) {
	l, err := evloop.New()
	if err != nil {
		t.Fatal(err)
	}
	task := l.NewTask()
	var inside, other atomic.Bool
	task.Start(func() bool {
		inside.Store(task.Current())
		done := make(chan struct{})
		go func() { other.Store(task.Current()); close(done) }()
		<-done // the task is running all along
		return false
	})
	runLoop(t, l, 10*time.Second)
	if !inside.Load() {
		t.Error("the task's coroutine is not Current")
	}
	if other.Load() {
		t.Error("another goroutine is Current while the task runs")
	}
}

// A task that follows a process moves, between two of its units, to the
// loop pinned on that process's CPU, and goes on there: its reads then wait
// through the new loop.
func TestTaskFollowsItsProcess(t *testing.T) {
	cpus := evloop.CPUs()
	if len(cpus) < 2 {
		t.Skip("one CPU")
	}
	g, err := evloop.NewGroup(2)
	if err != nil {
		t.Fatal(err)
	}
	g.Loops[0].Pin(cpus[0])
	g.Loops[1].Pin(cpus[1])
	// The process to follow: a thread of this test's, kept on cpus[1].
	tid := make(chan int)
	release := make(chan struct{})
	defer close(release)
	go func() {
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpus[1])
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			t.Error(err)
		}
		tid <- unix.Gettid()
		<-release
	}()
	task := g.Loops[0].NewTask()
	task.Follow(<-tid)
	c, peer := pairWith(t, evloop.With(context.Background(), task))
	var slow atomic.Bool
	go func() { // answers each byte, late when asked to, so that reads wait
		buf := make([]byte, 1)
		for {
			if _, err := peer.Read(buf); err != nil {
				return
			}
			if slow.Load() {
				time.Sleep(20 * time.Millisecond)
			}
			if _, err := peer.Write(buf); err != nil {
				return
			}
		}
	}()
	var starts, units int
	var movedTo []int
	deadline := time.Now().Add(5 * time.Second)
	task.Start(func() bool {
		starts++
		buf := []byte{'x'}
		for time.Now().Before(deadline) {
			if task.Moving() {
				return true
			}
			if on := evloop.CPUs(); len(on) == 1 && on[0] == cpus[1] && movedTo == nil {
				movedTo = on
				slow.Store(true)
			}
			if _, err := c.Write(buf); err != nil {
				t.Error(err)
				return false
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				t.Error(err)
				return false
			}
			units++
			if movedTo != nil {
				return false // one slow unit on the new loop
			}
		}
		return false
	})
	done := make(chan struct{})
	go func() { g.Run(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the group did not end")
	}
	if movedTo == nil || starts != 2 || g.Moves() != 1 {
		t.Fatalf("started %d times, %d moves, on CPUs %v at the end: want 2 starts, 1 move, [%d]", starts, g.Moves(), movedTo, cpus[1])
	}
	if units < 2 {
		t.Errorf("%d units: want some on each loop", units)
	}
}
