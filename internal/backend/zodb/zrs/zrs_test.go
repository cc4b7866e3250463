package zrs

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestSecondaryReplicates starts a primary and one secondary for real
// (--topology 1), commits through a client of the primary, and reads the
// commit back through a read-only client of the secondary; the files' last
// transactions (read from their ends, for the lag) agree with the tid the
// secondary served, and each server's log says its role.
func TestSecondaryReplicates(t *testing.T) {
	python := testenv.PythonEnv(t, Env)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := Spec.Open(ctx, backend.Options{DB: managedForm, Dir: t.TempDir(), Durability: backend.Sync, Own: own{topology: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c := d.(clusterDB)
	if os.Geteuid() == 0 && c.ServerInfo().Account == "root" {
		t.Errorf("runzeo runs as root")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	p, err := c.KVConn(ctx)
	must(err)
	defer p.Close()
	must(p.CreateTable(ctx, "t"))
	must(p.Begin(ctx, true))
	must(p.Put(ctx, "t", []byte("k"), []byte("acknowledged")))
	must(p.Commit(ctx))

	r1 := c.secondaries[0]
	sec, err := zodb.Open(ctx, zodb.Config{Engine: "zrs", Python: python,
		Storage: zodb.Storage{Kind: "zeo", Host: "127.0.0.1", Port: r1.Port, Wait: 30, ReadOnly: true}})
	must(err)
	defer sec.Close()
	s, err := sec.KVConn(ctx)
	must(err)
	defer s.Close()
	var v []byte
	for deadline := time.Now().Add(30 * time.Second); string(v) != "acknowledged" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		must(s.Begin(ctx, false))
		v, _, err = s.Get(ctx, "t", []byte("k"))
		must(err)
		must(s.Rollback(ctx))
	}
	if string(v) != "acknowledged" {
		t.Fatalf("the secondary serves %q, not the primary's commit", v)
	}
	// Nothing was committed since: both files end with the same
	// transaction, committed a moment ago.
	pt, psize, err := lastTID(c.srv.File())
	must(err)
	rt, rsize, err := lastTID(r1.File())
	must(err)
	if pt != rt || psize != rsize {
		t.Errorf("the primary's file ends with %x (%d bytes), the secondary's with %x (%d bytes)", pt, psize, rt, rsize)
	}
	if d := time.Since(tidTime(pt)); d < 0 || d > time.Minute {
		t.Errorf("the last transaction's time %s is not now", tidTime(pt))
	}
	h, err := c.Health(ctx)
	must(err)
	if len(h.Writable) != 1 || h.Writable[0] != "primary" || h.Following["r1"] != "replicating from primary (Connected)" {
		t.Errorf("health read back: %+v", h)
	}
	e, err := c.Engine(ctx)
	must(err)
	if e.Settings["server_storage"] != "ZRS" || e.Settings["server_role"] != "RW" || e.Settings["ZODB_version"] != "5.5.1" || e.Settings["zc.zrs_version"] != "3.1.0" {
		t.Errorf("read back: %v", e.Settings)
	}
}
