// Package bdb is Berkeley DB 5.3 through a small cgo binding of its own
// (binding.go, over Debian's libdb5.3-dev): a transactional environment
// (a folder: its log, its region files, one database file a table) with
// the hash access method (Litwin's linear hashing: --db bdb:hash) or the
// B-tree (--db bdb:btree). Many writers at once, page locks, the lock
// detector breaking deadlocks.
package bdb

import (
	"context"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// Hash and Btree register Berkeley DB's two access methods in the catalog.
var (
	Hash  = spec("bdb:hash", true)
	Btree = spec("bdb:btree", false)
)

func spec(name string, hash bool) backend.Spec {
	method, order := "B-tree", "in key order"
	abilities := []backend.Ability{backend.RangeScans}
	if hash {
		method, order, abilities = "hash (linear hashing)", "in no order: a scan sorts", nil
	}
	return backend.Embedded(backend.Spec{
		Name:       name,
		Summary:    "Berkeley DB 5.3, " + method + ", in a transactional environment (cgo, libdb5.3): page locks, many writers, records " + order,
		Ext:        ".bdb",
		API:        backend.KV,
		Forms:      []string{name + " (an environment folder in the run's folder)", name + ":PATH"},
		Driver:     "Berkeley DB's libdb, through dbgauge's own cgo binding",
		Durability: durabilityDoc,
		Promises:   promises,
		Owns:       owns,
		Flushes:    "the log's syncs as Berkeley DB counts them (DB_ENV->log_stat st_scount): at commit (sync), dbgauge's DB_ENV->log_flush (lazy)",
		Prepare:    backend.NoStatements,
		Settings: []backend.Setting{
			{Key: "SyncInterval=DURATION", Usage: "lazy durability: time between background log flushes (default 100ms)"},
		},
		Abilities:  abilities,
		Cache:      "DB_ENV->set_cachesize at the environment's open (default 256 KiB); read back with get_cachesize",
		NoPageSize: "dbgauge leaves Berkeley DB's page size to it (the file system's block size)",

		// --dataset's estimate (docs/data.md): an estimate: the item headers
		// of a key and a value on a page, pages partly filled.
		RecordOverhead: 40,

		Open: func(ctx context.Context, o backend.Options) (backend.DB, error) { return open(ctx, name, hash, o) },
	})
}

type db struct {
	env      *env
	path     string
	hash     bool
	dur      backend.Durability
	interval time.Duration
	flusher  backend.Flusher
	syncs    atomic.Int64 // background log flushes (lazy)

	mu     sync.RWMutex
	tables map[string]*table
}

func open(_ context.Context, name string, hash bool, o backend.Options) (backend.DB, error) {
	if !cgoEnabled {
		return nil, knob.Bad("rebuild with CGO_ENABLED=1, a C compiler and libdb5.3-dev, or use --db bbolt", "this dbgauge was built without cgo, and Berkeley DB needs it")
	}
	d := &db{path: o.EmbeddedPath(name, "bdb"), hash: hash, dur: o.Durability, interval: backend.LazyInterval, tables: map[string]*table{}}
	var flags uint32
	switch o.Durability {
	case backend.Sync:
	case backend.Lazy:
		flags = flagWriteNoSyn
	case backend.Off:
		flags = flagNoSync
	default:
		return nil, knob.Bad("give sync, lazy or off", "bdb has no durability %q", o.Durability)
	}
	if err := backend.ApplySet("bdb", []backend.SetKey{backend.SyncIntervalKey(&d.interval)}, o.Set); err != nil {
		return nil, err
	}
	if o.CacheBytes > math.MaxUint32 {
		return nil, knob.Bad("give --cache below 4 GiB", "--cache %d: dbgauge sets Berkeley DB's cache in one region of at most 4 GiB", o.CacheBytes)
	}
	if err := os.MkdirAll(d.path, 0o755); err != nil {
		return nil, err
	}
	var err error
	if d.env, err = openEnv(d.path, flags, uint32(o.CacheBytes)); err != nil {
		return nil, err
	}
	if d.dur == backend.Lazy {
		d.flusher.Start(d.interval, func() error {
			d.syncs.Add(1)
			return d.env.logFlush()
		})
	}
	return d, nil
}

// file is table name's database file in the environment.
func file(name string) string { return "t-" + url.PathEscape(name) + ".db" }

// table returns table name's handle, opened at its first use.
func (d *db) table(name string) (*table, error) {
	d.mu.RLock()
	t, ok := d.tables[name]
	d.mu.RUnlock()
	if ok {
		return t, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if t, ok := d.tables[name]; ok {
		return t, nil
	}
	if _, err := os.Stat(filepath.Join(d.path, file(name))); err != nil {
		return nil, classify(backend.TableError(name))
	}
	t, err := d.env.openTable(file(name), d.hash, 0, false)
	if err != nil {
		return nil, err
	}
	d.tables[name] = t
	return t, nil
}

func (d *db) KVConn(context.Context) (backend.KVConn, error) { return &conn{db: d}, nil }

// Engine reads back the environment's flags and cache size.
func (d *db) Engine(context.Context) (backend.Engine, error) {
	e := backend.Engine{Name: "bdb", Version: version, Driver: "cgo libdb", Path: d.path, Settings: map[string]string{}}
	f, err := d.env.flags()
	if err != nil {
		return e, err
	}
	e.Settings["DB_TXN_NOSYNC"] = strconv.FormatBool(f&flagNoSync != 0)
	e.Settings["DB_TXN_WRITE_NOSYNC"] = strconv.FormatBool(f&flagWriteNoSyn != 0)
	if e.CacheBytes, err = d.env.cacheBytes(); err != nil {
		return e, err
	}
	e.Settings["cachesize"] = strconv.FormatInt(e.CacheBytes, 10)
	e.Settings["access_method"] = "btree"
	if d.hash {
		e.Settings["access_method"] = "hash"
	}
	e.Settings["background_log_flush"] = "none"
	if d.dur == backend.Lazy {
		e.Settings["background_log_flush"] = d.interval.String()
	}
	e.NotReadBack = []string{"access_method", "background_log_flush"}
	return e, nil
}

// Stats returns the environment's counters: transactions committed and
// aborted, the log's syncs (flushes) and writes, deadlocks broken.
func (d *db) Stats(context.Context) (map[string]int64, error) {
	s, err := d.env.stats()
	if err != nil {
		return nil, err
	}
	return map[string]int64{
		"commits": s.commits, "aborts": s.aborts, "flushes": s.syncs, "log_writes": s.writes,
		"deadlocks": s.deadlocks, "background_flushes": d.syncs.Load(),
	}, nil
}

// Close stops the background flush, flushes the log once more (lazy),
// and closes every table and the environment.
func (d *db) Close() error {
	errs := []error{d.flusher.Stop()}
	if d.dur == backend.Lazy {
		errs = append(errs, d.env.logFlush())
	}
	d.mu.Lock()
	for _, t := range d.tables {
		errs = append(errs, t.close())
	}
	d.tables = nil
	d.mu.Unlock()
	errs = append(errs, d.env.close())
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
