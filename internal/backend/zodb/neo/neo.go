// Package neo is NEO (neoppod), a distributed storage for ZODB: neo:managed
// starts a cluster on loopback, on the kit (a master, --storage-nodes
// storage nodes on SQLite databases, each partition on --replicas + 1 of
// them, and an admin), and its clients are zodb's worker opening NEO's
// client Storage, one process per client. NEO runs only on Python 2.7: an
// environment of its own (Env), in which the one worker source runs too.
package neo

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/pyworker"
	"github.com/dbgauge/dbgauge/internal/server"
)

// managedForm is the --db value that starts a cluster of dbgauge's.
const managedForm = "neo:managed"

//go:embed requirements.txt
var requirements []byte

// Env is NEO's Python environment (neoppod 1.12.0 on Python 2.7: the
// worker and the cluster's nodes): `dbgauge engines install neo`.
var Env = pyworker.Env{Name: "neo", Python: "2.7", Requirements: requirements, Engines: "neo"}

// Knobs are neo's own: its environment, its storage nodes and replicas.
var Knobs = []knob.Spec{
	{Name: "neo-env", Values: "DIR", Uses: knob.ForLoad | knob.ForCheck,
		Usage: "neo: the Python 2.7 virtualenv to run ZODB's worker and NEO's nodes from (default: the one `dbgauge engines install neo` makes in the cache folder)"},
	{Name: "storage-nodes", Default: "1", Kind: knob.Int, Usage: "neo:managed: the storage nodes, each a neostorage process on loopback with an SQLite database of its own"},
	{Name: "replicas", Default: "0", Kind: knob.Int, Usage: "neo:managed: the copies of each partition beyond the first, on other storage nodes (less than --storage-nodes): with 1, a storage node may die with nothing lost"},
}

// Spec registers neo in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "neo",
	Summary:    "NEO 1.12.0 (neoppod, Python 2.7): a distributed ZODB storage, a master, an admin and --storage-nodes SQLite storage nodes, each partition on --replicas + 1 of them",
	API:        backend.KV,
	Forms:      []string{"neo:managed (a master, an admin and --storage-nodes storage nodes on loopback)"},
	Manages:    []string{managedForm},
	Driver:     "dbgauge's ZODB worker (Python 2.7, internal/pyworker): NEO's client Storage (neo.client.Storage), given the master's address",
	Durability: durabilityDoc,
	Promises: map[backend.Durability]backend.Promise{
		backend.Sync: {Crash: true, Power: true, Doc: "NEO: tpc_vote returns once every storage node holding the transaction's partitions has stored it and committed its database (neo/storage: the vote's commit; SQLite commits with synchronous=FULL, its default, which NEO leaves); tpc_finish then has the master lock it on them, so a killed node's committed transactions survive on it and on its replicas"},
	},
	Expect:    map[backend.Durability]map[string]string{backend.Sync: {"cluster_state": "RUNNING"}},
	Flushes:   "the storage nodes' SQLite commits: one in each transaction's vote, counted as the commits the clients' workers acknowledged",
	Prepare:   backend.NoStatements,
	Abilities: []backend.Ability{backend.NodeFaults},
	Nodes: func(v *knob.Values) []string {
		names := []string{"master", "admin"}
		n, _ := strconv.Atoi(v.Get("storage-nodes"))
		for i := 1; i <= n; i++ {
			names = append(names, "storage"+strconv.Itoa(i))
		}
		return names
	},
	Knobs: Knobs,
	Own:   ownKnobs,
	Cache: "cache_size of each client's NEO Storage: its client cache of records, one in each client's worker (NEO's default 20 MB); recorded as given (NEO has no public reader of it)",
	// An estimate: NEO keeps a record's data (compressed when it gains),
	// its object row and the transaction's rows in each storage node's
	// SQLite database.
	RecordOverhead: 200,
	NoPageSize:     "NEO's storage nodes keep SQLite's page size: NEO has no setting for it",
	Open:           open,
	Reopen:         reopen,
}, "neo:")

