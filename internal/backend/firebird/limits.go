package firebird

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/backend"
)

var _ backend.Limiter = (*db)(nil)

// Limits checks this process's open files: a connection is a socket.
// Firebird 3 sets no limit of its own on attachments.
func (d *db) Limits(_ context.Context, conns int, _ bool) ([]string, error) {
	return nil, backend.CheckFiles(conns, 1)
}
