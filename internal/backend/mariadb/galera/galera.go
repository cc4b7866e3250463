// Package galera is MariaDB Galera Cluster (galera-4): a throwaway managed
// cluster of N MariaDB servers on loopback (--db galera:managed, --nodes),
// each a node that takes writes and replicates them to the others
// synchronously: a commit is certified against every node's concurrent
// ones before it is acknowledged. Its servers are MariaDB's managed server
// (package mariadb, whose connections, dialect and counters it shares
// through mariadb.Nodes) with wsrep on.
package galera

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/server"
)

// managed is the --db value of a cluster dbgauge starts.
const managed = "galera:managed"

// Spec registers Galera in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "galera",
	Summary:    "MariaDB Galera Cluster (galera-4): a throwaway managed cluster of N nodes on loopback, every node writable, commits certified on all",
	Manages:    []string{managed},
	API:        backend.SQL,
	Forms:      []string{managed},
	Driver:     mariadb.Spec.Driver,
	Durability: durabilityDoc,
	Isolation:  mariadb.Spec.Isolation,
	Promises:   mariadb.Spec.Promises,
	Owns:       mariadb.Spec.Owns,
	Flushes:    "Innodb_data_fsyncs summed over the nodes, InnoDB's fsyncs (the redo log's and the data files')",
	Prepare:    mariadb.Spec.Prepare,
	Settings: []backend.Setting{
		{Key: "any server variable", Usage: "given to every node as --name=value at start (wsrep_provider_options is added to the node's own); read back with SHOW GLOBAL VARIABLES"},
	},
	Abilities: []backend.Ability{backend.Procedures, backend.NodeFaults, backend.NetFaults},
	Knobs: []knob.Spec{
		{Name: "nodes", Default: "3", Kind: knob.Int, Usage: "galera:managed: the cluster's nodes (2 to 9; an odd count keeps a majority when one is cut off), each a MariaDB server on loopback"},
		{Name: "write-to", Default: "one", Kind: knob.Choice, Choices: []string{"one", "all"}, Usage: "galera:managed: every client on node1 (one), or the clients spread over the nodes in turn (all: their conflicts are certification failures)"},
		{Name: "sync-wait", Default: "0", Kind: knob.Int, Usage: "galera:managed: wsrep_sync_wait, 0 to 15 (a bit mask: 1 reads, 2 updates and deletes, 4 inserts and replaces, 8 SHOW wait until the node has applied every write set the cluster committed before them); read back"},
	},
	Own:       ownKnobs,
	Nodes:     nodeNames,
	Cache:     "innodb_buffer_pool_size of every node, at start; read back",
	PageSize:  "innodb_page_size, given to mariadb-install-db and at every node's start; read back",
	PageSizes: []int64{4096, 8192, 16384, 32768, 65536},

	// --dataset's estimate (docs/data.md): MariaDB's.
	RecordOverhead: mariadb.Spec.RecordOverhead,

	Open: open,
	// dbgauge crash: node1's datadir started again as a plain MariaDB
	// (wsrep off): what node1's InnoDB kept of what it acknowledged.
	Reopen: mariadb.Spec.Reopen,
})

// durabilityDoc is MariaDB's levels, on every node: a commit is
// acknowledged once certified (every node has its write set), flushed by
// the node it ran on as the level says.
var durabilityDoc = func() map[backend.Durability]string {
	out := map[backend.Durability]string{}
	for d, s := range mariadb.Spec.Durability {
		out[d] = s + "; on every node, each commit's write set in every node's memory before it is acknowledged"
	}
	return out
}()

// own is what Galera's own knobs ask (Spec.Knobs), read once at plan time.
type own struct {
	nodes    int
	all      bool // --write-to all
	syncWait int
}

// ownKnobs is Spec.Own: --nodes, --write-to and --sync-wait, checked.
func ownKnobs(v *knob.Values) (any, error) {
	n, err := v.Int("nodes", 2, 9)
	if err != nil {
		return nil, err
	}
	to, err := v.Choice("write-to")
	if err != nil {
		return nil, err
	}
	w, err := v.Int("sync-wait", 0, 15)
	if err != nil {
		return nil, err
	}
	return own{nodes: int(n), all: to == "all", syncWait: int(w)}, nil
}

// ownOf returns the options' own knobs; opened without a plan (the
// catalog's conformance suite, which opens an engine many times), a
// cluster of two nodes, the smallest, so that its every open is cheaper.
func ownOf(o backend.Options) own {
	if x, ok := o.Own.(own); ok {
		return x
	}
	return own{nodes: 2}
}

