// Package firebird is Firebird 3 through nakagami/firebirdsql (the wire
// protocol in Go, Srp authentication, wire encryption): a database of your
// own (--db firebird://user:pw@host:3050/path/to/db.fdb) or a throwaway
// managed instance on loopback (--db firebird:managed).
package firebird

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/server"
)

const (
	module  = "github.com/nakagami/firebirdsql"
	managed = "firebird:managed"
)

// Spec registers Firebird in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "firebird",
	Summary:    "Firebird 3 through nakagami/firebirdsql: your database (a DSN) or a throwaway managed instance on loopback",
	Manages:    []string{managed},
	Versioned:  true,
	API:        backend.SQL,
	Forms:      []string{managed, "firebird://USER:PASSWORD@HOST:PORT/PATH/TO/DB.fdb?PARAM=…"},
	Preflight:  preflight,
	Driver:     module,
	Durability: durabilityDoc,
	Isolation:  isolationDoc,
	Promises:   promises,
	Owns:       owns,
	Flushes:    "MON$IO_STATS page writes, synchronous while forced writes are on (none counted when off)",
	Prepare: map[backend.Prepare]string{
		backend.Once: "each statement prepared once per connection (op_prepare), then executed",
		backend.Each: "the statement is prepared at every use and freed after it",
	},
	Settings: []backend.Setting{
		{Key: "page_size", Usage: "firebird:managed: the database's page size at creation, 4096, 8192 (default) or 16384; read back from MON$DATABASE"},
		{Key: "ServerMode", Usage: "firebird:managed: Super (SuperServer, default), SuperClassic or Classic"},
		{Key: "any firebird.conf parameter", Usage: "firebird:managed: written to the instance's firebird.conf (DefaultDbCachePages, LockHashSlots, TempCacheLimit, …); DefaultDbCachePages reads back as page_buffers, the others are recorded as configured (Firebird 3 has no SQL view of its configuration)"},
	},
	Abilities: []backend.Ability{backend.Procedures, backend.OnlineBackup},
	Cache:     "firebird:managed: DefaultDbCachePages in the instance's firebird.conf, the size over the page size (the database's page buffers); read back as page_buffers (MON$DATABASE)",
	PageSize:  "firebird:managed: the database's page size when it is created (as --set page_size); read back from MON$DATABASE",
	PageSizes: []int64{4096, 8192, 16384},

	// --dataset's estimate (docs/data.md): an estimate: the record header and the primary key's index entry, pages about 80 % full.
	RecordOverhead: 60,

	Open:      open,
	Reopen:    reopen,
	Installed: installed,
	Own:       ownBinaries,
}, "firebird://")

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "forced writes on (gfix -write sync): a commit writes the transaction's pages synchronously before it returns; Firebird 3 has no write-ahead log and no group commit",
	backend.Lazy: backend.Refuse(lazyRefused),
	backend.Off:  "forced writes off (gfix -write async): pages go to the OS cache and the OS writes them when it likes; a crash of the machine can lose commits or break the database",
}

// owns is what the levels decide: the database's forced writes, read back
// from MON$DATABASE (on a database of the user's, a level it does not have
// is refused when it opens).
var owns = []backend.Owned{
	{Key: "forced_writes", Allows: map[backend.Durability][]string{backend.Sync: {"on"}, backend.Off: {"off"}}, Canon: backend.CanonBool("on", "off")},
}

// promises are what Firebird's documentation (gfix -write, "Forced Writes"
// in the Firebird 3 Operations Guide) promises each level keeps: forced
// writes on write a commit's pages through to the disk before it returns;
// off leaves them in the OS cache, which a crash of the server keeps and a
// crash of the machine may not (lost commits, or a broken database).
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "forced writes on: a commit's pages are written synchronously before it returns"},
	backend.Off:  {Crash: true, Doc: "forced writes off: a commit's pages go to the OS cache; a server crash loses nothing, a power loss or OS crash may lose commits or corrupt the database"},
}

// lazyRefused says why --durability lazy is refused.
const lazyRefused = "Firebird 3 has no group-commit or delayed-flush mode: a commit writes its pages synchronously (forced writes on: sync) or leaves them to the OS (off)"

