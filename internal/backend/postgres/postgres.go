// Package postgres is PostgreSQL, through pgx's native interface: a server of
// your own (--db postgres://…) or a throwaway one dbgauge starts on loopback
// (--db postgres:managed).
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/server"
)

const (
	module  = "github.com/jackc/pgx/v5"
	managed = "postgres:managed"
)

// Spec registers PostgreSQL in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "postgres",
	Summary:    "PostgreSQL through pgx: your server (a DSN) or a throwaway managed one on loopback",
	Manages:    []string{managed},
	Versioned:  true,
	API:        backend.SQL,
	Forms:      []string{managed, managed + "@MAJOR (a version: /usr/lib/postgresql/MAJOR/bin first; " + InstallScript + ")", managed + "@DIR (a folder of initdb and postgres)", "postgres://USER:PASSWORD@HOST:PORT/DB?sslmode=… (or postgresql://, or host=… key=value)"},
	Preflight:  preflight,
	Driver:     module,
	Durability: durabilityDoc,
	Isolation:  isolationDoc,
	Promises:   promises,
	Expect:     map[backend.Durability]map[string]string{backend.Lazy: {"wal_writer_delay": "100ms"}},
	// On a server of the user's fsync is the server's: read back, and the
	// verdict judges it (Owns).
	Owns:    owns,
	Flushes: "the WAL's flushes: pg_stat_wal.wal_sync (14 to 17), the fsyncs of pg_stat_io's object wal (18 on)",
	Prepare: map[backend.Prepare]string{
		backend.Once: "Parse once per connection, then Bind/Execute (pgbench -M prepared), through pgconn",
		backend.Each: "pgx's describe-exec mode: every use parses and describes the statement anew (an unnamed statement)",
	},
	Settings: []backend.Setting{
		{Key: "any postgresql.conf parameter", Usage: "managed: passed as -c name=value at start; DSN: set for each session (only parameters a session may set); read back with current_setting()"},
	},
	Abilities:      []backend.Ability{backend.Procedures, backend.OnlineBackup, backend.NetFaults, backend.NodeFaults},
	Nodes:          func(v *knob.Values) []string { return server.NodeNames(v.Get("topology")) },
	Reopen:         reopen,
	CheckUpgrade:   checkUpgrade,
	UpgradeMethods: upgradeMethods,
	Installed:      installed,
	Cache:          "shared_buffers (postgres:managed: -c shared_buffers=…kB at start; a server of yours sets it only at its own start, so --cache is refused there); read back with block_size",
	NoPageSize:     "PostgreSQL's block size is fixed when PostgreSQL is compiled (BLCKSZ, 8192 unless built otherwise; SHOW block_size), so no run can set it",

	// --dataset's estimate (docs/data.md): measured: heap tuple header and line pointer, the primary key's B-tree entry, pages filled in hashed key order.
	RecordOverhead: 80,

	Knobs: []knob.Spec{
		{Name: "pg-bin", Values: "DIR", Uses: knob.ForLoad | knob.ForCheck, Usage: "postgres:managed: the folder holding initdb and postgres (default: the newest of /usr/lib/postgresql/*/bin, …, the system's own first)"},
		{Name: "pg-version", Kind: knob.Int, Values: "9..99", Uses: knob.ForLoad | knob.ForCheck, Usage: "postgres:managed: the PostgreSQL major version to start (/usr/lib/postgresql/N/bin first), like --db postgres:managed@N; " + InstallScript + " installs 13, 14, 16, 17 and 18"},
		{Name: "socket", Kind: knob.Switch, Uses: knob.ForLoad | knob.ForCheck, Usage: "postgres:managed: connect through the server's Unix socket instead of TCP (for a DSN, give host=/socket/folder)"},
		server.TopologyKnob,
		server.ReplicationKnob,
		{Name: "read-from", Default: "primary", Kind: knob.Choice, Choices: []string{"primary", "replicas"}, Usage: "with --topology, for a read-only workload (tpcb --select-only): the clients connect to the replicas in turn"},
	},
	Own:  ownKnobs,
	Open: open,
}, "postgres://", "postgresql://")

