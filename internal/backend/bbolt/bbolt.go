// Package bbolt is the embedded B+tree key-value store go.etcd.io/bbolt: one
// file, memory-mapped reads, one writer at a time.
package bbolt

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

const module = "go.etcd.io/bbolt"

// Spec registers bbolt in the catalog.
var Spec = backend.Embedded(backend.Spec{
	Name:       "bbolt",
	Summary:    "embedded B+tree key-value store (go.etcd.io/bbolt): one file, one writer at a time",
	Ext:        ".bolt",
	API:        backend.KV,
	Forms:      []string{"bbolt (a file in the run's folder)", "bbolt:PATH"},
	Driver:     module,
	Durability: durabilityDoc,
	Promises:   promises,
	// NoSync is read from bbolt's DB, the field its commit reads;
	// background_sync is dbgauge's own (Engine.NotReadBack).
	Owns:    owns,
	Flushes: "bbolt's fdatasyncs as dbgauge counts them around Tx.Commit: two a commit while DB.NoSync is false, and the background DB.Sync (lazy)",
	Prepare: backend.NoStatements,
	Settings: []backend.Setting{
		{Key: "NoFreelistSync=true|false", Usage: "do not write the freelist at each commit (faster commits, slower open)"},
		{Key: "FreelistType=array|hashmap", Usage: "freelist implementation"},
		{Key: "NoGrowSync=true|false", Usage: "skip the fsync after growing the file"},
		{Key: "InitialMmapSize=BYTES", Usage: "initial memory map size"},
		{Key: "PageSize=BYTES", Usage: "page size of a new file (ignored for an existing one)"},
		{Key: "SyncInterval=DURATION", Usage: "lazy durability: time between background fsyncs (default 100ms)"},
	},
	Abilities: []backend.Ability{backend.OnlineBackup, backend.RangeScans},
	NoCache:   "bbolt reads its file through a memory map: the OS page cache is its only cache",
	PageSize:  "Options.PageSize of a new file (an existing file keeps its own, and a different one is refused); read back from the file as PageSize",
	PageSizes: []int64{1024, 2048, 4096, 8192, 16384, 32768, 65536},

	// --dataset's estimate (docs/data.md): measured: a B+tree filled in hashed key order keeps its pages about half full, and the file grows in steps.
	RecordOverhead: 400,

	Open: open,
})

type db struct {
	bolt     *bolt.DB
	path     string
	dur      backend.Durability
	interval time.Duration
	flusher  backend.Flusher
	syncs    atomic.Int64 // background syncs (lazy), failed ones too
	commits  atomic.Int64 // write transactions committed, counted here: bbolt does not
	// commitSyncs are the fdatasyncs bbolt makes in commits: two in each
	// made while DB.NoSync was false (bbolt counts none).
	commitSyncs atomic.Int64
}

func open(_ context.Context, o backend.Options) (backend.DB, error) {
	opts := &bolt.Options{Timeout: 2 * time.Second}
	d := &db{path: o.EmbeddedPath("bbolt", "bbolt.db"), dur: o.Durability, interval: backend.LazyInterval}
	switch o.Durability {
	case backend.Sync:
	case backend.Lazy, backend.Off:
		opts.NoSync = true
	default:
		return nil, knob.Bad("give sync, lazy or off", "bbolt has no durability %q", o.Durability)
	}
	if err := backend.ApplySet("bbolt", setKeys(opts, d), o.Set); err != nil {
		return nil, err
	}
	if err := backend.Agree("--page-size", o.PageSize, "PageSize", &opts.PageSize); err != nil {
		return nil, err
	}
	b, err := bolt.Open(d.path, 0o644, opts)
	if err != nil {
		return nil, classify(fmt.Errorf("open %s: %w", d.path, err))
	}
	if got := b.Info().PageSize; opts.PageSize > 0 && got != opts.PageSize {
		_ = b.Close()
		return nil, knob.Bad("a page size is fixed when the file is created: use a fresh file (--db bbolt)",
			"bbolt PageSize=%d asked, but %s has pages of %d bytes", opts.PageSize, d.path, got)
	}
	b.NoSync = opts.NoSync
	d.bolt = b
	if o.Durability == backend.Lazy {
		d.flusher.Start(d.interval, func() error {
			err := d.bolt.Sync()
			d.syncs.Add(1)
			return err
		})
	}
	return d, nil
}