// conf lists Firebird 3's firebird.conf parameters a run may set; dbgauge
// owns the ones that place the instance (port, bind address, security
// database, database access, IPC name).
var conf = []string{
	"AllowEncryptedSecurityDatabase", "AuditTraceConfigFile", "AuthClient", "AuthServer", "BugcheckAbort", "ClearGTTAtRetaining",
	"ConnectionTimeout", "CpuAffinityMask", "DatabaseGrowthIncrement", "DeadlockTimeout", "DefaultDbCachePages", "DummyPacketInterval",
	"EventMemSize", "ExternalFileAccess", "FileSystemCacheSize", "FileSystemCacheThreshold", "GCPolicy", "GuardianOption", "IPv6V6Only",
	"KeyHolderPlugin", "LegacyDatabaseFileId", "LockAcquireSpins", "LockHashSlots", "LockMemSize", "MaxUnflushedWriteTime",
	"MaxUnflushedWrites", "MaxUserTraceLogSize", "ProcessPriorityLevel", "Providers", "Redirection", "RelaxedAliasChecking",
	"RemoteAccess", "RemoteAuxPort", "RemoteFileOpenAbility", "RemotePipeName", "RemoteServiceName", "ServerMode",
	"TcpLoopbackFastPath", "TcpNoNagle", "TcpRemoteBufferSize", "TempBlockSize", "TempCacheLimit", "TempDirectories", "TracePlugin",
	"UserManager", "WireCompression", "WireCrypt", "WireCryptPlugin",
}

// confKey returns the canonical spelling of a firebird.conf parameter.
func confKey(k string) (string, bool) {
	for _, c := range conf {
		if strings.EqualFold(c, k) {
			return c, true
		}
	}
	return "", false
}

var dialect = backend.Dialect{
	Name: "firebird",
	// Index keys are limited to about a quarter of a page: 1,000 bytes
	// fits every page size.
	Blob: "VARCHAR(1000) CHARACTER SET OCTETS",
	Upsert: func(table string) string {
		return "UPDATE OR INSERT INTO " + table + " (k, v) VALUES (?, ?) MATCHING (k)"
	},
	HasTable: "SELECT count(*) FROM RDB$RELATIONS WHERE RDB$RELATION_NAME = UPPER(CAST(? AS VARCHAR(63)))",
	// Firebird 3 has no SKIP LOCKED, and WITH LOCK in read committed can
	// return a row another transaction changed meanwhile: picks take no lock,
	// and the conditional update after them decides (waiting for a holder,
	// then an update conflict; or no row: a lost race). Both are retried.
	OptimisticPicks: true,
}

type db struct {
	sql     *sql.DB
	srv     *Server
	m       *backend.Managed // srv as the session sees it; nil without one
	prepare backend.Prepare
	conf    map[string]string // firebird.conf as asked, recorded with the settings
	pool    int               // the pool's size
	txOpts  driver.TxOptions  // how client transactions begin (--isolation)

	mu    sync.Mutex
	admin *conn        // dbgauge's own reads, one transaction each
	self  int64        // transactions they started
	open  atomic.Int64 // client connections open now
}

func open(ctx context.Context, o backend.Options) (backend.DB, error) { return openOn(ctx, o, nil) }

// isManaged says whether db asks for a managed server, of any version.
func isManaged(db string) bool {
	form, _ := backend.VersionOf(db)
	return form == managed
}

