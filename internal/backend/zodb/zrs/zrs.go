// Package zrs is ZRS (zc.zrs), ZODB's replication: zrs:managed starts a
// primary ZEO server whose FileStorage replicates to read-only secondaries
// (--topology: none, 1, 2-direct, 2-chain), on the kit, and fails it over
// by restarting a secondary as the primary on its replicated data. ZRS runs
// only on ZODB 5.5.1 and ZEO 5.4.1: an environment of its own (Env); the
// worker and the key-value tables over the storage API are zodb's.
package zrs

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/pyworker"
	"github.com/dbgauge/dbgauge/internal/server"
)

// managedForm is the --db value that starts a cluster of dbgauge's.
const managedForm = "zrs:managed"

//go:embed requirements.txt
var requirements []byte

// Env is ZRS's Python environment (zc.zrs 3.1.0 on ZODB 5.5.1 and ZEO
// 5.4.1: the worker and the servers' runzeo): `dbgauge engines install zrs`.
var Env = pyworker.Env{Name: "zrs", Python: "3.11", Requirements: requirements, Engines: "zrs"}

// envKnob is --zrs-env: a virtualenv the user made elsewhere.
var envKnob = knob.Spec{Name: "zrs-env", Values: "DIR", Uses: knob.ForLoad | knob.ForCheck,
	Usage: "zrs: the virtualenv to run ZODB's worker and the ZEO servers from (default: the one `dbgauge engines install zrs` makes in the cache folder)"}

// Spec registers zrs in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "zrs",
	Summary:    "ZRS 3.1.0 (zc.zrs on ZODB 5.5.1, ZEO 5.4.1): a primary ZEO server replicating its FileStorage to read-only secondaries (--topology), failed over by promoting one",
	API:        backend.KV,
	Forms:      []string{"zrs:managed (a ZEO primary replicating with ZRS; --topology its secondaries)"},
	Manages:    []string{managedForm},
	Driver:     "dbgauge's ZODB worker (Python, internal/pyworker): ZEO's ClientStorage, given every server of the cluster",
	Durability: durabilityDoc,
	Promises: map[backend.Durability]backend.Promise{
		backend.Sync: {Crash: true, Power: true, Doc: "ZRS: the primary's FileStorage has the transaction fsynced when tpc_finish returns; replication to the secondaries is asynchronous (zc.zrs README: a secondary receives committed transactions from the primary), so a failover to a secondary may lose commits the primary acknowledged"},
	},
	Expect:  map[backend.Durability]map[string]string{backend.Sync: {"server_storage": "ZRS", "server_role": "RW"}},
	Flushes: "the primary's FileStorage fsyncs: one in each tpc_finish, counted as the commits the clients' workers acknowledged",
	Prepare: backend.NoStatements,
	Knobs:   []knob.Spec{envKnob, server.TopologyKnob},
	Own:     ownKnobs,
	Cache:   "cache_size of each client's ClientStorage: ZEO's client cache of records, one in each client's worker (ZEO's default 20 MB); recorded as given (ClientStorage has no public reader of it)",
	// As zodb's: the servers keep the same FileStorage records.
	RecordOverhead: 140,
	NoPageSize:     "a FileStorage is a log of transactions: it has no pages",
	Open:           open,
	Reopen:         reopen,
}, "zrs:")

// durabilityDoc is what each level is on ZRS.
var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "the primary's FileStorage fsyncs Data.fs in every tpc_finish, before the client's tpc_finish returns; ZRS sends the transaction to the secondaries afterwards (asynchronous: no secondary is waited for); read back: the storage the primary's log says it opened",
	backend.Lazy: backend.Refuse("ZEO acknowledges a commit after its primary's FileStorage fsynced it, and ZRS has no synchronous or later mode: there is no other level"),
	backend.Off:  backend.Refuse("ZEO acknowledges a commit after its primary's FileStorage fsynced it: there is no setting to skip it"),
}

// own is what zrs reads of its knobs (Spec.Own).
type own struct {
	env      string // --zrs-env: "" for the cache folder's
	topology string // --topology
}

func ownKnobs(v *knob.Values) (any, error) {
	t, err := v.Choice("topology")
	return own{env: v.Get("zrs-env"), topology: t}, err
}

