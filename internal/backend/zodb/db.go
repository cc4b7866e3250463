package zodb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/pyworker"
)

// Storage is how a worker opens its storage: the worker's "open" request.
type Storage struct {
	Kind     string  `json:"kind"` // "file" (FileStorage), "zeo" (ClientStorage), "relstorage" (RelStorage on PostgreSQL) or "neo" (NEO's client Storage)
	Path     string  `json:"path,omitempty"`
	Create   bool    `json:"create,omitempty"`
	Host     string  `json:"host,omitempty"`
	Port     int     `json:"port,omitempty"`
	Wait     float64 `json:"wait,omitempty"`      // ZEO: seconds to wait for the server to answer
	Cache    int64   `json:"cache,omitempty"`     // ZEO, NEO: the client cache's bytes (cache_size); 0: their 20 MB
	ReadOnly bool    `json:"read_only,omitempty"` // ZEO: a read-only client (of a ZRS secondary)
	// RelStorage: PostgreSQL's libpq connection string (its password
	// inside: it reaches the worker on its stdin only, never its command
	// line or environment); Create makes RelStorage's schema.
	DSN string `json:"dsn,omitempty"`
	// NEO: its masters' addresses ("127.0.0.1:PORT", space-separated)
	// and the cluster's name.
	Masters string `json:"masters,omitempty"`
	Cluster string `json:"cluster,omitempty"`
	// ScanRanges: a scan walks so many ranges at once, a thread each
	// (through ZEO and NEO a record is a round trip, and one walk waits
	// for each in turn); 0: one walk. Ranges of oids, each a chain of
	// record_iternext calls from its first, where the storage's cursor is
	// an oid (a FileStorage's: the first record at or after it); on NEO,
	// which has no record_iternext, ranges of its transactions' tids.
	ScanRanges int `json:"scan_ranges,omitempty"`
}

// ManagedScanRanges is how many ranges a scan of a server dbgauge started
// walks at once (ZEO, ZRS, NEO): measured on this project's 2-CPU machine,
// 8 chains through one ZEO client took 200 µs a record against 540 µs for
// one.
const ManagedScanRanges = 8

// ManagedZEO is how a client reaches a ZEO (or ZRS) server that dbgauge
// started on this machine, a FileStorage behind it: on loopback, at port,
// with a client cache of cache bytes (0: ZEO's 20 MB).
func ManagedZEO(port int, cache int64) Storage {
	return Storage{Kind: "zeo", Host: "127.0.0.1", Port: port, Wait: 30, Cache: cache, ScanRanges: ManagedScanRanges}
}

// Config says how a ZODB engine's DB reaches its storage.
type Config struct {
	Engine  string // "zodb", "zeo": what Engine and errors call it
	Python  string // the environment's interpreter (Python)
	Storage Storage
	// Shared: every client is a session of the one worker that opened the
	// storage (FileStorage: one process opens a file); else each client
	// has a worker process of its own, as a ZODB application runs one
	// client per process.
	Shared bool
	// Py2: the environment is Python 2.7's (NEO's): its worker is started
	// as one (pyworker.Config.Py2).
	Py2 bool
}

// DB is a ZODB storage seen through the storage API, as key-value tables
// (worker.py says how): its own worker, and each client's. Open makes it.
type DB struct {
	cfg    Config
	ctl    *pyworker.Worker // the DB's own requests; with Shared, every client's too
	opened opened
	// the clients' own workers alive, and what the closed ones cost
	mu       sync.Mutex
	clients  map[*pyworker.Worker]bool
	doneCPU  time.Duration
	doneReqs int64
	commits  atomic.Int64 // transactions the clients committed (tpc_finish returned)
	conflict atomic.Int64 // commits refused with a ConflictError
}

// opened is the worker's reply to "open": the storage's settings read back.
type opened struct {
	Settings map[string]string `json:"settings"`
	Last     string            `json:"last"`
}

// Open starts a worker and opens the storage in it, within ctx.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	d := &DB{cfg: cfg, clients: map[*pyworker.Worker]bool{}}
	w, err := d.start(ctx)
	if err != nil {
		return nil, err
	}
	d.ctl = w
	if err := w.Call(ctx, 0, "open", cfg.Storage, &d.opened); err != nil {
		_ = w.Close()
		return nil, fmt.Errorf("%s: open the storage: %w", cfg.Engine, classify(err))
	}
	return d, nil
}

func (d *DB) start(ctx context.Context) (*pyworker.Worker, error) {
	return pyworker.Start(ctx, pyworker.Config{Name: d.cfg.Engine + " worker", Python: d.cfg.Python, Script: workerSource, File: "zodb_worker.py", Py2: d.cfg.Py2})
}

// Worker is the DB's own worker (a test kills it).
func (d *DB) Worker() *pyworker.Worker { return d.ctl }

var _ backend.Workers = (*DB)(nil)

// Engine reads back the storage's settings and the worker's versions.
func (d *DB) Engine(context.Context) (backend.Engine, error) {
	h := d.ctl.Hello()
	s := map[string]string{}
	for k, v := range d.opened.Settings {
		s[k] = v
	}
	s["python"] = h.Python
	for _, p := range []string{"ZODB", "ZEO", "persistent", "BTrees", "transaction"} {
		if v := h.Packages[p]; v != "" { // RelStorage's environment has no ZEO
			s[p+"_version"] = v
		}
	}
	s["worker_protocol"] = strconv.Itoa(h.Protocol)
	s["workers"] = "one process per client"
	if d.cfg.Shared {
		s["workers"] = "one process, a thread per client"
	}
	version := "ZODB " + h.Packages["ZODB"]
	switch d.cfg.Storage.Kind {
	case "zeo":
		version = "ZEO " + h.Packages["ZEO"] + ", " + version
	case "neo":
		s["neoppod_version"] = h.Packages["neoppod"]
		version = "NEO " + h.Packages["neoppod"] + ", " + version
	case "relstorage":
		s["RelStorage_version"], s["psycopg2_version"] = h.Packages["RelStorage"], h.Packages["psycopg2-binary"]
		version = "RelStorage " + h.Packages["RelStorage"] + ", " + version + ", PostgreSQL " + s["server_version"]
	}
	cache, _ := strconv.ParseInt(s["cache_size"], 10, 64)
	return backend.Engine{Name: d.cfg.Engine, Version: version, Path: d.cfg.Storage.Path, CacheBytes: cache,
		Driver: fmt.Sprintf("dbgauge's ZODB worker (Python %s, protocol %d)", h.Python, h.Protocol), Settings: s}, nil
}