// openOn opens the database o names: a managed one on srv when it is
// already running (Reopen), else on a server Start makes.
func openOn(ctx context.Context, o backend.Options, srv *Server) (backend.DB, error) {
	d := &db{prepare: o.Prepare, conf: map[string]string{}, srv: srv}
	var err error
	if d.txOpts, err = txOptions(o.Isolation); err != nil {
		return nil, err
	}
	if o.Durability == backend.Lazy {
		return nil, knob.Bad("give --durability sync or off", "%s", lazyRefused)
	}
	if o.Durability != backend.Sync && o.Durability != backend.Off {
		return nil, knob.Bad("give sync or off", "firebird has no durability %q", o.Durability)
	}
	pageSize, err := d.settings(o)
	if err != nil {
		return nil, err
	}
	dsn, secret, err := d.target(ctx, o, pageSize)
	if err != nil {
		return nil, err
	}
	if err := d.connect(ctx, dsn, o.Conns); err != nil {
		d.stop()
		msg := hide(secret, err.Error())
		if strings.Contains(msg, "password") || strings.Contains(msg, "user name") {
			return nil, knob.Bad("check the user and password in --db", "Firebird refused the login: %s", msg)
		}
		return nil, knob.Bad("is the server running, and are host, port and path in --db right?", "cannot connect to Firebird: %s", msg)
	}
	if !isManaged(o.DB) {
		if err := d.forcedWrites(ctx, o.Durability); err != nil {
			d.stop()
			return nil, err
		}
	}
	if d.srv != nil {
		return d.managed(), nil
	}
	return d, nil
}

// settings reads --set, --page-size and --cache into firebird.conf's
// parameters (d.conf) and the database's page size at creation (0: the
// engine's default), refusing what Firebird has not or what disagrees.
func (d *db) settings(o backend.Options) (int, error) {
	pageSize := 0
	for _, kv := range o.Set {
		if !isManaged(o.DB) {
			return 0, knob.Bad("use --db firebird:managed, or change your server's firebird.conf or database yourself", "--set %s: on a database of yours dbgauge changes no setting", kv.Key)
		}
		switch k, ok := confKey(kv.Key); {
		case strings.EqualFold(kv.Key, "page_size"):
			n, err := strconv.Atoi(kv.Value)
			if err != nil || (n != 4096 && n != 8192 && n != 16384) {
				return 0, knob.Bad("give 4096, 8192 or 16384", "--set page_size=%s: Firebird 3 pages are 4, 8 or 16 KiB", kv.Value)
			}
			pageSize = n
		case k == "ServerMode":
			m, ok := ServerMode(kv.Value)
			if !ok {
				return 0, knob.Bad("give Super (SuperServer), SuperClassic or Classic", "--set ServerMode=%s is no Firebird server mode", kv.Value)
			}
			d.conf[k] = m
		case ok:
			d.conf[k] = kv.Value
		default:
			return 0, knob.Bad("give page_size or a firebird.conf parameter (see dbgauge list)", "--set %s: Firebird 3 has no such parameter, or dbgauge sets it itself", kv.Key)
		}
	}
	if o.PageSize > 0 {
		if pageSize != 0 && int64(pageSize) != o.PageSize {
			return 0, knob.Bad("give one of them", "--page-size %d and --set page_size=%d disagree", o.PageSize, pageSize)
		}
		pageSize = int(o.PageSize)
	}
	if o.CacheBytes > 0 {
		// Firebird counts its cache in pages of the database.
		ps := int64(8192) // Firebird 3's default
		if pageSize > 0 {
			ps = int64(pageSize)
		}
		pages := strconv.FormatInt(o.CacheBytes/ps, 10)
		if v, ok := d.conf["DefaultDbCachePages"]; ok && v != pages {
			return 0, knob.Bad("give one of them", "--cache (%s pages of %d bytes) and --set DefaultDbCachePages=%s disagree", pages, ps, v)
		}
		d.conf["DefaultDbCachePages"] = pages
	}
	if !isManaged(o.DB) && (o.PageSize > 0 || o.CacheBytes > 0) {
		return 0, knob.Bad("use --db firebird:managed", "--page-size and --cache: on a database of yours dbgauge changes no setting")
	}
	return pageSize, nil
}

