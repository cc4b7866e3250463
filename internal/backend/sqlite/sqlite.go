// Package sqlite is the embedded SQLite engine (mattn/go-sqlite3, cgo), the
// default backend: a database file in the run's folder, no server needed.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

const driverModule = "github.com/mattn/go-sqlite3"

// Spec registers SQLite in the catalog.
var Spec = backend.Embedded(backend.Spec{
	Name:       "sqlite",
	Summary:    "embedded SQLite (mattn/go-sqlite3): one database file, WAL, one writer at a time",
	Ext:        ".db",
	API:        backend.SQL,
	Forms:      []string{"sqlite (a file in the run's folder)", "sqlite:PATH"},
	Driver:     driverModule,
	Durability: durabilityDoc,
	Isolation:  isolationDoc,
	Promises:   promises,
	Owns:       owns,
	Flushes:    "the xSync calls SQLite makes, each an fsync or fdatasync, counted by dbgauge's VFS shim (wal_syncs, db_syncs)",
	Prepare: map[backend.Prepare]string{
		backend.Once: "sqlite3_prepare_v2 once per connection; the statement is kept and reset after each use",
		backend.Each: "sqlite3_prepare_v2, step and finalize at every use",
	},
	Settings: []backend.Setting{
		{Key: "any PRAGMA", Usage: "applied on every connection before journal_mode and synchronous, e.g. cache_size=-64000, page_size=8192, busy_timeout=10000; read back, refused when SQLite does not know it"},
	},
	Abilities: []backend.Ability{backend.OnlineBackup},
	Cache:     "PRAGMA cache_size=-KiB on every connection (the negative form counts KiB, not pages): each connection has a cache of that size; read back as cache_size",
	PageSize:  "PRAGMA page_size before the database is created (journal_mode=WAL then writes it in the header); read back; an existing database keeps its own, and a different one is refused",
	PageSizes: []int64{512, 1024, 2048, 4096, 8192, 16384, 32768, 65536},

	// --dataset's estimate (docs/data.md): measured: the rowid table's cell and the primary key's index entry, 4 KiB pages.
	RecordOverhead: 32,

	Open: open,
})

// defaultBusyTimeoutMs is how long a connection waits for the write lock
// before SQLITE_BUSY (a retryable, counted failure).
const defaultBusyTimeoutMs = "5000"

// pragmaName and pragmaValue bound what --set may inject into a PRAGMA.
var (
	pragmaName  = regexp.MustCompile(`^[a-z_]+$`)
	pragmaValue = regexp.MustCompile(`^-?[A-Za-z0-9_.]+$`)
)

type db struct {
	sql       *sql.DB
	admin     *sql.Conn
	path      string
	prepare   backend.Prepare
	userKeys  []string
	commits   atomic.Int64
	rollbacks atomic.Int64
	syncs     *syncCounter // the xSync calls of its files
}

// connector opens SQLite connections with our pragmas and hooks, without a
// global driver registration.
type connector struct {
	drv *sqlite3.SQLiteDriver
	dsn string
}

