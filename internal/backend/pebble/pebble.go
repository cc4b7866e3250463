// Package pebble is the embedded LSM key-value store
// github.com/cockroachdb/pebble/v2 (CockroachDB's storage engine): a folder
// holding a write-ahead log and sorted tables, concurrent writers committing
// through one commit pipeline.
package pebble

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pebbledb "github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	dto "github.com/prometheus/client_model/go"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

const module = "github.com/cockroachdb/pebble/v2"

// Spec registers pebble in the catalog.
var Spec = backend.Embedded(backend.Spec{
	Name:       "pebble",
	Summary:    "embedded LSM key-value store (github.com/cockroachdb/pebble/v2): a WAL and sorted tables, write transactions one at a time",
	Ext:        ".pebble",
	API:        backend.KV,
	Forms:      []string{"pebble (a folder in the run's folder)", "pebble:PATH"},
	Driver:     module,
	Durability: durabilityDoc,
	Promises:   promises,
	// Pebble keeps no durability setting to read back: each Commit is
	// given pebble.Sync or NoSync (commit_sync and wal_sync are dbgauge's,
	// Engine.NotReadBack); its WAL's fsyncs, which it counts, say what
	// the level did (Flushes).
	Owns:    owns,
	Flushes: "the WAL's fsyncs, as pebble counts them (Metrics().LogWriter.FsyncLatency)",
	Prepare: backend.NoStatements,
	Settings: []backend.Setting{
		{Key: "MemTableSize=BYTES", Usage: "size of one memtable (default 4MB); a full one is flushed to an L0 table"},
		{Key: "L0CompactionThreshold=N", Usage: "L0 read amplification that starts a compaction (default 4)"},
		{Key: "L0StopWritesThreshold=N", Usage: "L0 read amplification at which writes stall (default 12)"},
		{Key: "CacheSize=BYTES", Usage: "block cache size (default 8MB)"},
		{Key: "BytesPerSync=BYTES", Usage: "start writeback of a table being written every BYTES (default 512KB); not a durability point"},
		{Key: "WALBytesPerSync=BYTES", Usage: "start writeback of the WAL every BYTES (default 0: never); not a durability point"},
		{Key: "DisableWAL=true|false", Usage: "no write-ahead log at all: a crash loses every unflushed memtable (only with --durability off)"},
		{Key: "SyncInterval=DURATION", Usage: "lazy durability: time between background WAL fsyncs (default 100ms)"},
	},
	Abilities: []backend.Ability{backend.RangeScans},

	Cache:      "Options.CacheSize: the block cache shared by every reader (default 8MB); read back from the OPTIONS file as CacheSize",
	NoPageSize: "pebble has no pages: an LSM tree writes sorted tables made of blocks, not pages of a file",

	// --dataset's estimate (docs/data.md): measured after compaction: sstable block and index bytes; values are random, so incompressible.
	RecordOverhead: 20,

	Open: open,
})

// Key layout. Every table has a catalog key (metaPrefix + name) and its
// records under dataPrefix + name + 0x00 + key. A name holds no NUL byte, so
// the 0x00 ends it and one table's range never holds another's keys; the
// catalog sorts before every record.
const (
	metaPrefix = 0x00
	dataPrefix = 0x01
)

// span is a table's key range: [lo, hi).
type span struct{ lo, hi []byte }

func spanOf(name string) span {
	lo := make([]byte, 0, len(name)+2)
	lo = append(append(append(lo, dataPrefix), name...), 0x00)
	hi := append(append([]byte{dataPrefix}, name...), 0x01)
	return span{lo: lo, hi: hi}
}

func metaKey(name string) []byte { return append([]byte{metaPrefix}, name...) }