// target is the database to connect to and the password to hide in its
// errors: the managed server's (started here unless srv was given), or the
// user's DSN.
func (d *db) target(ctx context.Context, o backend.Options, pageSize int) (dsn, secret string, err error) {
	if isManaged(o.DB) && d.srv != nil {
		maps.Copy(d.conf, d.srv.conf)
		dsn, secret = d.srv.DSN(), d.srv.Password
	} else if isManaged(o.DB) {
		bins, berr := binariesOf(o)
		if berr != nil {
			return "", "", berr
		}
		d.srv, err = Start(ctx, ServerConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs}, Conf: d.conf, PageSize: pageSize, ForcedWrites: o.Durability == backend.Sync, Binaries: bins})
		if err != nil {
			if bad := (*knob.Error)(nil); len(o.Set) > 0 && !errors.As(err, &bad) {
				return "", "", knob.Bad("check the settings given with --set", "%v", err)
			}
			return "", "", err
		}
		d.conf["ServerMode"] = d.srv.Mode
		dsn, secret = d.srv.DSN(), d.srv.Password
	} else if o.Archive {
		return "", "", knob.Bad("use --db firebird:managed with --backup", "--backup restores the nbackup into a new file of an instance dbgauge manages: a database of yours is refused")
	} else {
		u, perr := url.Parse(o.DB)
		if perr != nil || u.Host == "" || len(u.Path) < 2 {
			return "", "", knob.Bad("write it as firebird://user:password@host:3050/path/to/db.fdb", "--db %q is not a Firebird connection string", redact.DSN(o.DB))
		}
		dsn = strings.TrimPrefix(o.DB, "firebird://")
		secret, _ = u.User.Password()
	}
	return dsn, secret, nil
}

// forcedWrites refuses a durability a database of the user's does not
// have: forced writes belong to the database, read back here.
func (d *db) forcedWrites(ctx context.Context, want backend.Durability) error {
	e, err := d.Engine(ctx)
	if err != nil {
		return err
	}
	on := map[backend.Durability]string{backend.Sync: "on", backend.Off: "off"}[want]
	if got := e.Settings["forced_writes"]; got != on {
		return knob.Bad(fmt.Sprintf("say --durability %s, or change it with gfix -write %s", map[string]string{"on": "sync", "off": "off"}[got], map[string]string{"on": "sync", "off": "async"}[on]),
			"this database has forced writes %s, which is not --durability %s", got, want)
	}
	return nil
}

// hide takes the password out of a message: the driver's DSN has no
// scheme, which redact.DSN needs to find it, so by value too; and it puts
// Firebird's lines on one.
func hide(secret, msg string) string {
	if secret != "" {
		msg = strings.ReplaceAll(msg, secret, "xxxxx")
	}
	return strings.Join(strings.Fields(redact.DSN(msg)), " ")
}

// connect opens the pool (conns clients and dbgauge's own) and pings.
func (d *db) connect(ctx context.Context, dsn string, conns int) error {
	var err error
	if d.sql, err = sql.Open("firebirdsql", dsn); err != nil {
		return err
	}
	d.pool = conns + 4
	d.sql.SetMaxOpenConns(d.pool)
	d.sql.SetMaxIdleConns(d.pool)
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	return d.sql.PingContext(pctx)
}

func (d *db) stop() {
	if d.admin != nil {
		_ = d.admin.Close()
		d.admin = nil
	}
	if d.sql != nil {
		_ = d.sql.Close()
	}
	if d.srv != nil {
		d.managed().Stop(d.srv.StopClean)
	}
}

// Dialect returns Firebird's dialect.
func (d *db) Dialect() backend.Dialect { return dialect }

// Conn opens a client connection.
func (d *db) Conn(ctx context.Context) (backend.Conn, error) {
	c, err := d.sql.Conn(ctx)
	if err != nil {
		return nil, classify(err)
	}
	d.open.Add(1)
	cn := newConn(c, d.prepare)
	cn.open, cn.txOpts = &d.open, d.txOpts
	return cn, nil
}

// own runs fn on dbgauge's own connection, in one transaction.
func (d *db) own(ctx context.Context, fn func(c *conn) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.admin == nil {
		c, err := d.sql.Conn(ctx)
		if err != nil {
			return classify(err)
		}
		d.admin = newConn(c, backend.Once)
	}
	d.self++
	return d.admin.auto(func() error { return fn(d.admin) })
}