// nodeNames is Spec.Nodes: the nodes --nodes makes, node1 to nodeN, which
// --fault node= and partition= may name.
func nodeNames(v *knob.Values) []string {
	n, _ := strconv.Atoi(v.Get("nodes")) // Own refuses a bad count first
	var out []string
	for i := range n {
		out = append(out, "node"+strconv.Itoa(i+1))
	}
	return out
}

type db struct {
	*mariadb.Nodes
	cluster *Cluster
	own     own
	m       *backend.Managed
}

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	settings, err := mariadb.DurabilitySettings(o.Durability)
	if err != nil {
		return nil, err
	}
	x := ownOf(o)
	settings["wsrep_sync_wait"] = strconv.Itoa(x.syncWait)
	settings["max_connections"] = strconv.Itoa(max(151, o.Conns+20))
	for _, kv := range o.Set {
		settings[kv.Key] = kv.Value
	}
	if err := mariadb.SizeSettings(settings, o); err != nil {
		return nil, err
	}
	c, err := Start(ctx, ClusterConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs},
		Nodes: x.nodes, Settings: settings})
	if err != nil {
		if bad := (*knob.Error)(nil); len(o.Set) > 0 && !errors.As(err, &bad) {
			return nil, knob.Bad("check the variables given with --set", "%v", err)
		}
		return nil, err
	}
	var dsns []string
	for _, n := range c.Nodes {
		dsns = append(dsns, n.DSN(false))
	}
	nodes, err := mariadb.OpenNodes(ctx, o, mariadb.NodesConfig{DSNs: dsns, Spread: x.all, Classify: galeraCode})
	if err != nil {
		_, _ = c.Stop()
		return nil, err
	}
	d := &db{Nodes: nodes, cluster: c, own: x}
	return d.managed(), nil
}

// Engine reads back MariaDB's variables (the first node's) and Galera's:
// wsrep_sync_wait, the state transfer's method, the provider's version,
// the cluster's size and status, and each node's state and join.
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e, err := d.Nodes.Engine(ctx)
	e.Name = "galera"
	if err != nil {
		return e, err
	}
	e.Path = d.cluster.Nodes[0].DataDir
	vars, err := variables(ctx, d.Node(0), "SHOW GLOBAL VARIABLES", "wsrep_sync_wait", "wsrep_sst_method", "wsrep_on", "wsrep_slave_threads", "wsrep_provider_options")
	if err != nil {
		return e, err
	}
	status, err := variables(ctx, d.Node(0), "SHOW GLOBAL STATUS", "wsrep_provider_version", "wsrep_cluster_size", "wsrep_cluster_status", "wsrep_local_state_comment")
	if err != nil {
		return e, err
	}
	for k, v := range vars {
		if k == "wsrep_provider_options" {
			v = providerOption(v, "gcache.size")
			k = "gcache.size"
		}
		e.Settings[k] = v
	}
	for k, v := range status {
		e.Settings[k] = v
	}
	for i, n := range d.cluster.Nodes {
		s, err := stateOf(ctx, d.Node(i))
		if err != nil {
			return e, classify(err)
		}
		e.Settings[n.Name] = s.String() + "; " + n.Joined.String()
	}
	e.Settings["write_to"] = "one"
	if d.own.all {
		e.Settings["write_to"] = "all"
	}
	e.NotReadBack = append(e.NotReadBack, "write_to") // where dbgauge's clients connect
	return e, nil
}

// variables reads the named rows of a SHOW GLOBAL VARIABLES or STATUS.
func variables(ctx context.Context, p *sql.DB, show string, names ...string) (map[string]string, error) {
	rows, err := p.QueryContext(ctx, show+" WHERE Variable_name IN ('"+strings.Join(names, "','")+"')")
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, classify(err)
		}
		out[strings.ToLower(k)] = v
	}
	return out, classify(rows.Err())
}