// durabilityDoc is what each level is on NEO.
var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "each storage node commits its SQLite database (synchronous=FULL, SQLite's default: NEO sets no pragma outside its own test runner) when it votes the transaction, before the client's tpc_vote returns, on every node holding its partitions (--replicas + 1); read back: the cluster's state and replicas from its admin (neoctl)",
	backend.Lazy: backend.Refuse("NEO has no setting for a later flush: its storage nodes commit their databases at every vote"),
	backend.Off:  backend.Refuse("NEO has no setting to skip its storage nodes' commits"),
}

// own is what neo reads of its knobs (Spec.Own).
type own struct {
	env      string // --neo-env: "" for the cache folder's
	storages int    // --storage-nodes
	replicas int    // --replicas
}

func ownKnobs(v *knob.Values) (any, error) {
	n, err := v.Int("storage-nodes", 1, 16)
	if err != nil {
		return nil, err
	}
	r, err := v.Int("replicas", 0, 15)
	if err != nil {
		return nil, err
	}
	if r >= n {
		return nil, knob.Bad("give --replicas less than --storage-nodes (--replicas 1 --storage-nodes 2)", "--replicas %d: NEO keeps each partition on --replicas + 1 storage nodes, and there are %d", r, n)
	}
	return own{env: v.Get("neo-env"), storages: int(n), replicas: int(r)}, nil
}

// ownOf returns the options' own knobs, or the defaults (a test's).
func ownOf(o backend.Options) own {
	x, ok := o.Own.(own)
	if !ok || x.storages == 0 {
		x.storages = max(x.storages, 1)
	}
	return x
}

// Python returns the environment's interpreter for o.
func Python(o backend.Options) (string, error) { return Env.Find(ownOf(o).env, "--neo-env") }

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	if o.DB != managedForm {
		return nil, knob.Bad("use --db neo:managed", "--db %s: dbgauge runs NEO only on a cluster it starts", o.DB)
	}
	if err := zodb.Level("neo", o.Durability, durabilityDoc); err != nil {
		return nil, err
	}
	if err := backend.ApplySet("neo", nil, o.Set); err != nil {
		return nil, err
	}
	x := ownOf(o)
	python, err := Python(o)
	if err != nil {
		return nil, err
	}
	c, err := Start(ctx, ClusterConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs},
		Python: python, Storages: x.storages, Replicas: x.replicas})
	if err != nil {
		return nil, err
	}
	return connect(ctx, c, python, o.CacheBytes)
}

// connect opens the clients' DB on a cluster; a failure stops it.
func connect(ctx context.Context, c *Cluster, python string, cache int64) (*db, error) {
	d, err := zodb.Open(ctx, zodb.Config{Engine: "neo", Python: python, Py2: true,
		Storage: zodb.Storage{Kind: "neo", Masters: c.MasterAddr(), Cluster: clusterName, Cache: cache,
			ScanRanges: zodb.ManagedScanRanges}})
	if err != nil {
		_, _ = c.Stop()
		return nil, fmt.Errorf("connect to the NEO cluster: %w", err)
	}
	return &db{DB: d, Managed: &backend.Managed{Server: c.Master.Instance, Name: "neo", Rules: LogRules}, c: c}, nil
}

// db is neo:managed: the clients' DB and the cluster dbgauge started (the
// master is the Managed server).
type db struct {
	*zodb.DB
	*backend.Managed
	c *Cluster
}

var (
	_ backend.Recoverer     = (*db)(nil)
	_ backend.NodeRecoverer = (*db)(nil)
	_ backend.KVDB          = (*db)(nil)
)

