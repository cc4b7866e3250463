// Package mariadb is MariaDB (and MySQL's protocol) through
// go-sql-driver/mysql: a server of your own (--db mysql://user:pw@host:3306/db)
// or a throwaway managed one on loopback (--db mariadb:managed).
package mariadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/server"
)

const module = "github.com/go-sql-driver/mysql"

// managed are the --db values of a server dbgauge starts: MariaDB is
// also spelt mysql.
var managed = []string{"mariadb:managed", "mysql:managed"}

// Spec registers MariaDB in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "mariadb",
	Summary:    "MariaDB through go-sql-driver/mysql: your server (a DSN) or a throwaway managed one on loopback",
	Manages:    managed,
	Versioned:  true,
	API:        backend.SQL,
	Forms:      []string{"mariadb:managed", "mysql:managed", "mysql://USER:PASSWORD@HOST:PORT/DB?PARAM=… (or mariadb://, or the driver's @tcp(HOST:PORT))"},
	Preflight:  preflight,
	Driver:     module,
	Durability: durabilityDoc,
	Isolation:  isolationDoc,
	Promises:   promises,
	Owns:       owns,
	Flushes:    "Innodb_data_fsyncs, InnoDB's fsyncs (the redo log's and the data files')",
	Prepare: map[backend.Prepare]string{
		backend.Once: "server-side prepared statements, prepared once per connection",
		backend.Each: "the statement is prepared at every use",
	},
	Settings: []backend.Setting{
		{Key: "any server variable", Usage: "managed: given as --name=value at start; DSN: SET GLOBAL name=value (needs the privilege); read back with SHOW GLOBAL VARIABLES"},
	},
	Abilities: []backend.Ability{backend.Procedures, backend.OnlineBackup, backend.NetFaults, backend.NodeFaults},
	Nodes:     func(v *knob.Values) []string { return server.NodeNames(v.Get("topology")) },
	Cache:     "innodb_buffer_pool_size (mariadb:managed: at start; a server of yours: SET GLOBAL, which resizes the pool online, in whole chunks); read back",
	PageSize:  "innodb_page_size, mariadb:managed only: given to mariadb-install-db and at every start (InnoDB fixes it when the datadir is made); read back",
	PageSizes: []int64{4096, 8192, 16384, 32768, 65536},

	// --dataset's estimate (docs/data.md): an estimate: InnoDB's record header, transaction id and roll pointer, pages filled in random key order.
	RecordOverhead: 60,

	Open:      open,
	Reopen:    reopen,
	Installed: installed,
	Own:       ownKnobs,
	Knobs:     []knob.Spec{server.TopologyKnob, server.ReplicationKnob},
}, "mysql://", "mariadb://")

var dialect = backend.Dialect{
	Name: "mysql",
	Blob: "VARBINARY(3000)",
	Upsert: func(table string) string {
		return "INSERT INTO " + table + "(k, v) VALUES(?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)"
	},
	HasTable: "SELECT count(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
	LockSkip: " FOR UPDATE SKIP LOCKED",
	// SYSDATE(6), not NOW(6): the moment it runs, not the statement's start.
	Clock: "SELECT CAST(UNIX_TIMESTAMP(SYSDATE(6)) * 1000000 AS SIGNED)",
}

type db struct {
	sql *sql.DB // dbgauge's own reads, and the clients' unless spread
	// nodes are the pools of a cluster's servers (Nodes), sql the first;
	// with spread the clients take them in turn.
	nodes  []*sql.DB
	spread bool
	turn   atomic.Uint64
	// classify is the engine's own classification before MariaDB's
	// (Nodes: Galera's codes); nil: MariaDB's.
	classify func(error) error
	srv      *Server
	m        *backend.Managed // srv as the session sees it; nil without one
	prepare  backend.Prepare
	userKeys []string
	pool     int   // the pool's size
	looks    looks // LockView's reads of InnoDB's lock views, spaced (locks.go)
	// changed are the variables SET GLOBAL changed on a server of the
	// user's, set back once by Close (global.go).
	changed  []global
	restored sync.Once
	// --topology: the replicas of the managed primary, and what each
	// replicates from; after a failover, the replica promoted (the
	// primary's Process says it was killed). topo guards upstream and
	// promoted: the session's sampler reads them (Lag) while a failover
	// changes them.
	cluster  clusterConfig
	replicas []*Server
	topo     sync.Mutex
	upstream []string
	promoted *Server
	net      *netns.Net // the cluster's network; nil: loopback
}

