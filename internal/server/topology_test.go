package server

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// sleeper is an Instance of a "sleep" process in its own folders under
// dir/name, stopped by SIGTERM: a server the kit can stop.
func sleeper(t *testing.T, dir, name string, launch bool) *Instance {
	t.Helper()
	base := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Join(base, "data"), 0o700); err != nil {
		t.Fatal(err)
	}
	in := &Instance{Account: me(), Dir: dir, DataDir: filepath.Join(base, "data"), Recipe: Recipe{Stop: syscall.SIGTERM, StopWithin: 10 * time.Second}}
	if launch {
		p, err := Start(me(), filepath.Join(dir, name+".log"), "sleep", "30")
		if err != nil {
			t.Fatal(err)
		}
		in.Process = p
		t.Cleanup(func() { _ = p.Kill() })
	}
	return in
}

// TestStopAll: every server launched is stopped and its folders removed,
// one never launched only discarded, a nil one passed over; the duration
// is the first server's stop.
func TestStopAll(t *testing.T) {
	dir := t.TempDir()
	first, never, last := sleeper(t, dir, "first", true), sleeper(t, dir, "never", false), sleeper(t, dir, "last", true)
	d, err := StopAll([]*Instance{first, nil, never, last})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []*Instance{first, never, last} {
		if _, err := os.Stat(in.Base()); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", in.Base(), err)
		}
	}
	for _, in := range []*Instance{first, last} {
		select {
		case <-in.Done():
		default:
			t.Errorf("%s runs on", in.Base())
		}
		if in.Died() != nil {
			t.Errorf("a server stopped is reported dead: %v", in.Died())
		}
	}
	if d <= 0 {
		t.Errorf("the first server's stop took %v", d)
	}
}

// TestKilled: a process is Killed once Kill was called on it, not when it
// was stopped cleanly; Crash's restart is a new process, not killed; a nil
// process was never killed.
func TestKilled(t *testing.T) {
	dir := t.TempDir()
	p, err := Start(me(), filepath.Join(dir, "a.log"), "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	if p.Killed() {
		t.Error("a running process is Killed")
	}
	again, err := p.Crash()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = again.Kill() })
	if !p.Killed() || again.Killed() {
		t.Errorf("after Crash: the old process Killed %v, the new one %v; want true, false", p.Killed(), again.Killed())
	}
	q, err := Start(me(), filepath.Join(dir, "b.log"), "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Stop(syscall.SIGTERM, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if q.Killed() {
		t.Error("a process stopped cleanly is Killed")
	}
	if (*Process)(nil).Killed() {
		t.Error("a nil Process is Killed")
	}
}

// TestReplicaOnLoopback: a replica's folders are made beside the primary's
// data, in replica-NAME, with the primary's account and password; without
// a network it has no Host and listens on loopback.
func TestReplicaOnLoopback(t *testing.T) {
	primary := sleeper(t, t.TempDir(), "primary", false)
	primary.Password = "pw"
	r, err := primary.Replica(context.Background(), nil, "r1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Discard)
	if want := filepath.Join(primary.Base(), "replica-r1", "data"); r.DataDir != want {
		t.Errorf("DataDir %s, want %s", r.DataDir, want)
	}
	if st, err := os.Stat(r.Base()); err != nil || !st.IsDir() {
		t.Errorf("its folder: %v", err)
	}
	if r.Host != nil || r.ListenAddr() != "127.0.0.1" || r.Password != "pw" || r.Account != primary.Account {
		t.Errorf("Host %v, address %s, password %q, account %v", r.Host, r.ListenAddr(), r.Password, r.Account)
	}
	if _, err := primary.Replica(context.Background(), nil, "r1"); err == nil {
		t.Error("a second replica r1 was made over the first")
	}
}

// TestClusterNetWithoutTopology: a server without replicas is given no
// network, and isolating a primary on loopback is refused with a reason.
func TestClusterNetWithoutTopology(t *testing.T) {
	net, host, err := ClusterNet(context.Background(), "none")
	if net != nil || host != nil || err != nil {
		t.Errorf("ClusterNet(none) = %v, %v, %v; want nothing", net, host, err)
	}
	undo, how, err := IsolatePrimary(context.Background(), nil)
	if err == nil || how != "" {
		t.Errorf("IsolatePrimary on loopback: %q, %v; want a refusal", how, err)
	}
	undo() // does nothing, and must not panic
}
