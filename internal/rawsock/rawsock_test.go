package rawsock

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// pair returns the two ends of a loopback TCP connection, the first wrapped.
func pair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	w, s := pairWith(t, context.Background())
	if _, ok := w.(*Conn); !ok {
		t.Fatalf("Wrap returned a %T", w)
	}
	return w, s
}

// pairWith is pair with the first end wrapped with ctx (WrapContext): a
// context carrying an event loop's task attaches it to the task.
func pairWith(t *testing.T, ctx context.Context) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	w := WrapContext(ctx, c)
	t.Cleanup(func() { w.Close(); s.Close() })
	return w, s
}

// TestBothWays: a message larger than the socket's buffers goes out whole
// (the write waits in the poller when the buffer is full) and comes back
// through reads that wait when nothing has arrived yet.
func TestBothWays(t *testing.T) {
	c, s := pair(t)
	msg := bytes.Repeat([]byte("dbgauge "), 1<<20) // 8 MiB: more than the buffers hold
	go func() {
		_, _ = io.Copy(s, s) // echo
	}()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write(msg)
		errc <- err
	}()
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("the echo differs from what was written")
	}
}

// TestDeadline: a read with nothing to read ends at the deadline as
// net.Conn's does; and a deadline set in the past interrupts a read in flight
// (how the postgres backend cancels).
func TestDeadline(t *testing.T) {
	c, _ := pair(t)
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := c.Read(make([]byte, 10))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("%v is not a net.Error timeout", err)
	}
	if d := time.Since(start); d < 40*time.Millisecond || d > 2*time.Second {
		t.Fatalf("the read ended after %s, not at its 50 ms deadline", d)
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	_ = c.SetDeadline(time.Now())
	select {
	case err := <-done:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("interrupted read: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a deadline in the past did not interrupt the read")
	}
}

// TestEOFAndClosed: the peer's close is io.EOF; a read on our closed end is net.ErrClosed.
func TestEOFAndClosed(t *testing.T) {
	c, s := pair(t)
	s.Close()
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, io.EOF) {
		t.Fatalf("read after the peer closed: %v, want io.EOF", err)
	}
	c.Close()
	if _, err := c.Read(make([]byte, 10)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read on a closed conn: %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write on a closed conn: %v, want net.ErrClosed", err)
	}
}

// TestPipeIsLeftAlone: a conn without a file descriptor is returned as it is.
func TestPipeIsLeftAlone(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Wrap(a) != a {
		t.Fatal("net.Pipe was wrapped")
	}
}

// TestNoAllocation: a read and a write allocate nothing (closures made at
// each call would).
func TestNoAllocation(t *testing.T) {
	c, s := pair(t)
	go func() { _, _ = io.Copy(s, s) }()
	msg, got := []byte("ping"), make([]byte, 4)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, got); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%.1f allocations per write and read, want 0", n)
	}
}