// Engine adds what the admin says of the cluster: its state, its nodes,
// the replicas and partitions of its partition table.
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e, err := d.DB.Engine(ctx)
	st, serr := d.c.ReadState(ctx)
	if serr != nil && err == nil {
		err = serr
	}
	e.Settings["cluster_state"] = st.Cluster
	e.Settings["replicas"] = strconv.Itoa(st.Replicas)
	e.Settings["partitions"] = strconv.Itoa(st.Partitions)
	running := 0
	for _, s := range d.c.Storages {
		if st.Nodes["127.0.0.1:"+strconv.Itoa(s.Port)] == "RUNNING" {
			running++
		}
	}
	e.Settings["storage_nodes"] = strconv.Itoa(running)
	e.Settings["storage_adapter"] = "SQLite" // the nodes' -a, as given: NEO's admin does not say
	var dbs []string
	for _, s := range d.c.Storages {
		dbs = append(dbs, s.DB())
	}
	e.Settings["storage_databases"] = strings.Join(dbs, " ")
	e.NotReadBack = append(e.NotReadBack, "storage_adapter")
	e.Path = d.c.Master.Base()
	return e, err
}

// CrashRestart crashes the whole cluster at once: every node is first
// stopped (SIGSTOP), so that none sees another die (a master that saw its
// storage nodes go would log it as a failure of its own), then each is
// killed (SIGKILL to its process group) and started again on its data,
// all together (a storage node back before the master waits for it); it
// returns once the cluster is RUNNING again.
func (d *db) CrashRestart(ctx context.Context) error {
	return d.Recover(ctx, func(ctx context.Context) (string, error) {
		nodes := d.c.Nodes()
		var resumes []func()
		for _, n := range nodes {
			resume, err := server.StopTree(n.Pid())
			if err != nil {
				for _, r := range resumes {
					r() // none is left stopped
				}
				return "", fmt.Errorf("NEO's %s: %w", n.Name, err)
			}
			resumes = append(resumes, resume)
		}
		errs := make([]error, len(nodes))
		var wg sync.WaitGroup
		for i, n := range nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := n.CrashRestart(ctx); err != nil {
					errs[i] = fmt.Errorf("NEO's %s: %w", n.Name, err)
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return "", err
		}
		return "every node killed and started again on its data", d.c.WaitRunning(ctx, nil)
	})
}

// OnNode is the node named name (master, admin, storage1, …) as a
// Recoverer: --fault kill-at=D,node=NAME.
func (d *db) OnNode(name string) backend.Recoverer { return nodeFault{d: d, name: name} }

// nodeFault kills one node of the cluster and starts it again on its data.
type nodeFault struct {
	d    *db
	name string
}

// CrashRestart kills the node (SIGKILL to its process group) and starts it
// again on its data and port; it returns once the cluster says the node is
// RUNNING and every cell of the partition table is up to date (a storage
// node has caught up with the commits made without it).
func (n nodeFault) CrashRestart(ctx context.Context) error {
	node := n.d.c.ByName(n.name)
	if node == nil {
		return fmt.Errorf("the NEO cluster has no node %s", n.name)
	}
	return n.d.Recover(ctx, func(ctx context.Context) (string, error) {
		_, err := n.d.c.CrashRestart(ctx, node)
		return node.Name + " killed and started again on its data", err
	})
}

// Integrity reads every current record back through the DB's worker,
// decoding dbgauge's.
func (d *db) Integrity(ctx context.Context) (bool, string, error) { return d.IntegrityOf(ctx, "") }

// Close ends the clients' workers, then stops the cluster.
func (d *db) Close() error {
	err := d.DB.Close()
	d.Stop(d.c.Stop)
	return err
}

// storageDirs are the storage nodes' data folders a cluster left beside
// the master's data folder (Base/storageN/data), in order.
func storageDirs(masterData string) []string {
	var out []string
	for i := 1; ; i++ {
		d := filepath.Join(filepath.Dir(masterData), "storage"+strconv.Itoa(i), "data")
		if !exists(filepath.Join(d, "neo.sqlite")) {
			return out
		}
		out = append(out, d)
	}
}
