package sqlite

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// only is why SQLite refuses every level but serializable
// (https://www.sqlite.org/isolation.html).
const only = "SQLite has one level, serializable: writers take the write lock one at a time (BEGIN IMMEDIATE) and a WAL reader sees one snapshot"

// isolationDoc says what --isolation does in SQLite.
var isolationDoc = map[backend.Isolation]string{
	backend.DefaultIsolation: "serializable, SQLite's only level (read back: PRAGMA read_uncommitted = 0)",
	backend.ReadUncommitted:  backend.Refused + "PRAGMA read_uncommitted applies only between connections that share a cache, which dbgauge's do not; " + only,
	backend.ReadCommitted:    backend.Refused + only,
	backend.RepeatableRead:   backend.Refused + only,
	backend.Serializable:     "serializable, SQLite's only level: nothing to set; read back (PRAGMA read_uncommitted = 0)",
}

// checkIsolation refuses a level SQLite does not have.
func checkIsolation(l backend.Isolation) error {
	if why, refused := backend.IsolationRefusal("sqlite", isolationDoc, l); refused {
		return knob.Bad("give --isolation serializable (or leave it out)", "--isolation %s on sqlite: %s", l, why)
	}
	return nil
}

// isolation reads back the level: serializable unless a connection reads
// uncommitted rows (PRAGMA read_uncommitted, which only a shared cache
// honours).
func (d *db) isolation(ctx context.Context) (string, error) {
	v, err := d.pragma(ctx, "read_uncommitted")
	if err != nil {
		return "", classify(err)
	}
	if v != "0" {
		return string(backend.ReadUncommitted), nil
	}
	return string(backend.Serializable), nil
}
