package postgres

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// TestLimits: more clients than the server has connections left is refused
// before the run, in one line that names max_connections.
func TestLimits(t *testing.T) {
	managedConns(t) // skips without a PostgreSQL server
	ctx := context.Background()
	db, err := open(ctx, backend.Options{DB: managed, Dir: t.TempDir(), Durability: backend.Lazy, Prepare: backend.Once,
		Set: []backend.KeyValue{{Key: "max_connections", Value: "20"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l := db.(backend.Limiter)
	if _, err := l.Limits(ctx, 10, true); err != nil {
		t.Errorf("10 clients on 20 connections: %v", err)
	}
	_, err = l.Limits(ctx, 30, true)
	var bad *knob.Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "max_connections 20") || strings.Contains(err.Error(), "\n") {
		t.Errorf("30 clients on 20 connections: %v", err)
	}
	notes, err := l.Limits(ctx, 17, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("17 clients: %q", notes)
	// Without huge pages reserved the server cannot have them, and a run of
	// many clients is told what that costs and what to do.
	if n, err := server.ReservedHugePages(); err == nil && n == 0 && runtime.NumCPU()*4 < 17 {
		if !strings.Contains(strings.Join(notes, "\n"), "vm.nr_hugepages is 0 (") {
			t.Errorf("17 clients, no huge pages reserved: no note on 4 KiB pages in %q", notes)
		}
	}
}
