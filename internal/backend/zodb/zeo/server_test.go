package zeo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/knob"
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
	db, err := Spec.Open(ctx, backend.Options{DB: "zeo:managed", Dir: t.TempDir(), Durability: backend.Sync, CacheBytes: 8 << 20})
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
	if e.Settings["server_storage"] != "FileStorage" || e.Settings["server_sync"] != "true" || e.CacheBytes != 8<<20 {
		t.Errorf("settings read back %v, cache %d (--cache 8MB asked)", e.Settings, e.CacheBytes)
	}
}

// TestUserServer: zeo://HOST:PORT reaches a server dbgauge did not start
// (here a managed one's port), checked before anything is made; a port
// nothing answers on is bad input.
func TestUserServer(t *testing.T) {
	testenv.PythonEnv(t, zodb.Env)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	managed, err := Spec.Open(ctx, backend.Options{DB: "zeo:managed", Dir: t.TempDir(), Durability: backend.Sync})
	if err != nil {
		t.Fatal(err)
	}
	defer managed.Close()
	db := fmt.Sprintf("zeo://127.0.0.1:%d", managed.(backend.Server).ServerInfo().Port)
	if !Spec.Match(db) || Spec.Preflight(db) != nil {
		t.Fatalf("%s: match %v, preflight %v", db, Spec.Match(db), Spec.Preflight(db))
	}
	d, err := Spec.Open(ctx, backend.Options{DB: db, Dir: t.TempDir(), Durability: backend.Sync})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, ok := d.(backend.Server); ok {
		t.Error("a server of the user's is a backend.Server of dbgauge's")
	}
	scansAgree(ctx, t, managed.(backend.KVDB), d.(backend.KVDB))
	e, err := d.Engine(ctx)
	if err != nil || !slices.Contains(e.NotReadBack, "server_storage") {
		t.Errorf("engine %+v, %v", e, err)
	}
	var bad *knob.Error
	if err := Spec.Preflight("zeo://127.0.0.1:1"); !errors.As(err, &bad) {
		t.Errorf("a port nothing answers on gave %v", err)
	}
	if err := Spec.Preflight("zeo://nohost"); !errors.As(err, &bad) {
		t.Errorf("no port gave %v", err)
	}
}

// scansAgree: a table's scan through a managed server's client, which walks
// ranges of oids at once (zodb.ManagedZEO), and through a user's server's,
// which walks them in one chain, give the same records, each once, in key
// order, and none of another table's.
func scansAgree(ctx context.Context, t *testing.T, managed, user backend.KVDB) {
	t.Helper()
	c, err := managed.KVConn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var keys, vals, other [][]byte
	for i := range 300 {
		keys = append(keys, fmt.Appendf(nil, "k%04d", i))
		vals = append(vals, fmt.Appendf(nil, "v%d", i))
		if i < 20 {
			other = append(other, fmt.Appendf(nil, "o%04d", i))
		}
	}
	scan := func(d backend.KVDB) []string {
		c, err := d.KVConn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var got []string
		if err := c.Begin(ctx, false); err != nil {
			t.Fatal(err)
		}
		defer c.Rollback(ctx)
		if err := c.Scan(ctx, "t", func(k, v []byte) error {
			got = append(got, string(k)+"="+string(v))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, name := range []string{"t", "u"} {
		if err := c.CreateTable(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	put := func(table string, keys, vals [][]byte) {
		t.Helper()
		if err := c.Begin(ctx, true); err != nil {
			t.Fatal(err)
		}
		if err := c.(backend.BulkLoader).PutNew(ctx, table, keys, vals); err != nil {
			t.Fatal(err)
		}
		if err := c.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// On a storage of a few records most ranges hold none: their walks
	// find none, or the first record of a range after them, not theirs.
	if got := scan(managed); len(got) != 0 {
		t.Errorf("the managed server's scan of an empty table found %.3q", got)
	}
	put("t", keys[:1], vals[:1])
	if got := scan(managed); !slices.Equal(got, []string{"k0000=v0"}) {
		t.Errorf("the managed server's scan of a table of one record found %.3q", got)
	}
	put("t", keys[1:], vals[1:])
	put("u", other, vals[:len(other)])
	want := make([]string, len(keys))
	for i := range keys {
		want[i] = string(keys[i]) + "=" + string(vals[i])
	}
	if got := scan(managed); !slices.Equal(got, want) {
		t.Errorf("the managed server's scan found %d records (%.3q…), want the %d written, in order", len(got), got[:min(3, len(got))], len(want))
	}
	if got := scan(user); !slices.Equal(got, want) {
		t.Errorf("the user's server's scan found %d records (%.3q…), want the %d written, in order", len(got), got[:min(3, len(got))], len(want))
	}
}
