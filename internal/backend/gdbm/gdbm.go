// Package gdbm is GNU dbm (libgdbm, through a small cgo binding): an
// extendible-hashing key-value file with no transactions and one writer.
// dbgauge gives each table its own gdbm file, serialises every use of the
// files with one mutex, and makes transactions itself: a write transaction
// buffers its writes in the connection and applies them at commit, under the
// mutex, one write transaction at a time.
package gdbm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// Spec registers gdbm in the catalog.
var Spec = backend.Embedded(backend.Spec{
	Name:       "gdbm",
	Summary:    "GNU dbm (libgdbm through cgo): extendible hashing, one file per table, no transactions of its own",
	Ext:        ".gdbm",
	API:        backend.KV,
	Forms:      []string{"gdbm (files in the run's folder)", "gdbm:PATH"},
	Driver:     "libgdbm, through dbgauge's own cgo binding",
	Durability: durabilityDoc,
	Promises:   promises,
	// gdbm keeps nothing that tells the levels apart: GDBM_SYNC
	// (GDBM_GETSYNCMODE, read back as sync_mode) stays off at every level,
	// and the syncs are dbgauge's gdbm_sync calls (sync_on_commit and
	// background_sync are dbgauge's own, Engine.NotReadBack), which it
	// counts (Flushes).
	Expect: map[backend.Durability]map[string]string{
		backend.Sync: {"sync_mode": "false"},
		backend.Lazy: {"sync_mode": "false"},
		backend.Off:  {"sync_mode": "false"},
	},
	Flushes: "the gdbm_sync calls dbgauge makes: at commit (sync), in the background (lazy)",
	Prepare: backend.NoStatements,
	Settings: []backend.Setting{
		{Key: "cache_size=N", Usage: "buckets in each file's cache (GDBM_SETCACHESIZE); 0 = grow as needed (gdbm's default)"},
		{Key: "block_size=BYTES", Usage: "block size of new files (gdbm_open); ignored for existing ones; default: the file system's"},
		{Key: "mmap=true|false", Usage: "memory-map the files (default true; false opens with GDBM_NOMMAP)"},
		{Key: "centfree=true|false", Usage: "keep all free blocks in the file header (GDBM_SETCENTFREE)"},
		{Key: "coalesce_blocks=true|false", Usage: "merge adjacent free blocks (GDBM_SETCOALESCEBLKS)"},
		{Key: "SyncInterval=DURATION", Usage: "lazy durability: time between background gdbm_syncs (default 100ms)"},
	},
	NoCache:   "gdbm's own cache counts hash buckets, not bytes (--set cache_size=N buckets); the OS page cache holds its files",
	PageSize:  "block_size of new files (gdbm_open's block size, its page); an existing file keeps its own, and a different one is refused; read back as block_size",
	PageSizes: []int64{512, 1024, 2048, 4096, 8192, 16384, 32768, 65536},

	// --dataset's estimate (docs/data.md): measured: the bucket element and the file's free space, 100-byte values.
	RecordOverhead: 85,

	Open: open,
})

// table is one gdbm file: a table, or the catalog of tables.
type table struct {
	name  string
	f     *file
	dirty bool // written since its last gdbm_sync (lazy mode)
}

type db struct {
	path     string // the catalog file; tables sit beside it
	dur      backend.Durability
	interval time.Duration
	opts     fileOptions

	// mu serialises every call into libgdbm: its handles are not safe for
	// concurrent use. tabMu guards the tables map for readers that do not
	// touch a file (Put, Delete); the map changes under both, mu first.
	mu      sync.Mutex
	tabMu   sync.RWMutex
	catalog *table
	tables  map[string]*table
	closed  bool // the files are closed
	closing bool // Close was called

	// writer is the one write transaction at a time (a semaphore, so that
	// waiting for it honours the context).
	writer chan struct{}

	flusher backend.Flusher
	syncErr error // the first error of a background sync, reported by Close (under mu)

	commits, writeXacts, rollbacks, puts, deletes atomic.Int64
	commitSyncs, backgroundSyncs                  atomic.Int64
}

// tablePath is the file of table name: PATH without its extension, the
// table's name (escaped for a file name) and .gdbm.
func (d *db) tablePath(name string) string {
	base := strings.TrimSuffix(d.path, filepath.Ext(d.path))
	return base + "." + url.PathEscape(name) + ".gdbm"
}