// SizeSettings puts --cache and --page-size into settings as
// innodb_buffer_pool_size and innodb_page_size, refusing a --set of either
// that says otherwise; only a datadir the server creates takes a page
// size. MariaDB's managed engines share it (Galera's).
func SizeSettings(settings map[string]string, o backend.Options) error {
	if err := backend.AgreeVar(settings, "--cache", "innodb_buffer_pool_size", bytesOf(o.CacheBytes)); err != nil {
		return err
	}
	return backend.AgreeVar(settings, "--page-size", "innodb_page_size", bytesOf(o.PageSize))
}

// bytesOf is a size knob's value as a server variable: "" when not given.
func bytesOf(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	d := &db{prepare: o.Prepare, cluster: clusterOf(o)}
	settings, err := mapDurability(o.Durability)
	if err != nil {
		return nil, err
	}
	for _, kv := range o.Set {
		settings[kv.Key] = kv.Value
		d.userKeys = append(d.userKeys, kv.Key)
	}
	var dsn string
	form, _ := backend.VersionOf(o.DB)
	isManaged := isManagedForm(form)
	if err := SizeSettings(settings, o); err != nil {
		return nil, err
	}
	if o.PageSize != 0 && !isManaged {
		return nil, knob.Bad("use --db mariadb:managed, whose datadir dbgauge creates",
			"--page-size sets innodb_page_size, which InnoDB fixes when a server's datadir is created")
	}
	if isManaged {
		if dsn, err = d.startManaged(ctx, o, settings); err != nil {
			return nil, err
		}
	} else if o.Archive {
		return nil, knob.Bad("use --db mariadb:managed with --backup", "--backup copies the server's datadir with mariabackup and restores it into a server dbgauge starts: a server of yours is refused")
	} else {
		cfg, err := driverDSN(o.DB)
		if err != nil {
			return nil, err
		}
		dsn = cfg.FormatDSN()
	}
	if dsn, err = withIsolation(dsn, o.Isolation); err != nil {
		d.stop()
		return nil, err
	}
	if dsn, err = withFoundRows(dsn); err != nil {
		d.stop()
		return nil, err
	}
	if err := d.connect(ctx, dsn, o.Conns); err != nil {
		d.stop()
		if len(d.replicas) > 0 {
			return nil, fmt.Errorf("connect to the managed cluster: %w", err)
		}
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1045 {
			return nil, knob.Bad("check the user and password in --db", "MariaDB refused the login: %s", redact.DSN(err.Error()))
		}
		return nil, knob.Bad("is the server running, and are host and port in --db right?", "cannot connect to MariaDB: %s", redact.DSN(err.Error()))
	}
	if !isManaged {
		// A server of the user's: set for the run, set back by Close.
		if err := d.setGlobals(ctx, settings); err != nil {
			d.stop()
			return nil, err
		}
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
// (--topology), and returns the clients' DSN.
func (d *db) startManaged(ctx context.Context, o backend.Options, settings map[string]string) (string, error) {
	if _, ok := settings["max_connections"]; !ok {
		settings["max_connections"] = strconv.Itoa(max(151, o.Conns+20))
	}
	bins, err := binariesOf(o)
	if err != nil {
		return "", err
	}
	if d.cluster.topology != "none" {
		d.cluster.primarySettings(settings)
	}
	var host *netns.Host
	if d.net, host, err = server.ClusterNet(ctx, d.cluster.topology); err != nil {
		return "", err
	}
	if d.srv, err = Start(ctx, ServerConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs, Host: host}, Settings: settings, Binaries: bins}); err != nil {
		_ = d.net.Close()
		if bad := (*knob.Error)(nil); len(o.Set) > 0 && !errors.As(err, &bad) {
			return "", knob.Bad("check the variables given with --set", "%v", err)
		}
		return "", err
	}
	if d.cluster.topology != "none" {
		// Before the load: the replicas replicate it.
		if err := d.startReplicas(ctx, settings); err != nil {
			d.stop()
			return "", err
		}
	}
	return d.srv.DSN(false), nil
}

