package backend

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/server"
)

// TestServerInfoOf: the process's facts are filled in, the engine's kept.
func TestServerInfoOf(t *testing.T) {
	acct := server.Account{Name: "me", UID: os.Getuid(), GID: os.Getgid()}
	p, err := server.Start(acct, filepath.Join(t.TempDir(), "log"), "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	info := ServerInfo{Engine: "x", Port: 5432, PID: -1, MemoryLimit: -1, Cgroup: "stale", CPUs: "stale"}.Of(p)
	want := ServerInfo{Engine: "x", Port: 5432, PID: p.Pid()} // no cgroup, not placed
	if info != want {
		t.Errorf("Of = %+v, want %+v", info, want)
	}
}

// TestNodeOf: a cluster's node says its server's port, start-up and log,
// and its address only on the cluster's network.
func TestNodeOf(t *testing.T) {
	acct := server.Account{Name: "me", UID: os.Getuid(), GID: os.Getgid()}
	log := filepath.Join(t.TempDir(), "log")
	p, err := server.Start(acct, log, "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	in := &server.Instance{Process: p, Port: 5433, Startup: 1500 * time.Millisecond}
	want := Node{Name: "r1", Upstream: "primary", Port: 5433, StartupSeconds: 1.5, Log: log}
	if n := NodeOf(in, "r1", "primary"); n != want {
		t.Errorf("on loopback: %+v, want %+v", n, want)
	}
	in.Host = &netns.Host{Node: "r1", Addr: "10.213.1.11"}
	want.Addr = "10.213.1.11"
	if n := NodeOf(in, "r1", "primary"); n != want {
		t.Errorf("on a network: %+v, want %+v", n, want)
	}
}