type db struct {
	pebble   *pebbledb.DB
	path     string
	dur      backend.Durability
	write    *pebbledb.WriteOptions
	interval time.Duration
	flusher  backend.Flusher

	writer sync.Mutex                      // one write transaction at a time (see conn)
	ddl    sync.Mutex                      // serialises CreateTable and DropTable
	tables atomic.Pointer[map[string]span] // copied on write, under ddl

	failed   atomic.Pointer[error] // set when pebble reported a fatal error
	commits  atomic.Int64          // write transactions committed, counted here: pebble does not
	bgSyncs  atomic.Int64          // background WAL syncs completed (lazy)
	stalls   atomic.Int64          // write stalls begun
	bgErrors atomic.Int64          // background errors (flushes, compactions)
	logErrs  atomic.Int64          // errors pebble logged
	closed   atomic.Bool
}

func open(_ context.Context, o backend.Options) (backend.DB, error) {
	d := &db{path: o.EmbeddedPath("pebble", "pebble"), dur: o.Durability, interval: backend.LazyInterval}
	opts := &pebbledb.Options{
		FormatMajorVersion: pebbledb.FormatNewest,
		Logger:             quietLogger{errs: &d.logErrs},
		EventListener: &pebbledb.EventListener{
			BackgroundError: func(error) { d.bgErrors.Add(1) },
			WriteStallBegin: func(pebbledb.WriteStallBeginInfo) { d.stalls.Add(1) },
		},
	}
	switch o.Durability {
	case backend.Sync:
		d.write = pebbledb.Sync
	case backend.Lazy, backend.Off:
		d.write = pebbledb.NoSync
	default:
		return nil, knob.Bad("give sync, lazy or off", "pebble has no durability %q", o.Durability)
	}
	if err := backend.ApplySet("pebble", setKeys(opts, d), o.Set); err != nil {
		return nil, err
	}
	if err := backend.Agree("--cache", o.CacheBytes, "CacheSize", &opts.CacheSize); err != nil {
		return nil, err
	}
	if err := (backend.Spec{Durability: durabilityDoc, Owns: owns}).Contradiction(o.Durability, o.Set); err != nil {
		return nil, err // the plan refuses it first; Open holds it too
	}
	check := opts.Clone()
	check.EnsureDefaults()
	if err := check.Validate(); err != nil {
		return nil, knob.Bad("see docs/backends/pebble.md for the settings and their defaults",
			"pebble refuses the settings: %s", strings.TrimSpace(err.Error()))
	}
	p, err := pebbledb.Open(d.path, opts)
	if err != nil {
		return nil, classify(fmt.Errorf("open %s: %w", d.path, err))
	}
	d.pebble = p
	if err := d.loadTables(); err != nil {
		_ = p.Close()
		return nil, err
	}
	if o.Durability == backend.Lazy {
		d.flusher.Start(d.interval, func() error {
			if err := d.syncWAL(); err != nil {
				return err
			}
			d.bgSyncs.Add(1)
			return nil
		})
	}
	return d, nil
}

// setKeys are pebble's --set keys, read into its options.
func setKeys(opts *pebbledb.Options, d *db) []backend.SetKey {
	const atLeast1 = "give a whole number ≥ 1"
	return []backend.SetKey{
		backend.SizeKey("MemTableSize", func(n int64) { opts.MemTableSize = uint64(n) }),
		backend.IntKey("L0CompactionThreshold", atLeast1, 1, math.MaxInt, func(n int) { opts.L0CompactionThreshold = n }),
		backend.IntKey("L0StopWritesThreshold", atLeast1, 1, math.MaxInt, func(n int) { opts.L0StopWritesThreshold = n }),
		backend.SizeKey("CacheSize", func(n int64) { opts.CacheSize = n }),
		backend.SizeKey("BytesPerSync", func(n int64) { opts.BytesPerSync = int(n) }),
		backend.SizeKey("WALBytesPerSync", func(n int64) { opts.WALBytesPerSync = int(n) }),
		backend.BoolKey("DisableWAL", func(b bool) { opts.DisableWAL = b }),
		backend.SyncIntervalKey(&d.interval),
	}
}

// quietLogger keeps pebble off stderr. Fatalf must not return (pebble's own
// logger exits the process): it panics with a fatalError, which commit and
// the background sync recover; anywhere else the panic ends the process with
// pebble's message, as pebble's own logger would.
type quietLogger struct{ errs *atomic.Int64 }

