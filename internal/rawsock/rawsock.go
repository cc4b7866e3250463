// Package rawsock is a net.Conn whose reads and writes are raw system calls
// on the socket, waiting through Go's network poller only when the socket
// is not ready.
//
// net.Conn enters every read and write as a blocking system call: the
// runtime marks the goroutine's P as in a syscall, and when the call lasts
// longer than the system monitor's tick (20 µs) the monitor hands the P to
// another thread. On loopback a write runs the receiver's network stack and
// often wakes the server into the writer's CPU, so writes last that long
// all the time: each one then costs thread hand-offs, and the monitor itself
// keeps waking every 20 µs. On two cores shared with the server, that CPU is
// the server's: a harness client through net.Conn spent ~120 µs of CPU per
// pgbench transaction where pgbench spent ~93; through rawsock ~100 (see
// docs/architecture.md, "The client's CPU").
//
// The socket is non-blocking (Go's sockets always are), so a raw call never
// blocks in the kernel: it returns data or EAGAIN, and on EAGAIN the
// goroutine parks in the poller as net.Conn's would. Deadlines work as on
// the wrapped connection.
//
// A connection opened for a client that runs on an event loop
// (WrapContext, internal/evloop) waits through the loop instead, when its
// client's coroutine reads; the loop honors its read deadline.
package rawsock

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/evloop"
)

// Conn is a net.Conn that reads and writes through raw system calls.
type Conn struct {
	net.Conn
	rc syscall.RawConn
	// The state of the read and of the write in flight, and the functions
	// the poller calls with the descriptor, made once: closures made at
	// each call would be allocated at each call. The descriptor's read and
	// write locks, which RawConn takes, keep one read and one write at a
	// time.
	r, w          pending
	readF, writeF func(fd uintptr) bool

	// On an event loop: the client's task, the socket's descriptor and its
	// registration in the loop, the read deadline (unix ns, 0 for none),
	// and whether a write is in flight (a read meanwhile is another
	// goroutine's: pgconn's background reader).
	task     *evloop.Task
	fd       int
	reg      *evloop.Reg
	deadline atomic.Int64
	writing  atomic.Bool
}

// pending is one direction's call in flight.
type pending struct {
	b     []byte
	n     int
	errno syscall.Errno
}

// Wrap returns c reading and writing through raw system calls, or c itself
// when it exposes no file descriptor (syscall.Conn).
func Wrap(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	rs := &Conn{Conn: c, rc: rc}
	rs.readF, rs.writeF = rs.readFd, rs.writeFd
	return rs
}

// WrapContext is Wrap, and when ctx carries an event loop's task
// (evloop.With), the connection waits through it when the task reads.
func WrapContext(ctx context.Context, c net.Conn) net.Conn {
	w := Wrap(c)
	rs, ok := w.(*Conn)
	t := evloop.From(ctx)
	if !ok || t == nil {
		return w
	}
	if err := rs.rc.Control(func(fd uintptr) { rs.fd = int(fd) }); err != nil {
		return w
	}
	rs.task, rs.reg = t, t.NewReg(rs.fd)
	t.Attach()
	return rs
}

// Read reads what the socket has, waiting in the poller when it has nothing.
func (c *Conn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if c.task != nil && c.task.Current() && !c.writing.Load() {
		return c.readTask(b)
	}
	c.r = pending{b: b}
	err := c.rc.Read(c.readF)
	n, errno := c.r.n, c.r.errno
	c.r.b = nil
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// readTask reads on the task's coroutine, waiting through its loop.
func (c *Conn) readTask(b []byte) (int, error) {
	for {
		n, errno := read(uintptr(c.fd), b)
		switch {
		case errno == syscall.EAGAIN:
			if err := c.task.Wait(c.reg, &c.deadline); err != nil {
				return 0, c.opError("read", err)
			}
			continue
		case errno != 0:
			return 0, c.opError("read", errno)
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// readFd makes one read; false asks the poller to wait until the socket is readable.
func (c *Conn) readFd(fd uintptr) bool {
	c.r.n, c.r.errno = read(fd, c.r.b)
	return c.r.errno != syscall.EAGAIN
}

// Write writes all of b, waiting in the poller when the socket's buffer is full.
func (c *Conn) Write(b []byte) (int, error) {
	if c.task != nil {
		c.writing.Store(true)
		defer c.writing.Store(false)
		if c.task.Current() {
			// The task's own write: straight to the socket, without the
			// descriptor's locks (the task is its only user meanwhile);
			// the poller only for what the socket's buffer cannot take.
			done := 0
			for done < len(b) {
				n, errno := write(uintptr(c.fd), b[done:])
				if errno == syscall.EAGAIN {
					break
				}
				if errno != 0 {
					return done, c.opError("write", errno)
				}
				done += n
			}
			if done == len(b) {
				return done, nil
			}
			n, err := c.write(b[done:])
			return done + n, err
		}
	}
	return c.write(b)
}

// write writes b through the poller.
func (c *Conn) write(b []byte) (int, error) {
	c.w = pending{b: b}
	err := c.rc.Write(c.writeF)
	done, errno := c.w.n, c.w.errno
	c.w.b = nil
	switch {
	case err != nil:
		return done, c.opError("write", err)
	case errno != 0:
		return done, c.opError("write", errno)
	}
	return done, nil
}

// writeFd writes what is left of the write in flight; false asks the poller
// to wait until the socket is writable.
func (c *Conn) writeFd(fd uintptr) bool {
	for c.w.n < len(c.w.b) {
		n, e := write(fd, c.w.b[c.w.n:])
		if e == syscall.EAGAIN {
			return false
		}
		if e != 0 {
			c.w.errno = e
			return true
		}
		c.w.n += n
	}
	return true
}

// opError wraps err as net.Conn's methods do, so that callers can tell a
// timeout (os.ErrDeadlineExceeded) or a closed connection (net.ErrClosed).
func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// SetDeadline sets the read and write deadlines (net.Conn).
func (c *Conn) SetDeadline(t time.Time) error {
	c.setReadDeadline(t)
	return c.Conn.SetDeadline(t)
}

// SetReadDeadline sets the read deadline (net.Conn).
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.setReadDeadline(t)
	return c.Conn.SetReadDeadline(t)
}

// setReadDeadline keeps the deadline for reads waiting on a loop, and wakes
// the loop to see it: the run's watcher sets a deadline in the past from
// its own goroutine to end a statement in flight.
func (c *Conn) setReadDeadline(t time.Time) {
	if c.task == nil {
		return
	}
	var ns int64
	if !t.IsZero() {
		ns = t.UnixNano()
	}
	c.deadline.Store(ns)
	c.task.Poke()
}

// Close closes the connection, first telling its loop (if any) that the
// descriptor is going.
func (c *Conn) Close() error {
	if c.task != nil {
		c.reg.Close()
		c.task.Poke()
	}
	return c.Conn.Close()
}