// connect opens the pool (conns clients and dbgauge's own) and pings. With
// replicas, each connection goes to the first server of the cluster that
// accepts writes (writable): the primary, the promoted replica after a
// failover.
func (d *db) connect(ctx context.Context, dsn string, conns int) error {
	if len(d.replicas) > 0 {
		c, err := writableOf(dsn, d.servers())
		if err != nil {
			return err
		}
		d.sql = sql.OpenDB(c)
	} else {
		var err error
		if d.sql, err = sql.Open("mysql", dsn); err != nil {
			return err
		}
	}
	d.pool = conns + 4
	d.sql.SetMaxOpenConns(d.pool)
	d.sql.SetMaxIdleConns(d.pool)
	return d.sql.PingContext(ctx)
}

func (d *db) stop() {
	if d.sql != nil {
		_ = d.sql.Close()
	}
	for _, p := range d.nodes[min(1, len(d.nodes)):] { // the first is sql
		_ = p.Close()
	}
	d.stopReplicas()
	if d.srv != nil {
		d.managed().Stop(d.srv.StopClean)
	}
	// After every server: a namespace lives on while a process is in it.
	_ = d.net.Close()
	d.net = nil
}

// Dialect returns MariaDB's dialect.
func (d *db) Dialect() backend.Dialect { return dialect }

// Conn opens a client connection: on the server, or on a cluster's next
// server in turn (Nodes, spread).
func (d *db) Conn(ctx context.Context) (backend.Conn, error) {
	pool := d.sql
	if d.spread {
		pool = d.nodes[(d.turn.Add(1)-1)%uint64(len(d.nodes))]
	}
	cls := classify
	if d.classify != nil {
		cls = d.classify
	}
	c, err := pool.Conn(ctx)
	if err != nil {
		return nil, cls(err)
	}
	var id int64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		_ = c.Close()
		return nil, cls(err)
	}
	sc := backend.NewStdConn(c, backend.StdConfig{Prepare: d.prepare, BeginSQL: "START TRANSACTION", Classify: cls, Direct: true})
	// The end of ctx (the run's) kills the connection from another one, as
	// the mariadb client does on Ctrl-C: its statements need not each hand
	// their context to the driver's watcher (StdConn.Watch).
	sc.Watch(ctx, func() {
		kctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = pool.ExecContext(kctx, "KILL CONNECTION "+strconv.FormatInt(id, 10))
	})
	return &conn{sc, id, pool}, nil
}

// conn is a client connection: database/sql's, with transaction modes.
type conn struct {
	*backend.StdConn
	id   int64   // CONNECTION_ID(): its thread in the processlist and InnoDB's views
	pool *sql.DB // its server's pool: where its thread is seen
}

// SetTxMode makes the connection's transactions REPEATABLE READ (InnoDB's
// consistent snapshot for plain reads; writes and locking reads see the
// latest committed rows) and, with NoWait, its lock waits none
// (innodb_lock_wait_timeout 0, MariaDB 10.3 on: a statement that meets a
// locked row fails with 1205 and is rolled back alone).
//
//	SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ
//	SET SESSION innodb_lock_wait_timeout = 0
func (c *conn) SetTxMode(ctx context.Context, m backend.TxMode) (backend.TxModeSet, error) {
	level := "READ COMMITTED"
	if m.Snapshot {
		level = "REPEATABLE READ"
	}
	wait := "50"
	if m.NoWait {
		wait = "0"
	}
	for _, q := range []string{"SET SESSION TRANSACTION ISOLATION LEVEL " + level, "SET SESSION innodb_lock_wait_timeout = " + wait} {
		if err := c.ExecScript(ctx, q); err != nil {
			return backend.TxModeSet{}, err
		}
	}
	// Read back, as every setting a result records.
	var iso string
	var timeout int64
	if err := c.QueryRow(ctx, readTxMode, nil, &iso, &timeout); err != nil {
		return backend.TxModeSet{}, err
	}
	words := strings.ToLower(strings.ReplaceAll(iso, "-", " "))
	if words == "repeatable read" {
		words += " (consistent snapshot for reads)"
	}
	words += fmt.Sprintf(", innodb_lock_wait_timeout %d", timeout)
	return backend.TxModeSet{Words: words, NoWait: timeout == 0}, nil
}