func (quietLogger) Infof(string, ...any)    {}
func (l quietLogger) Errorf(string, ...any) { l.errs.Add(1) }
func (quietLogger) Fatalf(format string, args ...any) {
	panic(newFatal(format, args...))
}

// loadTables reads the catalog keys into the in-memory table map.
func (d *db) loadTables() error {
	it, err := d.pebble.NewIter(&pebbledb.IterOptions{LowerBound: []byte{metaPrefix}, UpperBound: []byte{dataPrefix}})
	if err != nil {
		return classify(err)
	}
	m := map[string]span{}
	for ok := it.First(); ok; ok = it.Next() {
		name := string(it.Key()[1:])
		m[name] = spanOf(name)
	}
	if err := it.Close(); err != nil {
		return classify(fmt.Errorf("read the table catalog: %w", err))
	}
	d.tables.Store(&m)
	return nil
}

// commit applies b with the durability's write option. A fatal error pebble
// reports through its logger is recovered here and breaks the DB for good.
func (d *db) commit(b *pebbledb.Batch) (err error) {
	if e := d.failed.Load(); e != nil {
		return *e
	}
	defer d.recoverFatal(&err)
	if err := b.Commit(d.write); err != nil {
		return classify(err)
	}
	d.commits.Add(1)
	return nil
}

func (d *db) recoverFatal(err *error) {
	r := recover()
	if r == nil {
		return
	}
	f, ok := r.(fatalError)
	if !ok {
		panic(r)
	}
	e := classify(f)
	*err = e
	d.failed.CompareAndSwap(nil, &e)
}

// syncWAL writes an empty log record with pebble.Sync: the WAL is fsynced
// up to it, and so every commit before it.
func (d *db) syncWAL() (err error) {
	if e := d.failed.Load(); e != nil {
		return *e
	}
	defer d.recoverFatal(&err)
	return classify(d.pebble.LogData(nil, pebbledb.Sync))
}

// KVConn returns a handle for one client.
func (d *db) KVConn(context.Context) (backend.KVConn, error) { return &conn{db: d}, nil }

// optionNames maps the keys of pebble's OPTIONS file to the names --set uses.
var optionNames = map[string]string{
	"mem_table_size":                  "MemTableSize",
	"mem_table_stop_writes_threshold": "MemTableStopWritesThreshold",
	"l0_compaction_threshold":         "L0CompactionThreshold",
	"l0_stop_writes_threshold":        "L0StopWritesThreshold",
	"lbase_max_bytes":                 "LBaseMaxBytes",
	"cache_size":                      "CacheSize",
	"bytes_per_sync":                  "BytesPerSync",
	"wal_bytes_per_sync":              "WALBytesPerSync",
	"disable_wal":                     "DisableWAL",
	"max_open_files":                  "MaxOpenFiles",
	"max_concurrent_compactions":      "MaxConcurrentCompactions",
}

// Engine reads back the options pebble wrote to its OPTIONS file when it
// opened, the format it runs, and how commits reach the disk.
func (d *db) Engine(context.Context) (backend.Engine, error) {
	s, err := d.readOptions()
	if err != nil {
		return backend.Engine{}, err
	}
	s["FormatMajorVersion"] = d.pebble.FormatMajorVersion().String()
	// Not pebble's: the options dbgauge gives every Commit.
	s["commit_sync"] = strconv.FormatBool(d.write.Sync)
	switch d.dur {
	case backend.Sync:
		s["wal_sync"] = "every commit"
	case backend.Lazy:
		s["wal_sync"] = "background every " + d.interval.String()
	default:
		s["wal_sync"] = "none"
	}
	v := backend.ModuleVersion(module)
	cache, _ := strconv.ParseInt(s["CacheSize"], 10, 64)
	return backend.Engine{Name: "pebble", Version: v, Driver: module + " " + v, Path: d.path, Settings: s, CacheBytes: cache,
		NotReadBack: []string{"commit_sync", "wal_sync"}}, nil
}