func open(_ context.Context, o backend.Options) (backend.DB, error) {
	if !cgoEnabled {
		return nil, knob.Bad("rebuild with CGO_ENABLED=1, a C compiler and libgdbm (apt-get install gcc libgdbm-dev), or use --db bbolt",
			"this dbgauge was built without cgo, and gdbm (libgdbm) needs it")
	}
	d := &db{
		path: o.EmbeddedPath("gdbm", "db.gdbm"), dur: o.Durability, interval: backend.LazyInterval,
		opts:   fileOptions{cacheSize: -1, centfree: -1, coalesce: -1},
		tables: map[string]*table{}, writer: make(chan struct{}, 1),
	}
	switch o.Durability {
	case backend.Sync, backend.Lazy, backend.Off:
	default:
		return nil, knob.Bad("give sync, lazy or off", "gdbm has no durability %q", o.Durability)
	}
	if err := backend.ApplySet("gdbm", d.setKeys(), o.Set); err != nil {
		return nil, err
	}
	if err := backend.Agree("--page-size", o.PageSize, "block_size", &d.opts.blockSize); err != nil {
		return nil, err
	}
	if err := d.load(); err != nil {
		_ = d.closeFiles() // the error that matters is err
		return nil, err
	}
	if want := d.opts.blockSize; want > 0 {
		if fi, err := d.catalog.f.info(); err == nil && fi.BlockSize != want {
			_ = d.closeFiles()
			return nil, knob.Bad("a block size is fixed when the file is created: use a fresh one (--db gdbm)",
				"gdbm block_size=%d asked, but %s has blocks of %d bytes", want, d.path, fi.BlockSize)
		}
	}
	if d.dur == backend.Lazy {
		d.flusher.Start(d.interval, func() error {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.syncDirty()
			return nil
		})
	}
	return d, nil
}

// load opens the catalog and every table it lists.
func (d *db) load() error {
	f, err := openFile(d.path, d.opts)
	if err != nil {
		return classify(err)
	}
	d.catalog = &table{name: "", f: f}
	type entry struct{ name, file string }
	var entries []entry
	err = f.walk(func(k, v []byte, found bool) error {
		if !found {
			return classify(fmt.Errorf("gdbm: the catalog %s lists %q but cannot fetch it", d.path, k))
		}
		entries = append(entries, entry{string(k), string(v)})
		return nil
	})
	if err != nil {
		return classify(err)
	}
	for _, e := range entries {
		p := filepath.Join(filepath.Dir(d.path), e.file)
		if _, err := os.Stat(p); err != nil {
			return classify(fmt.Errorf("gdbm: the catalog %s lists table %q, whose file is missing: %w", d.path, e.name, err))
		}
		tf, err := openFile(p, d.opts)
		if err != nil {
			return classify(err)
		}
		d.tables[e.name] = &table{name: e.name, f: tf}
	}
	return nil
}

// setKeys are gdbm's --set keys, read into its file options.
func (d *db) setKeys() []backend.SetKey {
	const whole = "give a whole number, 0 or more"
	flag := func(dst *int) func(bool) {
		return func(b bool) {
			*dst = 0
			if b {
				*dst = 1
			}
		}
	}
	return []backend.SetKey{
		backend.IntKey("cache_size", whole, 0, 1<<30, func(n int) { d.opts.cacheSize = n }),
		backend.IntKey("block_size", whole, 0, 1<<30, func(n int) { d.opts.blockSize = n }),
		backend.BoolKey("mmap", func(b bool) { d.opts.noMmap = !b }),
		backend.BoolKey("centfree", flag(&d.opts.centfree)),
		backend.BoolKey("coalesce_blocks", flag(&d.opts.coalesce)),
		backend.SyncIntervalKey(&d.interval),
	}
}

// files returns the catalog and the tables, in name order. Under mu.
func (d *db) files() []*table {
	ts := make([]*table, 0, len(d.tables)+1)
	if d.catalog != nil {
		ts = append(ts, d.catalog)
	}
	names := make([]string, 0, len(d.tables))
	for n := range d.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ts = append(ts, d.tables[n])
	}
	return ts
}

// wrote records that t was written: synced now in sync mode, marked for the
// flusher in lazy mode. Under mu.
func (d *db) wrote(t *table) error {
	switch d.dur {
	case backend.Sync:
		d.commitSyncs.Add(1)
		return t.f.sync()
	case backend.Lazy:
		t.dirty = true
	}
	return nil
}

// syncDirty syncs every file written since its last sync. Under mu.
func (d *db) syncDirty() {
	if d.closed {
		return
	}
	for _, t := range d.files() {
		if !t.dirty {
			continue
		}
		t.dirty = false
		d.backgroundSyncs.Add(1)
		if err := t.f.sync(); err != nil && d.syncErr == nil {
			d.syncErr = err
		}
	}
}