func (c *connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c *connector) Driver() driver.Driver                        { return c.drv }

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	if !cgoEnabled {
		return nil, knob.Bad("rebuild with CGO_ENABLED=1 and a C compiler (apt-get install gcc), or use --db bbolt",
			"this dbgauge was built without cgo, and SQLite (mattn/go-sqlite3) needs it")
	}
	if err := checkIsolation(o.Isolation); err != nil {
		return nil, err
	}
	pragmas, userKeys, err := pragmasFor(o)
	if err != nil {
		return nil, err
	}
	d := &db{path: o.EmbeddedPath("sqlite", "sqlite.db"), prepare: o.Prepare, userKeys: userKeys}
	if d.syncs, err = newSyncCounter(); err != nil {
		return nil, err
	}
	drv := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		for _, p := range pragmas {
			if _, err := c.Exec("PRAGMA "+p.Key+"="+p.Value, nil); err != nil {
				return fmt.Errorf("PRAGMA %s=%s: %w", p.Key, p.Value, err)
			}
		}
		c.RegisterCommitHook(func() int { d.commits.Add(1); return 0 })
		c.RegisterRollbackHook(func() { d.rollbacks.Add(1) })
		return nil
	}}
	// _txlock is unused: Conn.Begin says BEGIN IMMEDIATE itself.
	d.sql = sql.OpenDB(&connector{drv: drv, dsn: "file:" + d.path + "?vfs=" + d.syncs.name})
	d.sql.SetMaxIdleConns(o.Conns + 2)
	d.sql.SetConnMaxLifetime(0)
	// The first connection creates the file and switches it to WAL before any
	// client connects.
	d.admin, err = d.sql.Conn(ctx)
	if err != nil {
		_ = d.Close()
		return nil, classify(err)
	}
	for _, k := range userKeys {
		if _, err := d.pragma(ctx, k); err != nil {
			_ = d.Close()
			return nil, knob.Bad("see https://www.sqlite.org/pragma.html for the settings SQLite knows",
				"--set %s: SQLite has no such setting", k)
		}
	}
	for _, p := range pragmas {
		if p.Key != "page_size" {
			continue
		}
		// SQLite ignores a page size it cannot apply (not a power of two, or
		// a database that exists already): the read-back tells.
		got, err := d.pragma(ctx, "page_size")
		if err != nil || got != p.Value {
			_ = d.Close()
			return nil, knob.Bad("a page size is fixed when the database is created: give a power of two from 512 to 65536, and a fresh database (not --db sqlite:PATH of an existing file)",
				"SQLite page_size=%s asked, but %s has page_size %s", p.Value, d.path, got)
		}
	}
	return d, nil
}

// sizing returns the pragmas of --page-size and --cache, refusing a --set
// of the same pragma with another value.
func sizing(o backend.Options) ([]backend.KeyValue, error) {
	var out []backend.KeyValue
	for _, s := range []struct {
		key, knob, value string
	}{
		{"page_size", "page-size", strconv.FormatInt(o.PageSize, 10)},
		{"cache_size", "cache", strconv.FormatInt(-o.CacheBytes/1024, 10)},
	} {
		if s.value == "0" {
			continue
		}
		for _, kv := range o.Set {
			if strings.EqualFold(kv.Key, s.key) && kv.Value != s.value {
				return nil, knob.Bad("give one of them", "--%s (PRAGMA %s=%s) and --set %s=%s disagree", s.knob, s.key, s.value, kv.Key, kv.Value)
			}
		}
		out = append(out, backend.KeyValue{Key: s.key, Value: s.value})
	}
	return out, nil
}

// pragmasFor returns the pragmas every connection runs, in order: the busy
// timeout, the user's --set values, then the durability mapping unless the
// user set journal_mode or synchronous himself.
func pragmasFor(o backend.Options) ([]backend.KeyValue, []string, error) {
	dur, ok := durabilityPragmas[o.Durability]
	if !ok {
		return nil, nil, knob.Bad("give sync, lazy or off", "sqlite has no durability %q", o.Durability)
	}
	out := []backend.KeyValue{{Key: "busy_timeout", Value: defaultBusyTimeoutMs}}
	sized, err := sizing(o)
	if err != nil {
		return nil, nil, err
	}
	out = append(out, sized...)
	user := map[string]bool{}
	var keys []string
	for _, kv := range o.Set {
		k := strings.ToLower(kv.Key)
		if !pragmaName.MatchString(k) || !pragmaValue.MatchString(kv.Value) {
			return nil, nil, knob.Bad("write it as --set pragma=value, e.g. --set cache_size=-64000",
				"--set %s=%s is not a PRAGMA assignment SQLite accepts", kv.Key, kv.Value)
		}
		out = append(out, backend.KeyValue{Key: k, Value: kv.Value})
		user[k] = true
		keys = append(keys, k)
	}
	for _, p := range dur {
		if !user[p.Key] {
			out = append(out, p)
		}
	}
	return out, keys, nil
}

func (d *db) pragma(ctx context.Context, name string) (string, error) {
	var v sql.NullString
	err := d.admin.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	return v.String, err
}

// Dialect returns SQLite's dialect.
func (d *db) Dialect() backend.Dialect { return dialect }