// readTxMode reads back a session's isolation and lock wait.
var readTxMode = &backend.Stmt{SQL: "SELECT @@SESSION.tx_isolation, @@SESSION.innodb_lock_wait_timeout"}

// readBack lists the variables every result records.
var readBack = []string{
	"innodb_flush_log_at_trx_commit", "sync_binlog", "log_bin", "innodb_flush_method", "innodb_doublewrite",
	"innodb_buffer_pool_size", "innodb_page_size", "innodb_log_file_size", "innodb_flush_log_at_timeout", "max_connections",
	"tx_isolation", "innodb_snapshot_isolation", "version",
}

// Engine reads back MariaDB's version and effective variables.
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e := backend.Engine{Name: "mariadb", Driver: module + " " + backend.ModuleVersion(module), Settings: map[string]string{}}
	if d.srv != nil {
		e.Path = d.srv.DataDir
	}
	keys := append(append([]string{}, readBack...), d.userKeys...)
	rows, err := d.sql.QueryContext(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('"+strings.Join(keys, "','")+"')")
	if err != nil {
		return e, classify(err)
	}
	defer rows.Close()
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
	// The server appends "-log" to its version while it writes a binary
	// log (a cluster's servers): the same server, which log_bin says.
	e.Version = strings.TrimSuffix(e.Settings["version"], "-log")
	delete(e.Settings, "version")
	if len(d.replicas) > 0 {
		e.Settings["topology"], e.Settings["replication"] = d.cluster.topology, d.cluster.replication
		if err := d.clusterSettings(ctx, e.Settings); err != nil {
			return e, err
		}
	}
	e.PageSize, _ = strconv.ParseInt(e.Settings["innodb_page_size"], 10, 64)
	e.CacheBytes, _ = strconv.ParseInt(e.Settings["innodb_buffer_pool_size"], 10, 64)
	// A client's level is its session's (the DSN sets it per connection).
	var level string
	if err := d.sql.QueryRowContext(ctx, "SELECT @@SESSION.tx_isolation").Scan(&level); err != nil {
		return e, classify(err)
	}
	e.Settings["session tx_isolation"], e.Isolation = level, levelOf(level)
	return e, nil
}

// Stats returns SHOW GLOBAL STATUS counters: commits, InnoDB's fsyncs, redo
// bytes, row lock waits.
func (d *db) Stats(ctx context.Context) (map[string]int64, error) {
	names := map[string]string{
		// MariaDB 10.8+ no longer counts redo log fsyncs apart: InnoDB's
		// fsyncs (the redo log's, and the data files' at checkpoints) are the flushes.
		"Com_commit": "commits", "Com_rollback": "rollbacks", "Innodb_data_fsyncs": "flushes",
		"Innodb_os_log_written": "wal_bytes", "Innodb_row_lock_waits": "row_lock_waits",
		"Innodb_row_lock_time": "row_lock_time_ms", "Innodb_rows_inserted": "rows_inserted", "Innodb_rows_updated": "rows_updated",
		"Innodb_rows_deleted": "rows_deleted", "Innodb_buffer_pool_reads": "pool_reads", "Innodb_buffer_pool_read_requests": "pool_read_requests",
	}
	return d.status(ctx, names)
}

var (
	_ backend.Sampler = (*db)(nil)
	_ backend.Waiter  = (*db)(nil)
)

