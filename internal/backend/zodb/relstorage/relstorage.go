// Package relstorage is RelStorage on PostgreSQL: ZODB's storage kept in a
// relational database's tables. relstorage+postgres:managed starts a
// throwaway PostgreSQL (the postgres engine's managed server, which catalog
// hands over: an engine never imports another) and relstorage+postgres://DSN
// uses a PostgreSQL of the user's. Each client of a run is a worker process
// of its own holding a RelStorage, as a ZODB application runs a client per
// process; the worker, its protocol and the key-value tables over the
// storage API are zodb's. RelStorage has an environment of its own (Env).
package relstorage

import (
	"context"
	_ "embed"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/pyworker"
	"github.com/dbgauge/dbgauge/internal/server"
)

// managedForm is the --db value that starts a PostgreSQL of dbgauge's.
const managedForm = "relstorage+postgres:managed"

// schemes are the --db prefixes of a PostgreSQL of the user's.
var schemes = []string{"relstorage+postgres://", "relstorage+postgresql://"}

//go:embed requirements.txt
var requirements []byte

// Env is RelStorage's Python environment (RelStorage 4.3.0, psycopg2 and
// ZODB 6.4: the worker): `dbgauge engines install relstorage` makes it.
var Env = pyworker.Env{Name: "relstorage", Python: "3.11", Requirements: requirements, Engines: "relstorage+postgres"}

// envKnob is --relstorage-env: a virtualenv the user made elsewhere.
var envKnob = knob.Spec{Name: "relstorage-env", Values: "DIR", Uses: knob.ForLoad | knob.ForCheck,
	Usage: "relstorage+postgres: the virtualenv to run RelStorage's worker from (default: the one `dbgauge engines install relstorage` makes in the cache folder)"}

// Postgres is a managed PostgreSQL started for RelStorage: the postgres
// engine's server as catalog hands it over.
type Postgres struct {
	Instance *server.Instance
	DSN      string           // over loopback TCP, dbgauge's superuser: it holds the password
	Rules    *server.LogRules // the anomalies of PostgreSQL's log
	// CrashRestart kills the server and starts it again on its cluster,
	// returning what it said of its recovery.
	CrashRestart func(ctx context.Context) (string, error)
}

// Servers is how relstorage starts the postgres engine's managed server:
// catalog's, which imports both.
type Servers struct {
	// Start starts a throwaway PostgreSQL on the kit with cfg and the
	// server parameters settings, and returns once it accepts connections.
	Start func(ctx context.Context, cfg server.Config, settings map[string]string) (*Postgres, error)
	// Reopen starts PostgreSQL again on the cluster a killed one left in
	// dataDir (crash recovery, its log to logPath): on its Unix socket
	// only, local connections trusted (the killed run's password is gone).
	Reopen func(ctx context.Context, dataDir, logPath string) (*Postgres, error)
}

// Spec registers relstorage+postgres, its managed server started by srv
// (catalog's: the postgres engine's Start and Reopen).
func Spec(srv Servers) backend.Spec {
	return backend.Served(backend.Spec{
		Name:    "relstorage",
		Summary: "RelStorage 4.3.0 on PostgreSQL (ZODB 6.4, psycopg2): ZODB's storage in a relational database's tables, a client process (a RelStorage) per dbgauge client",
		API:     backend.KV,
		Forms: []string{"relstorage+postgres:managed (a throwaway PostgreSQL on loopback)",
			"relstorage+postgres://USER:PASSWORD@HOST:PORT/DB (a PostgreSQL of yours: RelStorage makes its tables there)"},
		Manages:    []string{managedForm},
		Driver:     "dbgauge's ZODB worker (Python, internal/pyworker): RelStorage's PostgreSQL adapter over psycopg2",
		Durability: durabilityDoc,
		Promises:   promises,
		Owns:       owns,
		Flushes:    "PostgreSQL's WAL flushes: pg_stat_wal.wal_sync (14 to 17), the fsyncs of pg_stat_io's object wal (18 on), read by the DB's worker",
		Prepare:    backend.NoStatements,
		Knobs:      []knob.Spec{envKnob},
		Own:        ownKnobs,
		Preflight:  preflight,
		NoCache:    "RelStorage's own caches (cache-local-mb, a per-process cache of pickles) are not mapped to --cache yet: each worker keeps RelStorage's default 10 MB",
		NoPageSize: "PostgreSQL's page size is fixed when it is built",
		Open: func(ctx context.Context, o backend.Options) (backend.DB, error) {
			return open(ctx, o, srv.Start)
		},
		Reopen: func(ctx context.Context, dataDir, logPath string, o backend.Options) (backend.DB, error) {
			python, err := settle(o)
			if err != nil {
				return nil, err
			}
			pg, err := srv.Reopen(ctx, dataDir, logPath)
			if err != nil {
				return nil, err
			}
			return connect(ctx, pg, python, o.Durability)
		},
	}, schemes...)
}

