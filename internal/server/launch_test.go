package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// me runs the test's processes as the test's own user.
func me() Account { return Account{Name: "me", UID: os.Getuid(), GID: os.Getgid()} }

// TestLaunch: a try whose port was taken is made again on another port,
// three tries in all; a failed try's process is killed.
func TestLaunch(t *testing.T) {
	cases := []struct {
		name      string
		fails     int  // tries whose Ready fails
		taken     bool // and blame a taken port
		wantTries int
		wantErr   bool
	}{
		{"ready", 0, false, 1, false},
		{"taken=2", 2, true, 3, false},
		{"taken=always", 9, true, 3, true},
		{"failed", 9, false, 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "server.log")
			var procs []*Process
			var ports []int
			startup, err := Launch{
				Start: func(port int) (*Process, error) {
					p, err := Start(me(), log, "sleep", "30")
					if err == nil {
						procs, ports = append(procs, p), append(ports, port)
					}
					return p, err
				},
				Ready: func() error {
					if len(procs) <= c.fails {
						return errors.New("not ready")
					}
					return nil
				},
				Taken: func() bool { return c.taken },
			}.Run()
			t.Cleanup(func() {
				for _, p := range procs {
					_ = p.Kill()
				}
			})
			if len(procs) != c.wantTries || (err != nil) != c.wantErr {
				t.Fatalf("%d tries, error %v; want %d tries, an error: %v", len(procs), err, c.wantTries, c.wantErr)
			}
			for i, p := range procs {
				if ports[i] <= 0 {
					t.Errorf("try %d on port %d", i+1, ports[i])
				}
				failed := i < c.fails
				select {
				case <-p.Done():
					if !failed {
						t.Errorf("try %d served, and was stopped", i+1)
					}
				default:
					if failed {
						t.Errorf("try %d failed, and its process runs on", i+1)
					}
				}
			}
			if err == nil && startup <= 0 {
				t.Errorf("start-up %v", startup)
			}
		})
	}
}

// TestWaitReady: it returns when connect does, and says so with the log's
// end when the process exits first or the caller gives up.
func TestWaitReady(t *testing.T) {
	log := filepath.Join(t.TempDir(), "server.log")
	p, err := Start(me(), log, "sh", "-c", "echo 'FATAL: no such role'; sleep 30")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	n := 0
	if err := p.WaitReady(context.Background(), time.Millisecond, func() error {
		if n++; n < 3 {
			return errors.New("refused")
		}
		return nil
	}); err != nil || n != 3 {
		t.Errorf("WaitReady = %v after %d connects, want nil after 3", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.WaitReady(ctx, time.Millisecond, func() error { return errors.New("refused") }); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitReady with a canceled context = %v", err)
	}
	dead, err := Start(me(), log, "sh", "-c", "echo 'FATAL: bad setting'; exit 1")
	if err != nil {
		t.Fatal(err)
	}
	err = dead.WaitReady(context.Background(), time.Millisecond, func() error { return errors.New("refused") })
	if err == nil || !strings.Contains(err.Error(), "sh exited while starting") || !strings.Contains(err.Error(), "FATAL: bad setting") {
		t.Errorf("WaitReady on a process that exits = %v, want its exit and its log", err)
	}
}

// TestWaitReadyEndsWithItsContext: a server that never accepts is waited
// for until its context ends, not for ReadyWithin: the error says what
// was waited for, with the context's cause. RunContext's command ends with
// its context likewise.
func TestWaitReadyEndsWithItsContext(t *testing.T) {
	p, err := Start(me(), filepath.Join(t.TempDir(), "server.log"), "sleep", "60")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	stopped := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(200*time.Millisecond, func() { cancel(stopped) })
	start := time.Now()
	err = p.WaitReady(ctx, 20*time.Millisecond, func() error { return errors.New("connection refused") })
	if took := time.Since(start); !errors.Is(err, stopped) || !strings.Contains(err.Error(), "sleep: stopped waiting for it to accept connections") || took > ReadyWithin/2 {
		t.Fatalf("WaitReady after its context ended: %v after %s", err, took)
	}
	ctx, cancel2 := context.WithTimeoutCause(context.Background(), 200*time.Millisecond, errors.New("it took too long"))
	defer cancel2()
	start = time.Now()
	err = me().RunContext(ctx, nil, "sh", "-c", "sleep 60 & sleep 60")
	if took := time.Since(start); err == nil || !strings.Contains(err.Error(), "sh: it took too long") || took > 30*time.Second {
		t.Fatalf("RunContext past its deadline: %v after %s", err, took)
	}
}

// TestAddressInUse: a taken port as servers word it is told from other
// failures to start, whatever its case.
func TestAddressInUse(t *testing.T) {
	for tail, want := range map[string]bool{
		"[ERROR] Can't start server: Bind on TCP/IP port: Address already in use":                                    true,  // MariaDB
		"OSError: [Errno 98] error while attempting to bind on address ('127.0.0.1', 35441): address already in use": true,  // runzeo
		`{"level":"fatal","msg":"listen tcp 127.0.0.1:2379: bind: address already in use"}`:                          true,  // etcd
		"FATAL: could not open file \"postgresql.conf\": Permission denied":                                          false, // another failure
		"": false,
	} {
		if got := AddressInUse(tail); got != want {
			t.Errorf("AddressInUse(%q) = %v, want %v", tail, got, want)
		}
	}
}