// setKeys are bbolt's --set keys, read into its options.
func setKeys(opts *bolt.Options, d *db) []backend.SetKey {
	const size = "give a size in bytes"
	return []backend.SetKey{
		backend.BoolKey("NoFreelistSync", func(b bool) { opts.NoFreelistSync = b }),
		backend.ChoiceKey("FreelistType", "give array or hashmap", map[string]func(){
			"array":   func() { opts.FreelistType = bolt.FreelistArrayType },
			"hashmap": func() { opts.FreelistType = bolt.FreelistMapType },
			"map":     func() { opts.FreelistType = bolt.FreelistMapType },
		}),
		backend.BoolKey("NoGrowSync", func(b bool) { opts.NoGrowSync = b }),
		backend.IntKey("InitialMmapSize", size, 0, math.MaxInt, func(n int) { opts.InitialMmapSize = n }),
		backend.IntKey("PageSize", size, 0, math.MaxInt, func(n int) { opts.PageSize = n }),
		backend.SyncIntervalKey(&d.interval),
	}
}

// KVConn returns a handle for one client.
func (d *db) KVConn(context.Context) (backend.KVConn, error) { return &conn{db: d}, nil }

// Engine reads back bbolt's effective settings.
func (d *db) Engine(context.Context) (backend.Engine, error) {
	b := d.bolt
	s := map[string]string{
		"NoSync":          strconv.FormatBool(b.NoSync),
		"NoGrowSync":      strconv.FormatBool(b.NoGrowSync),
		"NoFreelistSync":  strconv.FormatBool(b.NoFreelistSync),
		"FreelistType":    string(b.FreelistType),
		"PageSize":        strconv.Itoa(b.Info().PageSize),
		"MaxBatchSize":    strconv.Itoa(b.MaxBatchSize),
		"AllocSize":       strconv.Itoa(b.AllocSize),
		"background_sync": "none",
	}
	if d.dur == backend.Lazy {
		s["background_sync"] = d.interval.String()
	}
	v := backend.ModuleVersion(module)
	return backend.Engine{Name: "bbolt", Version: v, Driver: module + " " + v, Path: d.path, Settings: s, PageSize: int64(b.Info().PageSize),
		NotReadBack: []string{"background_sync"}}, nil
}

// committed counts a write transaction bbolt committed, and the two
// fdatasyncs its commit made (Tx.write's of the pages, Tx.writeMeta's of
// the meta page) when DB.NoSync was false: the flushes bbolt does not
// count. Only the writer reads NoSync, which nothing changes after Open.
func (d *db) committed(noSync bool) {
	d.commits.Add(1)
	if !noSync {
		d.commitSyncs.Add(2)
	}
}

// Stats returns bbolt's own transaction statistics.
func (d *db) Stats(context.Context) (map[string]int64, error) {
	st := d.bolt.Stats()
	return map[string]int64{
		"read_txs":         int64(st.TxN),
		"pages_written":    st.TxStats.GetWrite(),
		"write_time_us":    st.TxStats.GetWriteTime().Microseconds(),
		"pages_allocated":  st.TxStats.GetPageCount(),
		"spills":           st.TxStats.GetSpill(),
		"splits":           st.TxStats.GetSplit(),
		"rebalances":       st.TxStats.GetRebalance(),
		"free_pages":       int64(st.FreePageN),
		"background_syncs": d.syncs.Load(),
		"commit_syncs":     d.commitSyncs.Load(),
		"flushes":          d.commitSyncs.Load() + d.syncs.Load(),
		"commits":          d.commits.Load(),
	}, nil
}

var _ backend.Sampler = (*db)(nil)

// Sample reads the cumulative counters of Stats every second: bbolt's
// (DB.Stats: read transactions begun, pages allocated, written, spilled,
// split and rebalanced, time spent writing; a transaction's are added as it
// ends) and the commits and flushes counted here. The free pages are a
// level, not a count, and are left out.
func (d *db) Sample(ctx context.Context) (map[string]int64, error) {
	m, err := d.Stats(ctx)
	if err != nil {
		return nil, err
	}
	delete(m, "free_pages")
	return m, nil
}