// durabilityDoc is what each level is on RelStorage: a commit is
// acknowledged when PostgreSQL's COMMIT of RelStorage's store connection
// returns, so its durability is PostgreSQL's synchronous_commit, set on
// every connection RelStorage opens (libpq's options=-c …).
var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "synchronous_commit=on on every connection RelStorage opens: tpc_finish returns once PostgreSQL flushed the commit's WAL (fsync=on on the managed server); read back on such a connection",
	backend.Lazy: "synchronous_commit=off on every connection RelStorage opens: tpc_finish returns before the WAL is flushed; PostgreSQL's WAL writer flushes it within 3 × wal_writer_delay (100 ms on the managed server)",
	backend.Off:  backend.Refuse("RelStorage's commit is PostgreSQL's, and synchronous_commit has no level that never flushes (fsync=off is a whole server's, and can corrupt it): there is no off"),
}

// owns is what the levels decide: whether PostgreSQL's COMMIT waits for
// the WAL's flush (local, remote_write and remote_apply wait for the local
// flush too), and that the server flushes at all.
var owns = []backend.Owned{
	{Key: "synchronous_commit", Allows: map[backend.Durability][]string{
		backend.Sync: {"on", "local", "remote_write", "remote_apply"}, backend.Lazy: {"off"},
	}, Canon: backend.CanonBool("on", "off")},
	{Key: "fsync", Allows: map[backend.Durability][]string{
		backend.Sync: {"on"}, backend.Lazy: {"on"},
	}, Canon: backend.CanonBool("on", "off")},
}

// promises are PostgreSQL's ("Asynchronous Commit"): RelStorage's
// tpc_finish is its COMMIT.
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "RelStorage's tpc_finish commits PostgreSQL's transaction; synchronous_commit=on: the COMMIT returns once its WAL is flushed"},
	backend.Lazy: {Doc: "synchronous_commit=off: a crash of the server or the machine may lose up to 3 × wal_writer_delay of commits, never consistency"},
}

// own is what relstorage reads of its knobs (Spec.Own).
type own struct {
	env string // --relstorage-env: "" for the cache folder's
}

func ownKnobs(v *knob.Values) (any, error) { return own{env: v.Get("relstorage-env")}, nil }

// ownOf returns the options' own knobs, or the defaults (a test's).
func ownOf(o backend.Options) own {
	x, _ := o.Own.(own)
	return x
}

// userDSN reads relstorage+postgres://… as PostgreSQL's own URI.
func userDSN(db string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimPrefix(db, "relstorage+"))
	if err != nil || u.Host == "" && u.Query().Get("host") == "" {
		return nil, knob.Bad("write it as relstorage+postgres://USER:PASSWORD@HOST:PORT/DB", "--db %s: no PostgreSQL URI with a host", redactDB(db))
	}
	return u, nil
}