// Conn opens a client connection.
func (d *db) Conn(ctx context.Context) (backend.Conn, error) {
	c, err := d.sql.Conn(ctx)
	if err != nil {
		return nil, classify(err)
	}
	return backend.NewStdConn(c, backend.StdConfig{
		Prepare:  d.prepare,
		BeginSQL: "BEGIN IMMEDIATE", // writers take the write lock up front: no deadlock on upgrade
		Classify: classify,
		// go-sqlite3 runs a cancelable statement on a goroutine of its own,
		// costing more than the statement: let statements run to their end.
		Uncancelable: true,
		Direct:       true,
	}), nil
}

// readBack lists the settings reported in every result, beside the user's.
var readBack = []string{
	"journal_mode", "synchronous", "busy_timeout", "page_size", "cache_size",
	"wal_autocheckpoint", "locking_mode", "temp_store", "mmap_size", "foreign_keys",
}

// Engine reads back SQLite's version and effective settings.
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e := backend.Engine{
		Name: "sqlite", Path: d.path, Settings: map[string]string{},
		Driver: driverModule + " " + backend.ModuleVersion(driverModule),
	}
	if err := d.admin.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&e.Version); err != nil {
		return e, classify(err)
	}
	for _, k := range append(readBack, d.userKeys...) {
		v, err := d.pragma(ctx, k)
		if err != nil {
			return e, classify(err)
		}
		if k == "synchronous" {
			v = synchronousName(v)
		}
		e.Settings[k] = v
	}
	var err error
	if e.Isolation, err = d.isolation(ctx); err != nil {
		return e, err
	}
	e.PageSize, _ = strconv.ParseInt(e.Settings["page_size"], 10, 64)
	// cache_size: -N is N KiB, N is N pages (PRAGMA cache_size).
	if c, err := strconv.ParseInt(e.Settings["cache_size"], 10, 64); err == nil {
		e.CacheBytes = c * e.PageSize
		if c < 0 {
			e.CacheBytes = -c * 1024
		}
	}
	return e, nil
}

// Stats returns Sample's counters and the database size in pages.
func (d *db) Stats(ctx context.Context) (map[string]int64, error) {
	var pages int64
	if err := d.admin.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return nil, classify(err)
	}
	m, _ := d.Sample(ctx)
	m["page_count"] = pages
	return m, nil
}

var _ backend.Sampler = (*db)(nil)

// Sample returns SQLite's cumulative counters, read from memory without a
// statement: the commits and rollbacks its own hooks counted, and what its
// files did through dbgauge's VFS shim: the xSync calls (the WAL's, the
// database file's, all of them as "flushes") and the bytes written to the
// WAL ("wal_bytes"), to the database file (at checkpoints, in WAL mode)
// and to a rollback journal, and read from the database file. The database
// size in pages, a level, is Stats' only.
func (d *db) Sample(context.Context) (map[string]int64, error) {
	wal, file, other := d.syncs.syncs()
	walW, dbW, otherW, dbR := d.syncs.bytes()
	return map[string]int64{
		"commits":               d.commits.Load(),
		"rollbacks":             d.rollbacks.Load(),
		"wal_syncs":             wal,
		"db_syncs":              file,
		"flushes":               wal + file + other,
		"wal_bytes":             walW,
		"db_bytes_written":      dbW,
		"journal_bytes_written": otherW,
		"db_bytes_read":         dbR,
	}, nil
}

// Close closes every connection.
func (d *db) Close() error {
	if d.admin != nil {
		_ = d.admin.Close()
	}
	err := d.sql.Close()
	d.syncs.unregister()
	return err
}

// Integrity runs PRAGMA integrity_check: "ok", or the problems it lists.
func (d *db) Integrity(ctx context.Context) (bool, string, error) {
	rows, err := d.admin.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return false, "", classify(err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return false, "", classify(err)
		}
		lines = append(lines, s)
	}
	if err := rows.Err(); err != nil {
		return false, "", classify(err)
	}
	detail := strings.Join(lines, "; ")
	return detail == "ok", "PRAGMA integrity_check: " + detail, nil
}

// EngineMemory returns what SQLite itself has allocated in this process
// (sqlite3_memory_used): each connection's page cache (cache_size, 2 MiB by
// default) is in dbgauge's resident memory, since the engine runs inside it.
func (d *db) EngineMemory() int64 { return engineMemory() }