// Waits counts the database's threads that are running a statement, by
// their state (information_schema.PROCESSLIST: "updating", "Waiting for
// table metadata lock", "Commit"…; "executing" where the server names
// none): MariaDB's wait events without performance_schema.
func (d *db) Waits(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, p := range d.pools() {
		if err := waits(ctx, p, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// waits adds the threads of one server's pool to out, by state.
func waits(ctx context.Context, p *sql.DB, out map[string]int) error {
	rows, err := p.QueryContext(ctx, "SELECT STATE, COUNT(*) FROM information_schema.PROCESSLIST "+
		"WHERE DB = DATABASE() AND COMMAND NOT IN ('Sleep', 'Daemon') AND ID <> CONNECTION_ID() GROUP BY STATE")
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var state sql.NullString
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return classify(err)
		}
		k := state.String
		if k == "" {
			k = "executing"
		}
		out[k] += n
	}
	return classify(rows.Err())
}

// pools are the pools whose counters are read: a cluster's servers'
// (Nodes), or the one server's.
func (d *db) pools() []*sql.DB {
	if len(d.nodes) > 0 {
		return d.nodes
	}
	return []*sql.DB{d.sql}
}

// Sample returns the SHOW GLOBAL STATUS counters worth reading every
// second: commits, InnoDB's fsyncs, its redo log's bytes, the bytes its
// data files read and wrote, the pages flushed from its buffer pool, its
// row lock waits.
func (d *db) Sample(ctx context.Context) (map[string]int64, error) {
	return d.status(ctx, map[string]string{
		"Com_commit": "commits", "Innodb_data_fsyncs": "flushes", "Innodb_os_log_written": "wal_bytes",
		"Innodb_data_read": "data_read_bytes", "Innodb_data_written": "data_written_bytes",
		"Innodb_buffer_pool_pages_flushed": "pages_flushed", "Innodb_row_lock_waits": "row_lock_waits",
	})
}

// status reads the SHOW GLOBAL STATUS counters names lists, each under its
// name there: a cluster's summed over its servers.
func (d *db) status(ctx context.Context, names map[string]string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, p := range d.pools() {
		if err := Status(ctx, p, names, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Status adds the SHOW GLOBAL STATUS counters names lists, read from the
// server of pool p, to out, each under its name there.
func Status(ctx context.Context, p *sql.DB, names map[string]string, out map[string]int64) error {
	var in []string
	for k := range names {
		in = append(in, k)
	}
	rows, err := p.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(in, "','")+"')")
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return classify(err)
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[names[k]] += n
		}
	}
	return classify(rows.Err())
}

// Integrity runs CHECK TABLE on every table of the database.
func (d *db) Integrity(ctx context.Context) (bool, string, error) {
	rows, err := d.sql.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")
	if err != nil {
		return false, "", classify(err)
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return false, "", classify(err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	var bad []string
	for _, t := range tables {
		r, err := d.sql.QueryContext(ctx, "CHECK TABLE `"+t+"`")
		if err != nil {
			return false, "", classify(err)
		}
		for r.Next() {
			var tbl, op, typ, msg string
			if err := r.Scan(&tbl, &op, &typ, &msg); err == nil && typ == "status" && msg != "OK" {
				bad = append(bad, tbl+": "+msg)
			} else if err == nil && typ == "error" {
				bad = append(bad, tbl+": "+msg)
			}
		}
		r.Close()
	}
	if len(bad) > 0 {
		return false, "CHECK TABLE: " + strings.Join(bad, "; "), nil
	}
	return true, fmt.Sprintf("CHECK TABLE: ok (%d tables)", len(tables)), nil
}

// Recovery says how much redo log InnoDB replayed in the last crash
// recovery (a crash restart, or a start on a killed server's datadir).
func (d *db) Recovery() string {
	if d.m == nil {
		return ""
	}
	return d.m.RecoveryNote
}

// Close sets back what it changed on a server of the user's, or stops a
// managed server and removes its datadir (the log stays).
func (d *db) Close() error {
	d.restore()
	d.stop()
	return nil
}

// managedDB is what Open returns for a managed server: a DB that is a
// server (the kit's backend.Managed).
type managedDB struct {
	*db
	*backend.Managed
}

var (
	_ backend.Recoverer = managedDB{}
	_ backend.Statser   = (*db)(nil)
	_ backend.SQLDB     = managedDB{}
	_ backend.Checker   = (*db)(nil)
)

// managed is d as a managed server (d.srv is set), its Managed made at the
// first call.
func (d *db) managed() managedDB {
	if d.m == nil {
		d.m = &backend.Managed{Server: d.srv.Instance, Name: "mariadb", Rules: LogRules}
	}
	return managedDB{d, d.m}
}

// CrashRestart kills the managed server (SIGKILL to its process group) and
// starts it again on its datadir: InnoDB's crash recovery.
func (m managedDB) CrashRestart(ctx context.Context) error {
	err := m.Recover(ctx, m.srv.CrashRestart)
	// The pool's idle connections died with the server: drop them, so that
	// the next use dials the new one.
	m.sql.SetMaxIdleConns(0)
	m.sql.SetMaxIdleConns(m.pool)
	return err
}