// KVConn returns a handle for one client.
func (d *db) KVConn(context.Context) (backend.KVConn, error) { return &conn{db: d}, nil }

// Engine reads back gdbm's settings from the catalog file (every file is
// opened with the same options) and says what dbgauge adds.
func (d *db) Engine(context.Context) (backend.Engine, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return backend.Engine{}, errClosed
	}
	fi, err := d.catalog.f.info()
	if err != nil {
		return backend.Engine{}, classify(err)
	}
	b := strconv.FormatBool
	s := map[string]string{
		"block_size":      strconv.Itoa(fi.BlockSize),
		"cache_size":      strconv.Itoa(fi.CacheSize),
		"cache_auto":      b(fi.CacheAuto),
		"mmap":            b(fi.Mmap),
		"sync_mode":       b(fi.SyncMode),
		"centfree":        b(fi.Centfree),
		"coalesce_blocks": b(fi.Coalesce),
		"bucket_size":     strconv.Itoa(fi.BucketSize),
		"locking":         "none (GDBM_NOLOCK: one process)",
		"transactions":    "dbgauge's: writes buffered per connection, applied at commit under one lock",
		"files":           "one per table, beside the catalog",
		"sync_on_commit":  b(d.dur == backend.Sync),
		"background_sync": "none",
		"library":         libBanner(),
	}
	if d.dur == backend.Lazy {
		s["background_sync"] = d.interval.String()
	}
	return backend.Engine{Name: "gdbm", Version: libVersion(), Driver: "cgo libgdbm", Path: d.path, Settings: s, PageSize: int64(fi.BlockSize),
		NotReadBack: []string{"locking", "transactions", "files", "sync_on_commit", "background_sync"}}, nil
}

// Close stops the background flusher, syncs what it had not, and closes
// every file (gdbm_close syncs each file too).
func (d *db) Close() error {
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return nil
	}
	d.closing = true
	d.mu.Unlock()
	_ = d.flusher.Stop() // its flushes return no error: syncDirty keeps it
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dur == backend.Lazy {
		d.syncDirty()
	}
	err := d.closeFiles()
	if err == nil && d.syncErr != nil {
		err = fmt.Errorf("background sync: %w", d.syncErr)
	}
	return classify(err)
}

// closeFiles closes every open file. Under mu (or before d is shared).
func (d *db) closeFiles() error {
	var errs []error
	for _, t := range d.files() {
		if t.f != nil {
			errs = append(errs, t.f.close())
		}
	}
	d.tabMu.Lock()
	d.tables, d.catalog, d.closed = map[string]*table{}, nil, true
	d.tabMu.Unlock()
	return errors.Join(errs...)
}

// hasTable reports whether table exists, without touching a file.
func (d *db) hasTable(name string) bool {
	d.tabMu.RLock()
	defer d.tabMu.RUnlock()
	return d.tables[name] != nil
}

// lookup returns the open table name. Under mu.
func (d *db) lookup(name string) (*table, error) {
	if d.closed {
		return nil, errClosed
	}
	t := d.tables[name]
	if t == nil {
		return nil, classify(backend.TableError(name))
	}
	return t, nil
}

// createTable creates the table's file, then lists it in the catalog: a
// crash between the two leaves a file the next CreateTable reuses.
func (d *db) createTable(name string) error {
	if name == "" {
		return classify(errors.New("gdbm: a table needs a name"))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if d.tables[name] != nil {
		return nil
	}
	p := d.tablePath(name)
	f, err := openFile(p, d.opts)
	if err != nil {
		return classify(err)
	}
	t := &table{name: name, f: f}
	err = d.wrote(t)
	if err == nil {
		err = d.catalog.f.put([]byte(name), []byte(filepath.Base(p)))
	}
	if err == nil {
		err = d.wrote(d.catalog)
	}
	if err != nil {
		_ = f.close()
		return classify(err)
	}
	d.tabMu.Lock()
	d.tables[name] = t
	d.tabMu.Unlock()
	return nil
}

// dropTable takes the table out of the catalog, then removes its file.
func (d *db) dropTable(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	t := d.tables[name]
	if t == nil {
		return nil
	}
	if err := d.catalog.f.del([]byte(name)); err != nil {
		return classify(err)
	}
	if err := d.wrote(d.catalog); err != nil {
		return classify(err)
	}
	d.tabMu.Lock()
	delete(d.tables, name)
	d.tabMu.Unlock()
	err := t.f.close()
	if rerr := os.Remove(t.f.path); err == nil && rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	return classify(err)
}