// redactDB is a --db value without its password.
func redactDB(db string) string {
	u, err := url.Parse(db)
	if err != nil || u.User == nil {
		return db
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

func preflight(db string) error {
	u, err := userDSN(db)
	if err != nil {
		return err
	}
	if u.Host == "" { // a Unix socket's folder, in ?host=
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	return backend.Reachable("tcp", net.JoinHostPort(u.Hostname(), port), redactDB(db))
}

// appName begins the application_name of every connection of the
// engine's (each worker adds its pid): the DB's worker tells a closed
// client's backends from a live one's by it (Stats).
const appName = "dbgauge-relstorage"

// withLevel is the DSN u with the level's synchronous_commit for every
// connection made with it (libpq's options; its URI decodes %XX, never a
// '+', so spaces are %20) and the engine's application_name.
func withLevel(u *url.URL, d backend.Durability) string {
	sc := "on"
	if d == backend.Lazy {
		sc = "off"
	}
	q := u.Query()
	q.Set("options", "-c synchronous_commit="+sc)
	q.Set("application_name", appName)
	v := *u
	v.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return v.String()
}

// serverSettings are the managed server's parameters for level d: the
// postgres engine's at that level (fsync on; the WAL writer's delay at lazy),
// and connections for two a client (RelStorage's load and store
// connections), the DB's own worker and some to spare.
func serverSettings(d backend.Durability, clients int) map[string]string {
	s := map[string]string{"fsync": "on", "max_connections": strconv.Itoa(max(100, 2*clients+20))}
	if d == backend.Lazy {
		s["wal_writer_delay"] = "100ms"
	}
	return s
}

// settle checks what every form shares: the level, no --set, the
// environment; it returns the environment's interpreter.
func settle(o backend.Options) (string, error) {
	if err := zodb.Level("relstorage+postgres", o.Durability, durabilityDoc); err != nil {
		return "", err
	}
	if err := backend.ApplySet("relstorage", nil, o.Set); err != nil {
		return "", err
	}
	return Env.Find(ownOf(o).env, "--relstorage-env")
}

func open(ctx context.Context, o backend.Options, start func(context.Context, server.Config, map[string]string) (*Postgres, error)) (backend.DB, error) {
	python, err := settle(o)
	if err != nil {
		return nil, err
	}
	if o.DB != managedForm {
		u, err := userDSN(o.DB)
		if err != nil {
			return nil, err
		}
		d, err := zodb.Open(ctx, config(python, withLevel(u, o.Durability)))
		if err != nil {
			return nil, err
		}
		return &db{DB: d}, nil
	}
	pg, err := start(ctx, server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs}, serverSettings(o.Durability, o.Conns))
	if err != nil {
		return nil, err
	}
	return connect(ctx, pg, python, o.Durability)
}

// connect opens RelStorage on a managed PostgreSQL at level d; a failure
// stops the server.
func connect(ctx context.Context, pg *Postgres, python string, d backend.Durability) (backend.DB, error) {
	u, err := url.Parse(pg.DSN)
	if err == nil {
		var zd *zodb.DB
		if zd, err = zodb.Open(ctx, config(python, withLevel(u, d))); err == nil {
			return &managedDB{db: db{DB: zd}, Managed: &backend.Managed{Server: pg.Instance, Name: "postgres", Rules: pg.Rules}, pg: pg}, nil
		}
	}
	_, _ = pg.Instance.StopClean()
	return nil, fmt.Errorf("open RelStorage on the managed PostgreSQL: %w", err)
}

// config is a RelStorage on dsn: the DB's own worker makes the schema when
// it is not there (Create), the clients' workers find it.
func config(python, dsn string) zodb.Config {
	return zodb.Config{Engine: "relstorage", Python: python, Storage: zodb.Storage{Kind: "relstorage", DSN: dsn, Create: true}}
}

// db is relstorage+postgres: the clients' workers, each a RelStorage.
type db struct{ *zodb.DB }

// Integrity reads every current record through RelStorage and decodes
// dbgauge's (not fstest: there is no file).
func (d *db) Integrity(ctx context.Context) (bool, string, error) { return d.IntegrityOf(ctx, "") }

// managedDB is relstorage+postgres:managed: the clients' DB and the
// PostgreSQL dbgauge started.
type managedDB struct {
	db
	*backend.Managed
	pg *Postgres
}

// Engine adds where the server keeps its cluster: the folder whose flush
// ceiling the durability verdict compares the WAL's flushes with.
func (d *managedDB) Engine(ctx context.Context) (backend.Engine, error) {
	e, err := d.DB.Engine(ctx)
	e.Path = d.pg.Instance.DataDir
	return e, err
}

// CrashRestart kills PostgreSQL and starts it again on its cluster; each
// RelStorage opens its connections again at its next transaction.
func (d *managedDB) CrashRestart(ctx context.Context) error {
	return d.Recover(ctx, d.pg.CrashRestart)
}

// Close ends the clients' workers, then stops the server.
func (d *managedDB) Close() error {
	err := d.DB.Close()
	d.Stop(d.pg.Instance.StopClean)
	return err
}