// own is what PostgreSQL's own knobs ask (Spec.Knobs), read once when the
// run is planned (Spec.Own).
type own struct {
	bin     string // --pg-bin, or the folder of the version asked (@MAJOR, --pg-version) for a managed server
	socket  bool   // --socket
	cluster clusterConfig
}

// ownKnobs reads PostgreSQL's own knobs: Spec.Own.
func ownKnobs(v *knob.Values) (any, error) {
	o := own{bin: v.Get("pg-bin")}
	var err error
	if o.socket, err = v.Bool("socket"); err != nil {
		return nil, err
	}
	if o.cluster.topology, err = v.Choice("topology"); err != nil {
		return nil, err
	}
	if o.cluster.replication, err = v.Choice("replication"); err != nil {
		return nil, err
	}
	if o.cluster.replication == "semi-sync" {
		return nil, knob.Bad("use async, sync or remote_apply with postgres:managed", "--replication semi-sync is MariaDB's: PostgreSQL has no semi-synchronous replication")
	}
	from, err := v.Choice("read-from")
	if err != nil {
		return nil, err
	}
	o.cluster.readReplica = from == "replicas"
	pgv := v.Get("pg-version")
	if pgv != "" {
		if _, err := v.Int("pg-version", 9, 99); err != nil {
			return nil, err
		}
	}
	if db := v.Get("db"); isManaged(db) {
		// Resolved here, at plan time, so that a missing version or a
		// feature its binaries lack is refused before anything starts.
		if o.bin, err = binOf(db, o.bin, pgv); err != nil {
			return nil, err
		}
		if err := refuseMissing(db, o.bin, v.Get("backup") != "", o.cluster.topology); err != nil {
			return nil, err
		}
	} else if pgv != "" && db != "" {
		return nil, knob.Bad("use --db postgres:managed with --pg-version", "--pg-version picks the binaries of a server dbgauge starts; %s is not one", redact.DSN(db))
	}
	return o, nil
}

// isManaged says whether db asks for a managed server, of any version.
func isManaged(db string) bool {
	form, _ := backend.VersionOf(db)
	return form == managed
}

// ownOf returns the options' own knobs, or their defaults when the caller
// gave none (a test, dbgauge isolation).
func ownOf(o backend.Options) own {
	if x, ok := o.Own.(own); ok {
		return x
	}
	return own{cluster: clusterConfig{topology: "none", replication: "async"}}
}

