package redis

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// needServer skips t (fails it in CI) where no redis-server is installed.
func needServer(t *testing.T) {
	t.Helper()
	_, err := FindServer()
	testenv.Need(t, err) // .ci/run installs redis-server: in CI this never skips
}

func TestConformance(t *testing.T) {
	needServer(t)
	backendtest.Run(t, Spec, nil)
}

// TestWatchConflict: two write transactions read the same key and write
// it; the second to commit finds the key changed since its read (its
// WATCH), writes nothing, and fails as a conflict to retry.
func TestWatchConflict(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db := backendtest.Open(t, Spec, backend.Options{Conns: 2})
	a, b := backendtest.KVConn(t, db), backendtest.KVConn(t, db)
	err := backendtest.WriteWrite(t, a, b, "w")
	if dberr.ClassOf(err) != dberr.Retryable || !errors.Is(err, goredis.TxFailedErr) {
		t.Fatalf("the second commit of a key changed since its read: %v (class %v), want EXEC nil, retryable", err, dberr.ClassOf(err))
	}
	// The aborted EXEC released its WATCH: b's next transaction commits.
	backendtest.Put(t, b, "w", "k", "2")
	st, err := db.(backend.Statser).Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st["commits"] != 4 {
		t.Errorf("INFO commandstats counted %d EXECs, want 4 (three committed, one aborted)", st["commits"])
	}
}

// TestCrashRestart: a managed server killed with SIGKILL at --durability
// sync comes back with every write it acknowledged, and says it loaded
// its AOF; its clean stop removes its folder and keeps its log.
func TestCrashRestart(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	db := backendtest.Open(t, Spec, backend.Options{Conns: 1})
	c := backendtest.KVConn(t, db)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	for i := range 200 {
		backendtest.Put(t, c, "t", strconv.Itoa(i), "v")
	}
	m := db.(managedDB)
	pid := m.ServerInfo().PID
	if err := m.CrashRestart(ctx); err != nil {
		t.Fatal(err)
	}
	if m.ServerInfo().PID == pid {
		t.Fatal("the server's process is the same after a crash restart")
	}
	if !strings.HasPrefix(m.Recovery(), "Redis loaded its AOF in ") {
		t.Errorf("recovery note %q", m.Recovery())
	}
	n := 0
	c2 := backendtest.KVConn(t, db)
	if err := c2.Begin(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := c2.Scan(ctx, "t", func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 200 {
		t.Errorf("%d records after the crash restart, want 200", n)
	}
	if ok, detail, err := m.Integrity(ctx); err != nil || !ok || !strings.Contains(detail, "valid") {
		t.Errorf("integrity after the crash restart: %v %q %v", ok, detail, err)
	}
	info := m.ServerInfo()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(info.DataDir); !os.IsNotExist(err) {
		t.Errorf("the data folder %s is still there after Close (%v)", info.DataDir, err)
	}
	if _, err := os.Stat(info.Log); err != nil {
		t.Errorf("the log is gone: %v", err)
	}
}

// TestUserServer: a server of the user's, reached by a redis:// URL with a
// password: the run's durability set with CONFIG SET, read back, and set
// back at Close; a wrong password refused without showing it.
func TestUserServer(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	srv, err := Start(ctx, ServerConfig{Config: server.Config{Dir: t.TempDir()}, Settings: map[string]string{"appendonly": "no", "appendfsync": "everysec"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.StopClean()
	url := "redis://:" + srv.Password + "@127.0.0.1:" + strconv.Itoa(srv.Port) + "/3"
	if err := preflight(url); err != nil {
		t.Fatal(err)
	}
	db := backendtest.Open(t, Spec, backend.Options{DB: url, Conns: 1})
	e, err := db.Engine(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if e.Settings["appendonly"] != "yes" || e.Settings["appendfsync"] != "always" {
		t.Errorf("read back appendonly %q, appendfsync %q; want yes, always", e.Settings["appendonly"], e.Settings["appendfsync"])
	}
	c := backendtest.KVConn(t, db)
	backendtest.Must(t, c.CreateTable(ctx, "u"))
	backendtest.Put(t, c, "u", "k", "v")
	_ = c.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ch := range db.(backend.Changer).Changes() {
		if !ch.Restored {
			t.Errorf("%s was not set back to %s: %s", ch.Key, ch.Was, ch.Err)
		}
	}
	admin := goredis.NewClient(srv.options(1))
	defer admin.Close()
	for k, want := range map[string]string{"appendonly": "no", "appendfsync": "everysec"} {
		if got, err := configGet(ctx, admin, k); err != nil || got != want {
			t.Errorf("after Close %s = %q (%v), want it set back to %q", k, got, err, want)
		}
	}
	// The record went to database 3 of the URL, under dbgauge's prefix.
	o := srv.options(1)
	o.DB = 3
	in3 := goredis.NewClient(o)
	defer in3.Close()
	if v, err := in3.Get(ctx, recordKey("u", []byte("k"))).Result(); err != nil || v != "v" {
		t.Errorf("database 3 holds %q (%v) for the record, want v", v, err)
	}
	wrong := strings.Replace(url, srv.Password, "not-the-password", 1)
	_, err = Spec.Open(ctx, backend.Options{DB: wrong, Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once})
	if err == nil || strings.Contains(err.Error(), "not-the-password") || strings.Contains(err.Error(), srv.Password) {
		t.Errorf("a wrong password: %v; want a refusal that shows no password", err)
	}
}

// TestUnknownParameter: a --set that redis-server does not know stops its
// start, refused as bad input naming the parameter.
func TestUnknownParameter(t *testing.T) {
	needServer(t)
	_, err := Spec.Open(context.Background(), backend.Options{DB: managed, Dir: t.TempDir(), Durability: backend.Sync,
		Set: []backend.KeyValue{{Key: "no-such-parameter", Value: "1"}}})
	var bad *knob.Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "no-such-parameter") {
		t.Fatalf("--set no-such-parameter=1: %v; want bad input naming it", err)
	}
}
