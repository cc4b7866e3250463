//go:build !cgo

package gdbm

import (
	"context"
	"errors"
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// Without cgo the package builds and Open refuses with a knob error.
func TestOpenWithoutCgo(t *testing.T) {
	_, err := Spec.Open(context.Background(), backend.Options{DB: "gdbm", Dir: t.TempDir(), Durability: backend.Sync, Prepare: backend.Once})
	var ke *knob.Error
	if !errors.As(err, &ke) {
		t.Fatalf("Open without cgo: %v, want a *knob.Error", err)
	}
}
