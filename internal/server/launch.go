package server

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Launch is how an engine's managed server is started on a free loopback
// port: the engine says how to start it and how to tell that it serves.
type Launch struct {
	// Memory (--server-memory), when not 0, runs the server in a memory
	// cgroup of its own with this limit, made at the first try; the Process
	// keeps it (ReleaseCgroup).
	Memory int64
	// Start starts the server on port; the engine keeps the Process (Ready
	// reaches it through the engine).
	Start func(port int) (*Process, error)
	// Ready waits until the server just started accepts connections.
	Ready func() error
	// Taken says, after a try failed, that another process took the port
	// between FreePort and the server's bind (from what the server logged);
	// nil: a failed try is final.
	Taken func() bool
}

// Run starts the server on a free port and waits until it is ready; a try
// whose port was taken meanwhile is killed and made again on another port,
// three tries in all. It returns the start-up time of the try that served:
// from the start to its first accepted connection. A server that did not
// come up is killed (SIGKILL) and its cgroup removed.
func (l Launch) Run() (time.Duration, error) {
	var cg *Cgroup
	for attempt := 0; ; attempt++ {
		port, err := FreePort()
		if err != nil {
			return 0, err
		}
		if l.Memory > 0 && cg == nil {
			if cg, err = NewCgroup(fmt.Sprintf("dbgauge-%d-%d", os.Getpid(), port), l.Memory); err != nil {
				return 0, err
			}
		}
		start := time.Now()
		p, err := l.Start(port)
		if err != nil {
			_ = cg.Remove()
			return 0, err
		}
		if err = p.Confine(cg); err == nil {
			err = l.Ready()
		}
		startup := time.Since(start)
		if err == nil {
			return startup, nil
		}
		_, _ = p.Stop(syscall.SIGKILL, 5*time.Second)
		if attempt < 2 && l.Taken != nil && l.Taken() {
			continue
		}
		_ = cg.Remove()
		return 0, err
	}
}

// ReadyWithin bounds WaitReady: a server that accepts no connection this
// long after its start (a crash recovery included) is not coming.
const ReadyWithin = 60 * time.Second

// WaitReady calls connect until it returns nil, the process exits, ctx ends
// or ReadyWithin passes, poll apart; connect must bound each try itself.
// Its errors say what it waited for, and end with the last lines of the
// log; when ctx ended, the error wraps its cause.
func (p *Process) WaitReady(ctx context.Context, poll time.Duration, connect func() error) error {
	deadline := time.Now().Add(ReadyWithin)
	t := time.NewTimer(poll)
	defer t.Stop()
	for {
		err := connect()
		if err == nil {
			return nil
		}
		t.Reset(poll)
		select {
		case <-p.Done():
			return fmt.Errorf("%s exited while starting; its log ends with: %s", p.Name, p.LogTail(5))
		case <-ctx.Done():
			return fmt.Errorf("%s: stopped waiting for it to accept connections: %w", p.Name, context.Cause(ctx))
		case <-t.C:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not accept connections within %s: %w; its log ends with: %s", p.Name, ReadyWithin, err, p.LogTail(5))
		}
	}
}