var (
	readDatabase = &backend.Stmt{SQL: "SELECT MON$FORCED_WRITES, MON$PAGE_SIZE, MON$PAGE_BUFFERS, MON$SWEEP_INTERVAL, MON$ODS_MAJOR, MON$ODS_MINOR, " +
		"MON$SQL_DIALECT, RDB$GET_CONTEXT('SYSTEM', 'ENGINE_VERSION'), MON$DATABASE_NAME FROM MON$DATABASE"}
	// counters are the database's I/O and record counters, of the stat
	// group the FROM clause joins.
	counters = "i.MON$PAGE_READS, i.MON$PAGE_WRITES, i.MON$PAGE_FETCHES, i.MON$PAGE_MARKS, " +
		"r.MON$RECORD_SEQ_READS, r.MON$RECORD_IDX_READS, r.MON$RECORD_INSERTS, r.MON$RECORD_UPDATES, r.MON$RECORD_DELETES, " +
		"r.MON$RECORD_BACKOUTS, r.MON$RECORD_PURGES, r.MON$RECORD_EXPUNGES, r.MON$RECORD_LOCKS, r.MON$RECORD_WAITS, " +
		"r.MON$RECORD_CONFLICTS, r.MON$BACKVERSION_READS"
	readStats = &backend.Stmt{SQL: "SELECT d.MON$NEXT_TRANSACTION, d.MON$OLDEST_TRANSACTION, d.MON$OLDEST_ACTIVE, d.MON$OLDEST_SNAPSHOT, d.MON$FORCED_WRITES, " +
		counters + " FROM MON$DATABASE d JOIN MON$IO_STATS i ON i.MON$STAT_ID = d.MON$STAT_ID JOIN MON$RECORD_STATS r ON r.MON$STAT_ID = d.MON$STAT_ID"}
	// In SuperClassic and Classic each attachment has its own cache and the
	// database's row counts only the reading attachment: the attachments' sum.
	readAttachments = &backend.Stmt{SQL: "SELECT " + sumOf(counters) +
		" FROM MON$ATTACHMENTS a JOIN MON$IO_STATS i ON i.MON$STAT_ID = a.MON$STAT_ID JOIN MON$RECORD_STATS r ON r.MON$STAT_ID = a.MON$STAT_ID"}
)

// sumOf wraps each of a list of columns in coalesce(sum(…), 0).
func sumOf(cols string) string {
	parts := strings.Split(cols, ", ")
	for i, p := range parts {
		parts[i] = "coalesce(sum(" + p + "), 0)"
	}
	return strings.Join(parts, ", ")
}

// Engine reads back the version and the database's settings from
// MON$DATABASE, with the firebird.conf parameters as configured.
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e := backend.Engine{Name: "firebird", Driver: module + " " + backend.ModuleVersion(module), Settings: map[string]string{}}
	var fw, pageSize, buffers, sweep, odsMajor, odsMinor, sqlDialect int64
	var version, path string
	err := d.own(ctx, func(c *conn) error {
		return c.QueryRow(ctx, readDatabase, nil, &fw, &pageSize, &buffers, &sweep, &odsMajor, &odsMinor, &sqlDialect, &version, &path)
	})
	if err != nil {
		return e, err
	}
	e.Version, e.Path = strings.TrimSpace(version), strings.TrimSpace(path)
	e.Settings["forced_writes"] = map[bool]string{true: "on", false: "off"}[fw == 1]
	e.Settings["page_size"] = strconv.FormatInt(pageSize, 10)
	e.Settings["page_buffers"] = strconv.FormatInt(buffers, 10)
	e.Settings["sweep_interval"] = strconv.FormatInt(sweep, 10)
	e.Settings["ods"] = fmt.Sprintf("%d.%d", odsMajor, odsMinor)
	e.Settings["sql_dialect"] = strconv.FormatInt(sqlDialect, 10)
	if e.Settings["isolation"], e.Isolation, err = d.isolation(ctx); err != nil {
		return e, err
	}
	e.PageSize, e.CacheBytes = pageSize, buffers*pageSize
	for _, k := range slices.Sorted(maps.Keys(d.conf)) {
		e.Settings[k] = d.conf[k]
	}
	return e, nil
}