type db struct {
	cfg      *pgx.ConnConfig
	srv      *Server
	m        *backend.Managed  // srv as the session sees it; nil without one
	started  map[string]string // the settings srv was started with, which an upgraded server takes too
	old      *Server           // after an upgrade: the server srv was upgraded from, stopped, its folders left to remove
	socket   bool
	userKeys []string
	open     atomic.Int64 // workload connections open now
	self     atomic.Int64 // transactions dbgauge's own reads committed (Engine, Stats)
	samples  sampler      // Sample's connection
	version  int          // server_version_num
	// --topology: the replicas of the managed primary, and what each
	// streams from; after a failover, the promoted server (the primary's
	// Process says it was killed).
	cluster    clusterConfig
	replicas   []*Server
	upstream   []string
	promoted   *Server
	readers    []*pgx.ConnConfig // --read-from replicas
	net        *netns.Net        // the cluster's network; nil: loopback
	nextReader atomic.Int64
}

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	own := ownOf(o)
	d := &db{socket: own.socket}
	pgBin := own.bin
	settings, err := d.settings(o)
	if err != nil {
		return nil, err
	}
	if _, at := backend.VersionOf(o.DB); at != "" && pgBin == "" && isManaged(o.DB) {
		// Opened without a plan (a test, dbgauge isolation): the version's
		// folder is found here.
		if pgBin, err = binOf(o.DB, "", ""); err != nil {
			return nil, err
		}
	}
	dsn := o.DB
	if isManaged(o.DB) {
		if dsn, err = d.startManaged(ctx, o, pgBin, settings); err != nil {
			return nil, err
		}
		settings = nil // applied at start
	} else if o.Archive {
		return nil, knob.Bad("use --db postgres:managed with --backup", "--backup restores into servers dbgauge starts, from a WAL archive it keeps: a server of yours has neither")
	} else if d.socket {
		return nil, knob.Bad("give the socket folder in the DSN instead: postgres://user@/db?host=/var/run/postgresql", "--socket is for postgres:managed")
	}
	if d.cfg, err = pgx.ParseConfig(dsn); err != nil {
		d.stop()
		return nil, knob.Bad("write it as postgres://user:password@host:5432/db", "--db %q is not a PostgreSQL connection string: %v", redact.DSN(dsn), redact.DSN(err.Error()))
	}
	d.cfg.ConnectTimeout = 10 * time.Second
	for k, v := range settings {
		d.cfg.RuntimeParams[k] = v // per session, on a server of the user's
	}
	// Each connection keeps its prepared statements (and no descriptions,
	// which only QueryExecModeCacheDescribe uses); describe-exec keeps none.
	d.cfg.DefaultQueryExecMode, d.cfg.StatementCacheCapacity = pgx.QueryExecModeCacheStatement, stmtCache
	if o.Prepare == backend.Each {
		d.cfg.DefaultQueryExecMode, d.cfg.StatementCacheCapacity = pgx.QueryExecModeDescribeExec, 0
	}
	d.cfg.DescriptionCacheCapacity = 0
	c, err := d.connect(ctx)
	if err != nil {
		d.stop()
		return nil, openError(err, o.DB)
	}
	err = c.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&d.version)
	_ = c.Close(ctx)
	d.self.Add(1)
	if err != nil {
		d.stop()
		return nil, classify(err)
	}
	switch {
	case len(d.replicas) > 0:
		return clusterDB{d.managed()}, nil
	case d.srv != nil:
		return d.managed(), nil
	}
	return d, nil
}

// startManaged starts the managed server with settings, and its replicas
// with --topology (on the cluster's network where one can be made), and
// returns the connection string that reaches the one that accepts writes.
func (d *db) startManaged(ctx context.Context, o backend.Options, pgBin string, settings map[string]string) (string, error) {
	if _, ok := settings["max_connections"]; !ok {
		settings["max_connections"] = strconv.Itoa(max(100, o.Conns+20))
	}
	var host *netns.Host
	var err error
	if d.net, host, err = server.ClusterNet(ctx, d.cluster.topology); err != nil {
		return "", err
	}
	if d.srv, err = Start(ctx, ServerConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs, Host: host}, Bin: pgBin, Settings: settings, Archive: o.Archive}); err != nil {
		_ = d.net.Close()
		var bad *knob.Error
		if len(o.Set) > 0 && !errors.As(err, &bad) {
			return "", knob.Bad("check the parameters given with --set", "%v", err)
		}
		return "", err
	}
	d.started = settings
	if d.cluster.topology == "none" {
		return d.srv.DSN(d.socket), nil
	}
	if err := d.startReplicas(ctx, o.Dir, settings); err != nil {
		d.stop()
		return "", err
	}
	return d.clusterDSN(), nil
}

