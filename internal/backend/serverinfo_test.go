package backend

import (
	"os"
	"path/filepath"
	"testing"

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
