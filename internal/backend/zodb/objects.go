package zodb

import (
	"context"
	"fmt"

	"github.com/dbgauge/dbgauge/internal/backend"
)

var (
	_ backend.ObjectStore = (*conn)(nil)
	_ backend.BulkLoader  = (*conn)(nil)
)

// Objects opens the client's object session in its worker session: a ZODB
// Connection of its own on a DB over the worker's storage (worker.py's
// oopen), its pickle cache of cacheObjects objects. The session's reads go
// through that Connection, and through ZEO's client cache on zeo and zrs:
// what a ZODB application's reads go through.
func (c *conn) Objects(ctx context.Context, table string, cacheObjects int) (backend.ObjectSession, error) {
	if err := c.table(ctx, table); err != nil {
		return nil, err
	}
	var r struct {
		StorageCache string `json:"storage_cache"`
	}
	if err := c.call(ctx, "oopen", map[string]any{"t": table, "cache": cacheObjects}, &r); err != nil {
		return nil, err
	}
	return &objects{c: c}, nil
}

// objects is a conn's object session.
type objects struct{ c *conn }

// Read reads the keys' objects in one request.
func (o *objects) Read(ctx context.Context, keys [][]byte, begin bool) ([][]byte, error) {
	var r struct {
		V [][]byte `json:"v"`
	}
	if err := o.c.call(ctx, "oread", map[string]any{"k": keys, "begin": begin}, &r); err != nil {
		return nil, err
	}
	if len(r.V) != len(keys) {
		return nil, fmt.Errorf("%s worker: %d objects read for %d keys", o.c.db.cfg.Engine, len(r.V), len(keys))
	}
	return r.V, nil
}

// Sums reads the keys' objects in one request, as Read does, the worker
// returning each value's CRC-32 (zlib.crc32) instead of the value.
func (o *objects) Sums(ctx context.Context, keys [][]byte, begin bool) ([]int64, error) {
	var r struct {
		S []int64 `json:"s"`
	}
	if err := o.c.call(ctx, "oread", map[string]any{"k": keys, "begin": begin, "sum": true}, &r); err != nil {
		return nil, err
	}
	if len(r.S) != len(keys) {
		return nil, fmt.Errorf("%s worker: %d sums read for %d keys", o.c.db.cfg.Engine, len(r.S), len(keys))
	}
	return r.S, nil
}

// Clear ghosts the Connection's objects (cacheMinimize), and at
// CacheStorage empties ZEO's client cache too (a fresh ClientStorage).
func (o *objects) Clear(ctx context.Context, level backend.CacheLevel) (string, error) {
	var r struct {
		Cleared string `json:"cleared"`
	}
	err := o.c.call(ctx, "oclear", map[string]string{"level": string(level)}, &r)
	return r.Cleared, err
}

// Stats reads the Connection's loads since the session opened, and on ZEO
// the server's count of loads it served.
func (o *objects) Stats(ctx context.Context) (backend.ObjectStats, error) {
	var st backend.ObjectStats
	err := o.c.call(ctx, "ostats", nil, &st)
	return st, err
}

// Close leaves the Connection to the session's end (its worker thread
// closes it then): nothing to send.
func (o *objects) Close() error { return nil }
