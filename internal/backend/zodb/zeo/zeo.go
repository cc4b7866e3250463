// Package zeo is ZEO, ZODB's storage server: zeo:managed (runzeo on
// loopback, serving a FileStorage, started on the kit) and zeo://HOST:PORT
// (a server of the user's). Each client of a run is a worker process of
// its own holding a ClientStorage, as a ZODB application runs a client per
// process; the key-value tables over the storage API are zodb's.
package zeo

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

// managedForm is the --db value that starts a server of dbgauge's.
const managedForm = "zeo:managed"

// Spec registers zeo in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "zeo",
	Summary:    "ZEO 6.2: ZODB's storage server (runzeo, a FileStorage), a client process (ClientStorage) per dbgauge client",
	API:        backend.KV,
	Forms:      []string{"zeo:managed (runzeo on loopback)", "zeo://HOST:PORT (storage 1 of a server of yours)"},
	Manages:    []string{managedForm},
	Driver:     "dbgauge's ZODB worker (Python, internal/pyworker): ZEO's ClientStorage",
	Durability: durabilityDoc,
	Promises:   promises,
	// What the managed server's log says it opened: the storage decides
	// what a commit's acknowledgement means.
	Expect:    map[backend.Durability]map[string]string{backend.Sync: {"server_storage": "FileStorage"}},
	Flushes:   "the server's FileStorage fsyncs: one in each tpc_finish, counted as the commits the clients' workers acknowledged",
	Prepare:   backend.NoStatements,
	Knobs:     []knob.Spec{zodb.EnvKnob},
	Own:       zodb.OwnKnobs,
	Preflight: preflight,
	Cache:     "cache_size of each client's ClientStorage: ZEO's client cache of records, one in each client's worker (ZEO's default 20 MB); recorded as given (ClientStorage has no public reader of it)",
	// As zodb's: the server keeps the same FileStorage.
	RecordOverhead: 140,
	NoPageSize:     "a FileStorage is a log of transactions: it has no pages",
	Open:           open,
	Reopen:         reopen,
}, "zeo://")

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "the server's FileStorage fsyncs Data.fs in every tpc_finish, before the client's tpc_finish returns; read back: the storage the server's log says it opened",
	backend.Lazy: backend.Refuse("ZEO acknowledges a commit after its server's storage finished it, and a FileStorage fsyncs every commit: there is no later flush to choose"),
	backend.Off:  backend.Refuse("ZEO acknowledges a commit after its server's storage finished it, and a FileStorage fsyncs every commit: there is no setting to skip it"),
}

var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "ZEO: tpc_finish returns after the server's FileStorage has written and fsynced the transaction (ZEO/StorageServer.py, ZODB/FileStorage/FileStorage.py _finish_finish)"},
}

// addr reads zeo://HOST:PORT.
func addr(db string) (host string, port int, err error) {
	hp, _ := strings.CutPrefix(db, "zeo://")
	h, p, err := net.SplitHostPort(strings.TrimSuffix(hp, "/"))
	if err == nil {
		port, err = strconv.Atoi(p)
	}
	if err != nil || h == "" || port <= 0 || port > 65535 {
		return "", 0, knob.Bad("write it as zeo://HOST:PORT, e.g. zeo://127.0.0.1:8100", "--db %s: no host and port", db)
	}
	return h, port, nil
}

func preflight(db string) error {
	h, p, err := addr(db)
	if err != nil {
		return err
	}
	return backend.Reachable("tcp", net.JoinHostPort(h, strconv.Itoa(p)), db)
}

// settle checks what every form shares: the level, no --set, the
// environment; it returns the environment's interpreter.
func settle(o backend.Options) (string, error) {
	if err := zodb.Level("zeo", o.Durability, durabilityDoc); err != nil {
		return "", err
	}
	if err := backend.ApplySet("zeo", nil, o.Set); err != nil {
		return "", err
	}
	return zodb.Python(o)
}

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	python, err := settle(o)
	if err != nil {
		return nil, err
	}
	if o.DB != managedForm {
		h, p, err := addr(o.DB)
		if err != nil {
			return nil, err
		}
		d, err := zodb.Open(ctx, config(python, h, p, o.CacheBytes))
		if err != nil {
			return nil, err
		}
		return &userDB{DB: d}, nil
	}
	srv, err := Start(ctx, zodb.RunzeoConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs},
		Runzeo: zodb.RunzeoOf(python)})
	if err != nil {
		return nil, err
	}
	return connect(ctx, srv, python, o.CacheBytes)
}

func config(python, host string, port int, cache int64) zodb.Config {
	return zodb.Config{Engine: "zeo", Python: python, Storage: zodb.Storage{Kind: "zeo", Host: host, Port: port, Wait: 30, Cache: cache}}
}

// connect opens the DB on a managed server; a failure stops the server.
func connect(ctx context.Context, srv *Server, python string, cache int64) (backend.DB, error) {
	d, err := zodb.Open(ctx, zodb.Config{Engine: "zeo", Python: python, Storage: zodb.ManagedZEO(srv.Port, cache)})
	if err != nil {
		_, _ = srv.StopClean()
		return nil, fmt.Errorf("connect to the managed ZEO server: %w", err)
	}
	return &managedDB{DB: d, Managed: &backend.Managed{Server: srv.Instance, Name: "zeo", Rules: LogRules}, srv: srv}, nil
}

// userDB is zeo://: a server of the user's, whose log dbgauge cannot read.
type userDB struct{ *zodb.DB }

// Engine says the server's storage is unknown to dbgauge.
func (d *userDB) Engine(ctx context.Context) (backend.Engine, error) {
	e, err := d.DB.Engine(ctx)
	e.Settings["server_storage"] = "unknown: a server of yours, whose configuration dbgauge cannot read"
	e.NotReadBack = append(e.NotReadBack, "server_storage")
	return e, err
}

// managedDB is zeo:managed: the clients' DB and the server dbgauge started.
type managedDB struct {
	*zodb.DB
	*backend.Managed
	srv *Server
}

// Engine adds what the server's log says it opened.
func (d *managedDB) Engine(ctx context.Context) (backend.Engine, error) {
	e, err := d.DB.Engine(ctx)
	e.Settings["server_storage"] = zodb.StorageOf(server.ReadFrom(d.srv.LogPath, 0))
	e.Settings["server_file"] = d.srv.File()
	e.Path = d.srv.File()
	return e, err
}

// CrashRestart kills the server and starts it again on its data; the
// clients' ClientStorages reconnect by themselves.
func (d *managedDB) CrashRestart(ctx context.Context) error {
	return d.Recover(ctx, d.srv.CrashRestart)
}

// Restart stops the server cleanly and starts it again (its caches empty).
func (d *managedDB) Restart(ctx context.Context) error { return d.srv.Restart(ctx) }

// Close ends the clients' workers, then stops the server.
func (d *managedDB) Close() error {
	err := d.DB.Close()
	d.Stop(d.srv.StopClean)
	return err
}

// Integrity: ZODB's fstest on the server's file, from the DB's worker.
func (d *managedDB) Integrity(ctx context.Context) (bool, string, error) {
	return d.IntegrityOf(ctx, d.srv.File())
}