// Close stops the background flusher, flushes once more and closes the file.
func (d *db) Close() error {
	serr := d.flusher.Stop()
	if d.dur == backend.Lazy {
		_ = d.bolt.Sync()
	}
	err := d.bolt.Close()
	if err == nil {
		err = serr
	}
	return classify(err)
}

// conn is a client's handle; bbolt connections are transactions.
type conn struct {
	db *db
	tx *bolt.Tx
}

func (c *conn) update(fn func(tx *bolt.Tx) error) error {
	noSync := c.db.bolt.NoSync
	if err := c.db.bolt.Update(fn); err != nil {
		return classify(err)
	}
	c.db.committed(noSync)
	return nil
}

func (c *conn) CreateTable(_ context.Context, name string) error {
	return c.update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists([]byte(name))
		return err
	})
}

func (c *conn) DropTable(_ context.Context, name string) error {
	return c.update(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte(name)) == nil {
			return nil
		}
		return tx.DeleteBucket([]byte(name))
	})
}

// Begin starts a transaction. A writer waits for the single write lock.
func (c *conn) Begin(_ context.Context, write bool) error {
	if c.tx != nil {
		return errTxOpen
	}
	tx, err := c.db.bolt.Begin(write)
	if err != nil {
		return classify(err)
	}
	c.tx = tx
	return nil
}

func (c *conn) Commit(context.Context) error {
	tx := c.end()
	if tx == nil {
		return errNoTx
	}
	if !tx.Writable() {
		return classify(tx.Rollback())
	}
	noSync := c.db.bolt.NoSync
	if err := tx.Commit(); err != nil {
		return classify(err)
	}
	c.db.committed(noSync)
	return nil
}

func (c *conn) Rollback(context.Context) error {
	if tx := c.end(); tx != nil {
		return classify(tx.Rollback())
	}
	return nil
}

// end takes the open transaction off the connection (nil: there is none),
// which Commit and Rollback then end.
func (c *conn) end() *bolt.Tx {
	tx := c.tx
	c.tx = nil
	return tx
}

func (c *conn) bucket(table string) (*bolt.Bucket, error) {
	if c.tx == nil {
		return nil, errNoTx
	}
	b := c.tx.Bucket([]byte(table))
	if b == nil {
		return nil, classify(backend.TableError(table))
	}
	return b, nil
}

func (c *conn) Get(_ context.Context, table string, key []byte) ([]byte, bool, error) {
	b, err := c.bucket(table)
	if err != nil {
		return nil, false, err
	}
	v := b.Get(key)
	return v, v != nil, nil
}

func (c *conn) Put(_ context.Context, table string, key, value []byte) error {
	b, err := c.bucket(table)
	if err != nil {
		return err
	}
	return classify(b.Put(key, value))
}

func (c *conn) Delete(_ context.Context, table string, key []byte) error {
	b, err := c.bucket(table)
	if err != nil {
		return err
	}
	return classify(b.Delete(key))
}

func (c *conn) Scan(_ context.Context, table string, fn func(k, v []byte) error) error {
	b, err := c.bucket(table)
	if err != nil {
		return err
	}
	return b.ForEach(fn)
}

// ScanFrom walks a cursor from the first key ≥ from (Seek).
func (c *conn) ScanFrom(_ context.Context, table string, from []byte, limit int, fn func(k, v []byte) error) error {
	b, err := c.bucket(table)
	if err != nil {
		return err
	}
	cur := b.Cursor()
	n := 0
	for k, v := cur.Seek(from); k != nil && n < limit; k, v = cur.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
		n++
	}
	return nil
}

func (c *conn) Close() error { return c.Rollback(context.Background()) }

// Integrity runs bbolt's consistency check over every page.
func (d *db) Integrity(context.Context) (bool, string, error) {
	var problems []string
	err := d.bolt.View(func(tx *bolt.Tx) error {
		n := 0
		for err := range tx.Check() { // drained: Check's goroutine ends with the channel
			if n++; n <= 5 {
				problems = append(problems, err.Error())
			}
		}
		if n > 5 {
			problems = append(problems, fmt.Sprintf("and %d more", n-5))
		}
		return nil
	})
	if err != nil {
		return false, "", err
	}
	if len(problems) == 0 {
		return true, "bbolt Check: ok", nil
	}
	return false, "bbolt Check: " + strings.Join(problems, "; "), nil
}
