package postgres

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

func startPG(t *testing.T, settings map[string]string) *Server {
	t.Helper()
	if _, err := FindServer(""); err != nil {
		testenv.Need(t, err)
	}
	p, err := Start(context.Background(), ServerConfig{Config: server.Config{Dir: t.TempDir()}, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = p.StopClean() })
	return p
}

func TestPostgresStartsAndStops(t *testing.T) {
	p := startPG(t, map[string]string{"synchronous_commit": "off"})
	t.Logf("started in %v as %s: %s", p.Startup, p.Account.Name, p.Note)
	for _, socket := range []bool{false, true} {
		c, err := pgx.Connect(context.Background(), p.DSN(socket))
		if err != nil {
			t.Fatalf("socket=%v: %v", socket, err)
		}
		var v string
		if err := c.QueryRow(context.Background(), "SHOW synchronous_commit").Scan(&v); err != nil || v != "off" {
			t.Fatalf("synchronous_commit = %q, %v", v, err)
		}
		c.Close(context.Background())
	}
	if p.Died() != nil {
		t.Fatal("a running server says it died")
	}
	d, err := p.StopClean()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped in %v", d)
	if _, err := os.Stat(p.DataDir); !os.IsNotExist(err) {
		t.Fatal("the cluster's files were left behind")
	}
	if st, err := os.Stat(p.LogPath); err != nil || st.Size() == 0 {
		t.Fatal("the server's log is missing")
	}
	if p.Died() != nil {
		t.Fatal("a stopped server is reported dead")
	}
}

func TestPostgresDeath(t *testing.T) {
	p := startPG(t, nil)
	_ = syscall.Kill(p.Pid(), syscall.SIGKILL) // the postmaster only: as a crash would
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not exit")
	}
	if p.Died() == nil {
		t.Fatal("a killed server is not reported dead")
	}
}

func TestFindPostgres(t *testing.T) {
	if _, err := FindServer(filepath.Join(t.TempDir(), "nothing")); err == nil {
		t.Fatal("a folder without PostgreSQL was accepted")
	}
}