// ownOf returns the options' own knobs, or the defaults (a test's).
func ownOf(o backend.Options) own {
	x, ok := o.Own.(own)
	if !ok || x.topology == "" {
		x.topology = "none"
	}
	return x
}

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	if o.DB != managedForm {
		return nil, knob.Bad("use --db zrs:managed", "--db %s: dbgauge runs ZRS only on a cluster it starts", o.DB)
	}
	if err := zodb.Level("zrs", o.Durability, durabilityDoc); err != nil {
		return nil, err
	}
	if err := backend.ApplySet("zrs", nil, o.Set); err != nil {
		return nil, err
	}
	x := ownOf(o)
	python, err := Env.Find(x.env, "--zrs-env")
	if err != nil {
		return nil, err
	}
	srv, err := Start(ctx, zodb.RunzeoConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs},
		Runzeo: zodb.RunzeoOf(python)})
	if err != nil {
		return nil, err
	}
	d := &db{srv: srv, primary: srv, topology: x.topology}
	d.secondaries, d.upstream, err = server.StartTopology(server.Topologies[x.topology], srv, func(up *Server, n server.Node) (*Server, error) {
		return srv.Follow(ctx, up, n.Name)
	})
	if err != nil {
		d.stop()
		return nil, fmt.Errorf("start the ZRS secondaries: %w", err)
	}
	// The clients know the primary's address alone: a failover's promoted
	// secondary takes it over (a read-only secondary would refuse them).
	d.DB, err = zodb.Open(ctx, zodb.Config{Engine: "zrs", Python: python,
		Storage: zodb.ManagedZEO(srv.Port, o.CacheBytes)})
	if err != nil {
		d.stop()
		return nil, fmt.Errorf("connect to the ZRS primary: %w", err)
	}
	d.Managed = &backend.Managed{Server: srv.Instance, Name: "zrs", Rules: zodb.ServerLogRules}
	if x.topology == "none" {
		return d, nil
	}
	return clusterDB{d}, nil
}

// db is zrs:managed: the clients' DB, the primary dbgauge started and its
// secondaries.
type db struct {
	*zodb.DB
	*backend.Managed
	srv         *Server   // the primary started first (the Managed server)
	primary     *Server   // the one that takes writes: srv, or the promoted secondary
	secondaries []*Server // in the topology's order
	upstream    []string  // each secondary's upstream's name
	topology    string
}

// servers lists the primary started first and the secondaries.
func (d *db) servers() []*Server { return append([]*Server{d.srv}, d.secondaries...) }

// Engine adds what the primary's log says: the storage it opened (ZRS) and
// that it serves writes, the topology and ZRS's version.
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e, err := d.DB.Engine(ctx)
	e.Settings["server_storage"] = zodb.StorageOf(server.ReadFrom(d.primary.LogPath, 0))
	e.Settings["server_role"] = d.primary.Role()
	e.Settings["server_file"] = d.primary.File()
	e.Settings["zc.zrs_version"] = d.Worker().Hello().Packages["zc.zrs"]
	e.Settings["topology"] = d.topology
	e.Settings["replication"] = "async"
	e.Version = "ZRS " + e.Settings["zc.zrs_version"] + ", " + e.Version
	e.Path = d.primary.File()
	return e, err
}

// CrashRestart kills the primary and starts it again on its data; the
// clients' ClientStorages and the secondaries reconnect by themselves.
func (d *db) CrashRestart(ctx context.Context) error {
	return d.Recover(ctx, d.primary.CrashRestart)
}

// Restart stops the primary cleanly and starts it again (its caches empty).
func (d *db) Restart(ctx context.Context) error { return d.primary.Restart(ctx) }

// Integrity: ZODB's fstest on the primary's file, from the DB's worker.
func (d *db) Integrity(ctx context.Context) (bool, string, error) {
	return d.IntegrityOf(ctx, d.primary.File())
}

// Close ends the clients' workers, then stops the servers.
func (d *db) Close() error {
	err := d.DB.Close()
	d.stop()
	return err
}

// stop stops the secondaries, the last first, then the primary (once).
func (d *db) stop() {
	for i := len(d.secondaries) - 1; i >= 0; i-- {
		_, _ = d.secondaries[i].StopClean()
	}
	if d.Managed != nil {
		d.Stop(d.srv.StopClean)
		return
	}
	_, _ = d.srv.StopClean()
}
