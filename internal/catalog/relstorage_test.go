package catalog

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/backend/zodb/relstorage"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestRelStorageOnUserServer: relstorage+postgres://DSN on a PostgreSQL
// dbgauge did not start for it (here the postgres engine's, whose default
// is synchronous_commit=on): --durability lazy gives RelStorage's
// connections synchronous_commit=off through the DSN alone, read back as
// such; a commit is read back; the DB is no server of dbgauge's.
func TestRelStorageOnUserServer(t *testing.T) {
	testenv.PythonEnv(t, relstorage.Env)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pg, err := postgres.Start(ctx, postgres.ServerConfig{Config: server.Config{Dir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = pg.StopClean() }()
	db := "relstorage+" + pg.DSN(false)
	spec, ok := Backend(db)
	if !ok || spec.Name != "relstorage" || spec.Preflight(db) != nil {
		t.Fatalf("%s: matched %v (%s), preflight %v", pg.Hide(db), ok, spec.Name, spec.Preflight(db))
	}
	d := backendtest.Open(t, spec, backend.Options{DB: db, Durability: backend.Lazy})
	if _, ok := d.(backend.Server); ok {
		t.Error("a server of the user's is a backend.Server of dbgauge's")
	}
	c := backendtest.KVConn(t, d)
	backendtest.Must(t, c.CreateTable(ctx, "t"))
	backendtest.Put(t, c, "t", "k", "acknowledged")
	backendtest.Must(t, c.Begin(ctx, false))
	v, _, err := c.Get(ctx, "t", []byte("k"))
	backendtest.Must(t, err)
	backendtest.Must(t, c.Rollback(ctx))
	e, err := d.Engine(ctx)
	backendtest.Must(t, err)
	if string(v) != "acknowledged" || e.Settings["synchronous_commit"] != "off" || e.Settings["fsync"] != "on" {
		t.Errorf("read %q; settings read back: synchronous_commit %q, fsync %q", v, e.Settings["synchronous_commit"], e.Settings["fsync"])
	}
	for k, s := range e.Settings {
		if strings.Contains(s, pg.Password) {
			t.Errorf("setting %s shows the password", k)
		}
	}
}