// Stats reads the database's monitoring counters (counters), and once the
// clients have gone from a managed server, the record versions the run left.
func (d *db) Stats(ctx context.Context) (map[string]int64, error) {
	out, err := d.counters(ctx, true)
	if err != nil {
		return nil, err
	}
	if d.srv != nil && d.open.Load() == 0 {
		// Once the clients have gone (after the run): the record versions
		// the run left, a full read of the data pages.
		if err := d.versions(ctx, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Sample reads the database's cumulative monitoring counters every second
// (counters without its gaps, which are levels, not counts): the
// transactions, the page reads, writes, fetches and marks of MON$IO_STATS,
// the record reads, inserts, updates, deletes, backouts, purges,
// expunges, locks, waits and conflicts of MON$RECORD_STATS, and with
// forced writes on, the page writes again as "flushes". Each read is a
// transaction of dbgauge's own connection, not counted in "commits".
func (d *db) Sample(ctx context.Context) (map[string]int64, error) {
	return d.counters(ctx, false)
}

// counters reads the database's monitoring counters (MON$DATABASE,
// MON$IO_STATS, MON$RECORD_STATS), in a transaction of their own; gaps
// adds the distances from the next transaction to the oldest active and
// the oldest snapshot. Where the database's own row counts less than its
// attachments together (SuperClassic and Classic, where it covers the
// reading attachment only), the sum over the attachments open now stands
// for it.
// Firebird 3 counts no commits: "commits" is the transactions started
// (MON$NEXT_TRANSACTION) less dbgauge's own reads, rollbacks included. With
// forced writes on, every page write is a synchronous write: "flushes".
func (d *db) counters(ctx context.Context, gaps bool) (map[string]int64, error) {
	var v [21]int64
	var att [16]int64
	dest, adest := make([]any, len(v)), make([]any, len(att))
	for i := range v {
		dest[i] = &v[i]
	}
	for i := range att {
		adest[i] = &att[i]
	}
	var self int64
	err := d.own(ctx, func(c *conn) error {
		self = d.self
		if err := c.QueryRow(ctx, readStats, nil, dest...); err != nil {
			return err
		}
		return c.QueryRow(ctx, readAttachments, nil, adest...)
	})
	if err != nil {
		return nil, err
	}
	if att[2] > v[7] { // page fetches
		copy(v[5:], att[:])
	}
	out := map[string]int64{
		"commits":    v[0] - self,
		"page_reads": v[5], "page_writes": v[6], "page_fetches": v[7], "page_marks": v[8],
		"seq_reads": v[9], "idx_reads": v[10], "inserts": v[11], "updates": v[12], "deletes": v[13],
		"backouts": v[14], "purges": v[15], "expunges": v[16], "record_locks": v[17], "record_waits": v[18],
		"record_conflicts": v[19], "backversion_reads": v[20],
	}
	if gaps {
		out["oldest_active_gap"], out["oldest_snapshot_gap"] = v[0]-v[2], v[0]-v[3]
	}
	if v[4] == 1 {
		out["flushes"] = v[6]
	}
	return out, nil
}

var (
	gstatTable    = regexp.MustCompile(`^\s*([A-Z][A-Z0-9_$]*) \((\d+)\)\s*$`)
	gstatRecords  = regexp.MustCompile(`total records: (\d+)`)
	gstatVersions = regexp.MustCompile(`total versions: (\d+), max versions: (\d+)`)
)

// versions adds gstat's record statistics of the user tables (the services
// API's action_db_stats with record versions, the Firebird seed's "total
// versions / total records"): records, record_versions, max_versions, and
// versions.TABLE for each table with back versions.
func (d *db) versions(ctx context.Context, out map[string]int64) error {
	text, err := d.srv.Service(ctx, "action_db_stats", "sts_record_versions", "sts_data_pages")
	if err != nil {
		return fmt.Errorf("record versions (fbsvcmgr action_db_stats): %w: %s", err, text)
	}
	return parseVersions(text, out)
}

func parseVersions(text string, out map[string]int64) error {
	table := ""
	out["records"], out["record_versions"], out["max_versions"] = 0, 0, 0
	for _, l := range strings.Split(text, "\n") {
		if m := gstatTable.FindStringSubmatch(l); m != nil {
			table = strings.ToLower(m[1])
			continue
		}
		if m := gstatRecords.FindStringSubmatch(l); m != nil && table != "" {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			out["records"] += n
		}
		if m := gstatVersions.FindStringSubmatch(l); m != nil && table != "" {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			mx, _ := strconv.ParseInt(m[2], 10, 64)
			out["record_versions"] += n
			out["max_versions"] = max(out["max_versions"], mx)
			if n > 0 {
				out["versions."+table] = n
			}
		}
	}
	return nil
}

// Close stops a managed server and removes its instance; its logs stay.
func (d *db) Close() error {
	d.stop()
	return nil
}

// managedDB is what Open returns for a managed instance: a DB that is a
// server (the kit's backend.Managed).
type managedDB struct {
	*db
	*backend.Managed
}

// managed is d as a managed server (d.srv is set), its Managed made at the
// first call: named for its server mode, its log the run's firebird.log,
// its death told with what that log says.
func (d *db) managed() managedDB {
	if d.m == nil {
		d.m = &backend.Managed{Server: d.srv.Instance, Name: "firebird " + d.srv.Mode, Rules: LogRules, Log: d.srv.Log, Death: d.srv.Died}
	}
	return managedDB{d, d.m}
}

var (
	_ backend.Recoverer = managedDB{}
	_ backend.Statser   = (*db)(nil)
	_ backend.Sampler   = (*db)(nil)
	_ backend.SQLDB     = managedDB{}
	_ backend.Checker   = managedDB{}
)

// Integrity runs Firebird's online validation (the services API's
// action_validate, through fbsvcmgr) on the live database.
func (m managedDB) Integrity(ctx context.Context) (bool, string, error) {
	return validate(ctx, m.srv, m.srv.Database)
}

// validate runs online validation on a database file of the instance.
func validate(ctx context.Context, srv *Server, database string) (bool, string, error) {
	out, err := srv.ServiceOn(ctx, database, "action_validate")
	if err != nil {
		return false, "", fmt.Errorf("online validation: %w: %s", err, out)
	}
	var bad []string
	for _, l := range strings.Split(out, "\n") {
		if u := strings.ToUpper(l); strings.Contains(u, "ERROR") || strings.Contains(u, "CORRUPT") {
			bad = append(bad, strings.TrimSpace(l))
		}
	}
	if len(bad) > 0 {
		return false, "online validation: " + strings.Join(bad, "; "), nil
	}
	return true, "online validation: no errors", nil
}

// ServerInfo describes the managed server, and says when its shutdown hung.
func (m managedDB) ServerInfo() backend.ServerInfo {
	i := m.Managed.ServerInfo()
	if m.srv.Killed {
		i.Note = strings.TrimPrefix(i.Note+"; Firebird did not finish its shutdown within 5 s of SIGTERM and was killed after its database was closed (a Firebird 3 hang, see docs/backends/firebird.md)", "; ")
	}
	return i
}

// Recovery says what Firebird found on a restart after a crash: it has no
// log to replay (careful writes), and what firebird.log said, if anything.
func (m managedDB) Recovery() string {
	if m.RecoveryNote == "" {
		return "no log to replay (careful writes)"
	}
	return m.RecoveryNote
}

// CrashRestart kills the managed server (SIGKILL to its process group) and
// starts it again on its database. Every connection died with it, and in
// Classic mode the server comes back on another port: the pool and
// dbgauge's own connection are opened anew. No client runs meanwhile.
func (m managedDB) CrashRestart(ctx context.Context) error {
	err := m.Recover(ctx, m.srv.CrashRestart)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.admin != nil {
		_ = m.admin.Close()
		m.admin = nil
	}
	_ = m.sql.Close()
	db, oerr := sql.Open("firebirdsql", m.srv.DSN())
	if oerr != nil {
		return errors.Join(err, oerr)
	}
	db.SetMaxOpenConns(m.pool)
	db.SetMaxIdleConns(m.pool)
	m.sql = db
	return err
}
