package zeo

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestManagedServer starts a managed ZEO server for real, commits through
// a client, kills the server with SIGKILL and starts it again on its data
// (the client's ClientStorage reconnects by itself), reads the commit back,
// and stops it: as root the server runs as an account of its own.
func TestManagedServer(t *testing.T) {
	testenv.PythonEnv(t, zodb.Env)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, err := Spec.Open(ctx, backend.Options{DB: "zeo:managed", Dir: t.TempDir(), Durability: backend.Sync})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	info := db.(backend.Server).ServerInfo()
	if os.Geteuid() == 0 && info.Account == "root" {
		t.Errorf("runzeo runs as root")
	}
	c, err := db.(backend.KVDB).KVConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.CreateTable(ctx, "t"))
	must(c.Begin(ctx, true))
	must(c.Put(ctx, "t", []byte("k"), []byte("acknowledged")))
	must(c.Commit(ctx))
	must(db.(backend.Recoverer).CrashRestart(ctx))
	// The client finds the server again within ZEO's reconnection.
	var v []byte
	for deadline := time.Now().Add(30 * time.Second); ; {
		must(c.Begin(ctx, false))
		v, _, err = c.Get(ctx, "t", []byte("k"))
		must(c.Rollback(ctx))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil || string(v) != "acknowledged" {
		t.Fatalf("after the crash restart: %q, %v", v, err)
	}
	e, err := db.Engine(ctx)
	must(err)
	if e.Settings["server_storage"] != "FileStorage" || e.Settings["server_sync"] != "true" {
		t.Errorf("settings read back %v", e.Settings)
	}
}