// settings are the server parameters the run asks for: its durability
// level's, the cluster's, --set's, its isolation's and --cache's, refusing
// what PostgreSQL cannot give (d.cluster is read on the way).
func (d *db) settings(o backend.Options) (map[string]string, error) {
	settings, err := mapDurability(o.Durability, isManaged(o.DB))
	if err != nil {
		return nil, err
	}
	if d.cluster, err = parseCluster(o, settings, d.socket); err != nil {
		return nil, err
	}
	for _, kv := range o.Set {
		settings[kv.Key] = kv.Value
		d.userKeys = append(d.userKeys, kv.Key)
	}
	if err := applyIsolation(settings, o.Isolation); err != nil {
		return nil, err
	}
	if o.CacheBytes <= 0 {
		return settings, nil
	}
	if !isManaged(o.DB) {
		return nil, knob.Bad("set shared_buffers in your server's postgresql.conf and restart it, or use --db postgres:managed",
			"--cache sets shared_buffers, which a server of yours takes only when it starts")
	}
	if err := backend.AgreeVar(settings, "--cache", "shared_buffers", strconv.FormatInt(o.CacheBytes/1024, 10)+"kB"); err != nil {
		return nil, err
	}
	return settings, nil
}

// openError turns a failed first connection into one line a person can act on.
func openError(err error, db string) error {
	msg := redact.DSN(err.Error())
	if isManaged(db) {
		return fmt.Errorf("connect to the managed server: %s", msg)
	}
	switch sqlState(err) {
	case "28P01", "28000":
		return knob.Bad("check the user and password in --db", "PostgreSQL refused the login: %s", msg)
	case "3D000":
		return knob.Bad("create the database, or name another in --db", "%s", msg)
	case "55P02", "42704", "22023":
		return knob.Bad("on a server of yours, only parameters a session may set can be given with --set or --durability", "%s", msg)
	case "":
		return knob.Bad("is the server running, and are host and port in --db right?", "cannot connect to PostgreSQL: %s", msg)
	}
	return errors.New(msg)
}

// stmtCache is how many prepared statements a connection keeps: the largest
// workload (oltp-emul) uses 38. pgx's default of 512, with as many
// descriptions, costs ~96 KB a connection, 96 MB at 1,000 clients.
const stmtCache = 64

func (d *db) connect(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, d.cfg) }

// configFor is how to reach another server dbgauge manages (a replica, a
// restored cluster) the way d reaches its own: same timeout, same
// statement mode.
func (d *db) configFor(srv *Server) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(srv.DSN(false))
	if err != nil {
		return nil, err
	}
	cfg.ConnectTimeout, cfg.DefaultQueryExecMode = d.cfg.ConnectTimeout, d.cfg.DefaultQueryExecMode
	cfg.StatementCacheCapacity, cfg.DescriptionCacheCapacity = d.cfg.StatementCacheCapacity, d.cfg.DescriptionCacheCapacity
	return cfg, nil
}

func (d *db) stop() {
	d.closeSampler()
	d.stopReplicas()
	if d.srv != nil {
		d.managed().Stop(d.srv.StopClean)
	}
	if d.old != nil {
		_, _ = d.old.StopClean() // what is left of the cluster upgraded from
	}
	// After every server: a namespace lives on while a process is in it.
	_ = d.net.Close()
}

// Dialect returns PostgreSQL's dialect.
func (d *db) Dialect() backend.Dialect { return dialect }

// Conn opens a client connection: to the primary, or with --read-from
// replicas to the replicas in turn. With --prepare once it is a bare pgconn
// connection on the prepared path (preparedpath.go); with each, pgx's.
func (d *db) Conn(ctx context.Context) (backend.Conn, error) {
	cfg := d.cfg
	if n := len(d.readers); n > 0 {
		cfg = d.readers[int(d.nextReader.Add(1)-1)%n]
	}
	c, err := d.openConn(ctx, cfg, d.cfg.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// openConn opens a connection with cfg: a bare pgconn one on the prepared
// path when onPath, else pgx's.
func (d *db) openConn(ctx context.Context, cfg *pgx.ConnConfig, onPath bool) (*conn, error) {
	cn := &conn{d: d, sqls: map[*backend.Stmt]string{}}
	var err error
	if onPath {
		cn.pc, err = pgconn.ConnectConfig(ctx, &cfg.Config)
	} else if cn.px, err = pgx.ConnectConfig(ctx, cfg); err == nil {
		cn.pc = cn.px.PgConn()
	}
	if err != nil {
		return nil, classify(err)
	}
	d.open.Add(1)
	nc := cn.pc.Conn()
	cn.unwatch = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Now()) })
	if onPath {
		cn.prepared, cn.buf = map[*backend.Stmt]*prepared{}, make([]byte, 0, 256)
	}
	return cn, nil
}