// providerOption is one option's value in wsrep_provider_options ("a = 1;
// b = 2"), "" when it is not there.
func providerOption(opts, name string) string {
	for _, kv := range strings.Split(opts, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// wsrepCounters are the status counters of Galera's own that Stats and
// Sample add, summed over the nodes: the local transactions that failed
// certification, and those a replicated one aborted (brute force): each
// of both a 1213 to its client, as an InnoDB deadlock is.
var wsrepCounters = map[string]string{
	"wsrep_local_cert_failures": "cert_failures", "wsrep_local_bf_aborts": "bf_aborts",
}

// Stats returns MariaDB's counters summed over the nodes (mariadb.Nodes),
// and Galera's: certification failures, brute-force aborts, the time flow
// control paused replication, the write sets replicated.
func (d *db) Stats(ctx context.Context) (map[string]int64, error) {
	out, err := d.Nodes.Stats(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]string{"wsrep_flow_control_paused_ns": "flow_control_paused_ns", "wsrep_replicated": "write_sets_replicated"}
	for k, v := range wsrepCounters {
		names[k] = v
	}
	for i := range d.cluster.Nodes {
		if err := mariadb.Status(ctx, d.Node(i), names, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Sample returns MariaDB's counters of every second, summed over the
// nodes, with the certification failures and brute-force aborts; a node
// that does not answer (killed) is left out of that second.
func (d *db) Sample(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	for i := range d.cluster.Nodes {
		if err := mariadb.Status(ctx, d.Node(i), wsrepCounters, out); err != nil {
			continue
		}
	}
	m, err := d.Nodes.Sample(ctx)
	for k, v := range m {
		out[k] = v
	}
	return out, err
}

// Health says, node by node, which accept writes (in a Primary component
// and ready: more than one component accepting writes is a split brain)
// and what each says of itself.
func (d *db) Health(ctx context.Context) (backend.ClusterHealth, error) {
	h := backend.ClusterHealth{Following: map[string]string{}}
	var errs []error
	var views []string // the writable nodes' components
	for i, n := range d.cluster.Nodes {
		qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		s, err := stateOf(qctx, d.Node(i))
		cancel()
		if err != nil {
			h.Following[n.Name] = "does not answer: " + classify(err).Error()
			errs = append(errs, err)
			continue
		}
		h.Following[n.Name] = s.String()
		if s.Writable() {
			h.Writable = append(h.Writable, n.Name)
			if !slices.Contains(views, s.Conf) {
				views = append(views, s.Conf)
			}
		}
	}
	h.Components = len(views)
	return h, errors.Join(errs...)
}

// Recovery says what the last restart after a kill found.
func (d *db) Recovery() string {
	if d.m == nil {
		return ""
	}
	return d.m.RecoveryNote
}

// Close closes the pools and stops the cluster, removing its folders (the
// logs stay).
func (d *db) Close() error {
	err := d.Nodes.Close()
	d.managed().Stop(d.cluster.Stop)
	return err
}

// managedDB is what Open returns: a DB that is a server (its first node,
// as the kit's backend.Managed).
type managedDB struct {
	*db
	*backend.Managed
}

var (
	_ backend.Recoverer     = managedDB{}
	_ backend.SQLDB         = managedDB{}
	_ backend.Statser       = (*db)(nil)
	_ backend.Sampler       = (*db)(nil)
	_ backend.Recovered     = (*db)(nil)
	_ backend.NodeRecoverer = managedDB{}
	_ backend.Healther      = (*db)(nil)
	_ backend.Networked     = (*db)(nil)
)

// Network is the cluster's network (its nodes node1 … nodeN), nil when
// its nodes are on loopback: --fault partition=, loss=, delay=.
func (d *db) Network() *netns.Net { return d.cluster.Net }

func (d *db) managed() managedDB {
	if d.m == nil {
		d.m = &backend.Managed{Server: d.cluster.Nodes[0].Instance, Name: "galera", Rules: mariadb.LogRules}
	}
	return managedDB{d, d.m}
}

// CrashRestart kills the first node and starts it again: --fault
// kill-at=D without node=.
func (m managedDB) CrashRestart(ctx context.Context) error {
	return m.OnNode("node1").CrashRestart(ctx)
}

// OnNode is the node named (node1 … nodeN) as a Recoverer: --fault
// kill-at=D,node=NAME.
func (m managedDB) OnNode(name string) backend.Recoverer { return nodeFault{m: m, name: name} }

// nodeFault kills one node and starts it again on its data.
type nodeFault struct {
	m    managedDB
	name string
}

// CrashRestart kills the node with SIGKILL, starts it again on its data
// and returns once it is Synced again: its rejoin, timed, and which state
// transfer it received are in the note, with what the nodes said after.
func (n nodeFault) CrashRestart(ctx context.Context) error {
	i := slices.IndexFunc(n.m.cluster.Nodes, func(x *Node) bool { return x.Name == n.name })
	if i < 0 {
		return fmt.Errorf("galera has no node %q: node1 to node%d", n.name, len(n.m.cluster.Nodes))
	}
	node := n.m.cluster.Nodes[i]
	t, err := node.CrashRestart(ctx)
	// The pool's idle connections died with the node.
	n.m.Forget(i)
	note := node.Name + " killed and restarted"
	if err != nil {
		n.m.RecoveryNote = note + ": " + err.Error()
		return err
	}
	note += "; rejoined by " + t.String()
	if h, err := n.m.Health(ctx); err == nil {
		note += fmt.Sprintf("; %d of %d nodes accept writes", len(h.Writable), len(n.m.cluster.Nodes))
	}
	n.m.RecoveryNote = note
	return nil
}
