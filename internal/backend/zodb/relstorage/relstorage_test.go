package relstorage

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// TestDSN: every connection RelStorage opens gets the level's
// synchronous_commit through libpq's options, spaces as %20 (libpq's URI
// decodes no '+'); a --db without a host is bad input that shows no
// password, and a port nothing answers on is bad input before anything
// starts.
func TestDSN(t *testing.T) {
	u, err := userDSN("relstorage+postgres://u:secret@127.0.0.1:5432/db?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	for d, want := range map[backend.Durability]string{backend.Sync: "on", backend.Lazy: "off"} {
		dsn := withLevel(u, d)
		if !strings.Contains(dsn, "options=-c%20synchronous_commit%3D"+want) || strings.Contains(dsn, "+") ||
			!strings.Contains(dsn, "application_name="+appName) || !strings.Contains(dsn, "sslmode=disable") {
			t.Errorf("durability=%s: %s", d, dsn)
		}
		q, _ := url.Parse(dsn)
		if got := q.Query().Get("options"); got != "-c synchronous_commit="+want {
			t.Errorf("durability=%s: options decode to %q", d, got)
		}
	}
	var bad *knob.Error
	_, err = userDSN("relstorage+postgres://u:secret@/db")
	if !errors.As(err, &bad) || strings.Contains(err.Error(), "secret") {
		t.Errorf("no host gave %v", err)
	}
	if err := preflight("relstorage+postgres://u:secret@127.0.0.1:1/db"); !errors.As(err, &bad) || strings.Contains(err.Error(), "secret") {
		t.Errorf("a port nothing answers on gave %v", err)
	}
}

// TestOffRefused: RelStorage's commit is PostgreSQL's, whose
// synchronous_commit has no level that never flushes: off is bad input,
// before a server or a worker starts (start is never called).
func TestOffRefused(t *testing.T) {
	started := false
	spec := Spec(Servers{Start: func(context.Context, server.Config, map[string]string) (*Postgres, error) {
		started = true
		return nil, errors.New("not to be started")
	}})
	_, err := spec.Open(context.Background(), backend.Options{DB: managedForm, Dir: t.TempDir(), Durability: backend.Off})
	var bad *knob.Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "synchronous_commit") || started {
		t.Fatalf("durability=off gave %v (server started: %v)", err, started)
	}
}