// Stats returns the commits and conflicts counted here, the flushes they
// made (a FileStorage fsyncs once in each tpc_finish; RelStorage's
// PostgreSQL counts its WAL's), the storage's size and what the workers
// cost: their CPU time and requests, the closed clients' too.
func (d *DB) Stats(ctx context.Context) (map[string]int64, error) {
	d.mu.Lock()
	open := make([]int, 0, len(d.clients))
	for w := range d.clients {
		open = append(open, w.Hello().PID)
	}
	d.mu.Unlock()
	var st map[string]int64
	if err := d.ctl.Call(ctx, 0, "stats", map[string]any{"open": open}, &st); err != nil {
		return nil, classify(err)
	}
	cpu, reqs := d.cost()
	out := map[string]int64{
		"commits":         d.commits.Load(),
		"flushes":         d.commits.Load(),
		"conflicts":       d.conflict.Load(),
		"worker_cpu_us":   cpu.Microseconds(),
		"worker_requests": reqs,
	}
	if n, ok := st["objects"]; ok {
		out["objects"], out["storage_bytes"] = n, st["bytes"]
	}
	// The server under the storage counts its own flushes (RelStorage:
	// PostgreSQL's WAL): those, not the commits, are the flushes.
	for _, k := range []string{"flushes", "wal_records", "wal_bytes"} {
		if n, ok := st[k]; ok {
			out[k] = n
		}
	}
	return out, nil
}

// WorkerCost is the workers' CPU time and requests answered, closed ones
// too (backend.Workers).
func (d *DB) WorkerCost() (time.Duration, int64) { return d.cost() }

// cost sums the workers' CPU time and requests answered, closed ones too.
func (d *DB) cost() (time.Duration, int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	cpu, reqs := d.doneCPU+d.ctl.CPU(), d.doneReqs+d.ctl.Requests()
	for w := range d.clients {
		cpu += w.CPU()
		reqs += w.Requests()
	}
	return cpu, reqs
}

// Integrity runs FileStorage's own check of the file (fstest).
func (d *DB) Integrity(ctx context.Context) (bool, string, error) {
	return d.IntegrityOf(ctx, d.cfg.Storage.Path)
}

// IntegrityOf runs ZODB's fstest on a FileStorage's file (a ZEO server's,
// read beside it), from the DB's own worker.
func (d *DB) IntegrityOf(ctx context.Context, path string) (bool, string, error) {
	var r struct {
		OK     bool   `json:"ok"`
		Detail string `json:"detail"`
	}
	if err := d.ctl.Call(ctx, 0, "check", map[string]string{"path": path}, &r); err != nil {
		return false, "", classify(err)
	}
	return r.OK, r.Detail, nil
}

// ForgetCaches empties every worker's ZEO client cache (its last tid too):
// a ClientStorage that saw a transaction its server lacks refuses that
// server ("Client cache is out of sync with the server"), which a failover
// that lost acknowledged commits makes of every client; ZEO's remedy is a
// fresh cache.
func (d *DB) ForgetCaches(ctx context.Context) error {
	d.mu.Lock()
	ws := []*pyworker.Worker{d.ctl}
	for w := range d.clients {
		ws = append(ws, w)
	}
	d.mu.Unlock()
	var errs []error
	for _, w := range ws {
		if err := w.Call(ctx, 0, "forget", nil, nil); err != nil {
			errs = append(errs, classify(err))
		}
	}
	return errors.Join(errs...)
}

// KVConn opens a client: a session of the DB's worker (Shared), else a
// worker of its own that opens the storage.
func (d *DB) KVConn(ctx context.Context) (backend.KVConn, error) {
	if d.cfg.Shared {
		return newConn(d, d.ctl, d.ctl.Session(), false), nil
	}
	w, err := d.start(ctx)
	if err != nil {
		return nil, classify(err)
	}
	st := d.cfg.Storage
	st.Create = false // the DB's own worker made what needed making
	if err := w.Call(ctx, 0, "open", st, nil); err != nil {
		_ = w.Close()
		return nil, classify(err)
	}
	d.mu.Lock()
	d.clients[w] = true
	d.mu.Unlock()
	return newConn(d, w, w.Session(), true), nil
}

// closed takes a client's worker off the list, keeping what it cost.
func (d *DB) closed(w *pyworker.Worker) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.clients[w] {
		delete(d.clients, w)
		d.doneCPU += w.CPU()
		d.doneReqs += w.Requests()
	}
}

// Close closes the storage and ends every worker.
func (d *DB) Close() error {
	d.mu.Lock()
	ws := make([]*pyworker.Worker, 0, len(d.clients))
	for w := range d.clients {
		ws = append(ws, w)
	}
	d.mu.Unlock()
	for _, w := range ws {
		_ = w.Close()
		d.closed(w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := d.ctl.Call(ctx, 0, "close", nil, nil)
	if cerr := d.ctl.Close(); err == nil {
		err = cerr
	}
	return err
}