// readBack lists the settings every result records.
var readBack = []string{
	"synchronous_commit", "fsync", "wal_writer_delay", "wal_sync_method", "full_page_writes", "wal_level",
	"commit_delay", "shared_buffers", "max_connections", "checkpoint_timeout", "max_wal_size", "autovacuum",
	"default_transaction_isolation", "jit", "block_size", "huge_pages",
}

// Engine reads back PostgreSQL's version and effective settings, then
// every setting's built-in default: two transactions, both counted as
// dbgauge's own (Stats leaves them out of commits).
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e := backend.Engine{Name: "postgres", Driver: module + " " + backend.ModuleVersion(module), Settings: map[string]string{}}
	if d.srv != nil {
		e.Path = d.srv.DataDir
	}
	c, err := d.connect(ctx)
	if err != nil {
		return e, classify(err)
	}
	defer c.Close(ctx)
	keys := append(append([]string{"server_version"}, readBack...), d.userKeys...)
	rows, err := c.Query(ctx, "SELECT k, current_setting(k) FROM unnest($1::text[]) AS k", keys)
	if err != nil {
		return e, classify(err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return e, classify(err)
		}
		e.Settings[k] = v
	}
	if err := rows.Err(); err != nil {
		return e, classify(err)
	}
	d.self.Add(1)
	if e.Defaults, err = defaults(ctx, c); err != nil {
		return e, err
	}
	d.self.Add(1) // the defaults' read, a transaction of its own
	e.Version = e.Settings["server_version"]
	delete(e.Settings, "server_version")
	e.Isolation = levelOf(e.Settings["default_transaction_isolation"])
	e.PageSize, _ = strconv.ParseInt(e.Settings["block_size"], 10, 64)
	e.CacheBytes, _ = knob.ParseSize(e.Settings["shared_buffers"]) // "128MB": PostgreSQL's units are powers of 1024
	return e, nil
}

// defaults reads every setting's built-in default, with its unit ("1024
// 8kB"): what a matrix over versions compares. The version itself, which
// differs by definition, is left out.
func defaults(ctx context.Context, c *pgx.Conn) (map[string]string, error) {
	rows, err := c.Query(ctx, `SELECT name, boot_val || coalesce(' ' || unit, '') FROM pg_settings
		WHERE boot_val IS NOT NULL AND name NOT IN ('server_version', 'server_version_num')`)
	if err != nil {
		return nil, classify(err)
	}
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, classify(err)
		}
		out[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	return out, nil
}

// Close stops a managed server and removes its cluster; the log stays.
func (d *db) Close() error {
	d.stop()
	return nil
}

// managedDB is what Open returns for postgres:managed: a DB that is a
// server (the kit's backend.Managed).
type managedDB struct {
	*db
	*backend.Managed
}

var (
	_ backend.Recoverer = managedDB{}
	_ backend.Restarter = managedDB{}
	_ backend.Statser   = (*db)(nil)
	_ backend.SQLDB     = managedDB{}
)

// managed is d as a managed server (d.srv is set), its Managed made at the
// first call.
func (d *db) managed() managedDB {
	if d.m == nil {
		d.m = &backend.Managed{Server: d.srv.Instance, Name: "postgres", Rules: LogRules}
	}
	return managedDB{d, d.m}
}

// CrashRestart kills the managed server (SIGKILL to its process group) and
// starts it again on its cluster: crash recovery.
func (m managedDB) CrashRestart(ctx context.Context) error {
	return m.Recover(ctx, m.srv.CrashRestart)
}

// Restart shuts the managed server down cleanly and starts it again on its
// cluster: cold shared buffers (objects --phase cold).
func (m managedDB) Restart(ctx context.Context) error { return m.srv.Restart(ctx) }