func (d *db) readOptions() (map[string]string, error) {
	desc, err := pebbledb.Peek(d.path, vfs.Default)
	if err != nil {
		return nil, classify(fmt.Errorf("find the OPTIONS file: %w", err))
	}
	if desc.OptionsFilename == "" {
		return nil, classify(fmt.Errorf("pebble wrote no OPTIONS file in %s", d.path))
	}
	f, err := os.Open(desc.OptionsFilename)
	if err != nil {
		return nil, classify(err)
	}
	defer f.Close()
	s := map[string]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if name := optionNames[k]; ok && section == "[Options]" && name != "" {
			s[name] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, classify(fmt.Errorf("read %s: %w", desc.OptionsFilename, err))
	}
	return s, nil
}

// Stats returns pebble's own metrics and the counters kept here.
func (d *db) Stats(context.Context) (map[string]int64, error) {
	m := d.pebble.Metrics()
	total := m.Total()
	s := map[string]int64{
		"commits":               d.commits.Load(),
		"background_syncs":      d.bgSyncs.Load(),
		"wal_bytes_in":          int64(m.WAL.BytesIn),
		"wal_bytes_written":     int64(m.WAL.BytesWritten),
		"memtable_flushes":      m.Flush.Count,
		"compactions":           m.Compact.Count,
		"bytes_flushed":         int64(total.TableBytesFlushed),
		"bytes_compacted":       int64(total.TableBytesCompacted),
		"l0_files":              m.Levels[0].TablesCount,
		"l0_sublevels":          int64(m.Levels[0].Sublevels),
		"read_amp":              int64(m.ReadAmp()),
		"tables":                total.TablesCount,
		"block_cache_hits":      m.BlockCache.Hits,
		"block_cache_misses":    m.BlockCache.Misses,
		"memtable_bytes":        int64(m.MemTable.Size),
		"compaction_debt_bytes": int64(m.Compact.EstimatedDebt),
		"disk_bytes":            int64(m.DiskSpaceUsage()),
		"write_stalls":          d.stalls.Load(),
		"background_errors":     d.bgErrors.Load(),
		"logged_errors":         d.logErrs.Load(),
	}
	// Every WAL fsync is observed by the fsync latency histogram (the log
	// writer's flush loop, and its close): they are the flushes that make
	// commits durable, not the memtables' flushes into tables.
	if h := m.LogWriter.FsyncLatency; h != nil {
		var dm dto.Metric
		if err := h.Write(&dm); err != nil {
			return nil, classify(fmt.Errorf("read the WAL's fsync count: %w", err))
		}
		if dm.Histogram != nil {
			s["flushes"] = int64(dm.Histogram.GetSampleCount())
		}
	}
	return s, nil
}

// sampled are the counters of Stats that Sample returns: the cumulative
// ones. The levels Stats also reports (L0 files and sublevels, read
// amplification, tables, memtable bytes, compaction debt, disk bytes) are
// not counts, and a rate of them would mean nothing.
var sampled = []string{
	"commits", "background_syncs", "flushes", "wal_bytes_in", "wal_bytes_written",
	"memtable_flushes", "compactions", "bytes_flushed", "bytes_compacted",
	"block_cache_hits", "block_cache_misses", "write_stalls", "background_errors",
}

var _ backend.Sampler = (*db)(nil)

// Sample reads pebble's cumulative counters every second (DB.Metrics and
// the ones counted here): commits, the WAL's bytes in and written and its
// fsyncs ("flushes"), memtables flushed into tables and compactions done
// ("memtable_flushes" and "compactions" put each on the run's time line),
// the bytes they wrote, block cache hits and misses, write stalls begun.
func (d *db) Sample(ctx context.Context) (map[string]int64, error) {
	all, err := d.Stats(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(sampled))
	for _, k := range sampled {
		if v, ok := all[k]; ok {
			out[k] = v
		}
	}
	return out, nil
}

// Close stops the background sync and closes pebble, which syncs the WAL.
// A second call does nothing.
func (d *db) Close() error {
	if !d.closed.CompareAndSwap(false, true) {
		return nil
	}
	serr := d.flusher.Stop()
	err := d.pebble.Close()
	if err == nil {
		err = serr
	}
	return classify(err)
}
