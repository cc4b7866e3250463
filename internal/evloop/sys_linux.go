//go:build linux && (amd64 || arm64)

package evloop

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/dbgauge/dbgauge/internal/procstat"
)

// Supported says whether loops run on this platform.
const Supported = true

// sys is a loop's epoll, its events and the eventfd that pokes it.
type sys struct {
	ep, efd int
	events  []syscall.EpollEvent
	// mu orders pokes, from any goroutine, with close: a connection can
	// outlive its loop (the run fell back to goroutines, or a close comes
	// late), and writing to a closed descriptor's number could write into
	// whatever file has it next.
	mu     sync.Mutex
	closed bool
}

// getg returns the running goroutine's g (getg_*.s): which goroutine
// runs, without a system call. Only compared, never dereferenced.
func getg() uintptr

// newLoop makes a loop, outside any group.
func newLoop() (*Loop, error) {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("evloop: epoll_create1: %w", err)
	}
	efd, _, e := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if e != 0 {
		syscall.Close(ep)
		return nil, fmt.Errorf("evloop: eventfd2: %w", e)
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Pad: -1}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(efd), &ev); err != nil {
		syscall.Close(ep)
		syscall.Close(int(efd))
		return nil, fmt.Errorf("evloop: epoll_ctl: %w", err)
	}
	return &Loop{sys: sys{ep: ep, efd: int(efd), events: make([]syscall.EpollEvent, 128)}, cpu: -1}, nil
}

// CPUs lists the CPUs this process may run on.
func CPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// pinThread keeps the calling thread (locked to its goroutine) on cpu, and
// returns what puts it back where it could run before; nil when it cannot.
func pinThread(cpu int) func() {
	var was, set unix.CPUSet
	if unix.SchedGetaffinity(0, &was) != nil {
		return nil
	}
	set.Set(cpu)
	if unix.SchedSetaffinity(0, &set) != nil {
		return nil
	}
	return func() { _ = unix.SchedSetaffinity(0, &was) }
}

func (s *sys) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		syscall.Close(s.ep)
		syscall.Close(s.efd)
	}
}

// add watches r's socket for readability, level-triggered: an event read
// and not acted on comes back at the next wait.
func (l *Loop) add(r *Reg) error {
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP, Pad: r.idx}
	err := syscall.EpollCtl(l.ep, syscall.EPOLL_CTL_ADD, r.fd, &ev)
	if err == syscall.EEXIST {
		err = syscall.EpollCtl(l.ep, syscall.EPOLL_CTL_MOD, r.fd, &ev)
	}
	return err
}

func (l *Loop) del(r *Reg) {
	ev := syscall.EpollEvent{}
	_ = syscall.EpollCtl(l.ep, syscall.EPOLL_CTL_DEL, r.fd, &ev)
}

// wait waits up to ms (-1: without end) for events, and reports whether
// the loop was poked. Its events are those of registrations; EINTR (the
// runtime's preemption signal) is no event.
//
// The wait is a raw system call, so that the runtime keeps the loop's P:
// see the package's comment. It stays preemptible: the runtime's signal
// ends the wait with EINTR, and the preemption is taken at the next
// function call's prologue, which is why this function is not inlined.
//
//go:noinline
func (l *Loop) wait(ms int) (int, bool) {
	n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(l.ep), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(ms), 0, 0)
	if e != 0 {
		return 0, false
	}
	poked := false
	k := 0
	for _, ev := range l.events[:n] {
		if ev.Pad == -1 {
			var b [8]byte
			_, _, _ = syscall.RawSyscall(syscall.SYS_READ, uintptr(l.efd), uintptr(unsafe.Pointer(&b[0])), 8) // empties the counter
			poked = true
			continue
		}
		l.events[k] = ev
		k++
	}
	return k, poked
}

func (l *Loop) poke() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], 1)
	_, _ = syscall.Write(l.efd, b[:]) // fails only when the counter is full: the loop is woken already
}

// processCPU reads the CPU that process pid last ran on.
func processCPU(pid int) (int, bool) {
	f, err := procstat.Fields(pid)
	if err != nil || len(f) <= procstat.Processor {
		return 0, false
	}
	cpu, err := strconv.Atoi(f[procstat.Processor])
	return cpu, err == nil
}
