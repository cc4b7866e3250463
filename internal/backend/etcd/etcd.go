// Package etcd is etcd through go.etcd.io/etcd/client/v3: a throwaway
// managed cluster of one or three members on loopback (--db etcd:managed,
// --members). A key-value engine: a unit is one Txn whose If holds the
// revisions of the keys it read (kv.go); the WAL is fsynced before an
// entry is acknowledged, unless --unsafe-no-fsync (--durability off).
package etcd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/server"
)

const module = "go.etcd.io/etcd/client/v3"

// managed is the --db value of a cluster dbgauge starts.
const managed = "etcd:managed"

// Spec registers etcd in the catalog.
var Spec = backend.Served(backend.Spec{
	Name:       "etcd",
	Summary:    "etcd (Raft, a WAL fsynced before every acknowledgement) as a throwaway managed cluster of 1 or 3 members on loopback; Txn transactions",
	Manages:    []string{managed},
	API:        backend.KV,
	Forms:      []string{managed},
	Driver:     module,
	Durability: durabilityDoc,
	Promises:   promises,
	Owns:       owns,
	Flushes:    "etcd_disk_wal_fsync_duration_seconds_count, the WAL's fsyncs as the first member counts them (its /metrics)",
	Prepare:    backend.NoStatements,
	Settings: []backend.Setting{
		{Key: "any etcd flag", Usage: "given to every member as --name=value (snapshot-count, quota-backend-bytes, heartbeat-interval, election-timeout, …); read back from its /debug/vars"},
	},
	Abilities: []backend.Ability{backend.RangeScans, backend.NodeFaults},
	Nodes: func(v *knob.Values) []string {
		names := []string{"leader", "follower"}
		n, _ := strconv.Atoi(v.Get("members"))
		for i := 1; i <= n; i++ {
			names = append(names, "m"+strconv.Itoa(i))
		}
		return names
	},
	Knobs: []knob.Spec{
		{Name: "members", Default: "1", Kind: knob.Choice, Choices: []string{"1", "3"}, Usage: "etcd:managed: the cluster's members, each an etcd process on loopback"},
		{Name: "etcd-reads", Default: "linearizable", Kind: knob.Choice, Choices: []string{"linearizable", "serializable"}, Usage: "etcd:managed: a transaction's first read asks the leader for the latest revision (linearizable), or takes the answering member's own (serializable: possibly stale)"},
	},
	Own:        ownKnobs,
	NoCache:    "etcd's backend is bbolt, read through a memory map: the OS page cache is its only cache",
	NoPageSize: "etcd's bbolt backend keeps the OS page size; etcd has no flag for it",

	// --dataset's estimate (docs/data.md): an estimate: the mvcc key
	// (revision) and its KeyValue record in bbolt, the key's index entry in
	// memory, the WAL's entry.
	RecordOverhead: 250,

	Open:   open,
	Reopen: reopen,
})

// own is what etcd's own knobs ask (Spec.Knobs), read once at plan time.
type own struct {
	members      int
	serializable bool // --etcd-reads serializable
}

func ownKnobs(v *knob.Values) (any, error) {
	m, err := v.Choice("members")
	if err != nil {
		return nil, err
	}
	reads, err := v.Choice("etcd-reads")
	if err != nil {
		return nil, err
	}
	n, _ := strconv.Atoi(m)
	return own{members: n, serializable: reads == "serializable"}, nil
}

// ownOf returns the options' own knobs, or their defaults.
func ownOf(o backend.Options) own {
	if x, ok := o.Own.(own); ok {
		return x
	}
	return own{members: 1}
}

type db struct {
	client  *clientv3.Client
	cluster *Cluster
	m       *backend.Managed
	keys    []string // the --set flags, read back with the others
	// serializable: reads are answered by the member asked, from what it
	// has applied (--etcd-reads serializable), not through the leader.
	serializable bool
}

// settingsOf returns the members' flags: the level's and the run's --set.
func settingsOf(o backend.Options) (map[string]string, []string, error) {
	off, err := noFsync(o.Durability)
	if err != nil {
		return nil, nil, err
	}
	settings := map[string]string{}
	if off {
		settings["unsafe-no-fsync"] = "true"
	}
	var keys []string
	for _, kv := range o.Set {
		settings[kv.Key] = kv.Value
		keys = append(keys, kv.Key)
	}
	return settings, keys, nil
}

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	settings, keys, err := settingsOf(o)
	if err != nil {
		return nil, err
	}
	cfg := ClusterConfig{Config: server.Config{Dir: o.Dir, Data: o.DataDir, Memory: o.ServerMemory, CPUs: o.ServerCPUs},
		Members: ownOf(o).members, Settings: settings}
	c, err := Start(ctx, cfg)
	if err != nil {
		if bad := (*knob.Error)(nil); len(o.Set) > 0 && !errors.As(err, &bad) {
			return nil, knob.Bad("check the flags given with --set", "%v", err)
		}
		return nil, err
	}
	d := &db{cluster: c, keys: keys, serializable: ownOf(o).serializable}
	if err := d.connect(ctx); err != nil {
		_ = d.Close()
		return nil, err
	}
	return d.managed(), nil
}

// connect makes the client, to every member, and checks that it answers.
func (d *db) connect(ctx context.Context) error {
	var eps []string
	for _, m := range d.cluster.Members {
		eps = append(eps, m.ClientURL())
	}
	var err error
	d.client, err = clientv3.New(clientv3.Config{
		Endpoints: eps, DialTimeout: 10 * time.Second, Logger: zap.NewNop(), Context: ctx,
		// kv's load sends 10,000 records a transaction (the members take
		// 64 MiB: server.go).
		MaxCallSendMsgSize: 80 << 20, MaxCallRecvMsgSize: 256 << 20,
	})
	if err != nil {
		return classify(err)
	}
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = d.client.Get(gctx, "dbgauge/ping")
	return classify(err)
}

// Engine reads back etcd's version (/version) and the flags each member
// runs with, from its own /debug/vars (its command line, as etcd reports
// it): the first member's, and how many members the cluster lists.
func (d *db) Engine(ctx context.Context) (backend.Engine, error) {
	e := backend.Engine{Name: "etcd", Driver: module + " " + backend.ModuleVersion(module), Settings: map[string]string{}}
	m := d.cluster.Members[0]
	e.Path = m.DataDir
	b, err := m.get(ctx, "/version")
	if err != nil {
		return e, classify(err)
	}
	var v struct{ Etcdserver string }
	if err := json.Unmarshal(b, &v); err != nil {
		return e, err
	}
	e.Version = v.Etcdserver
	if b, err = m.get(ctx, "/debug/vars"); err != nil {
		return e, classify(err)
	}
	var vars struct{ Cmdline []string }
	if err := json.Unmarshal(b, &vars); err != nil {
		return e, err
	}
	flags := parseFlags(vars.Cmdline)
	for _, k := range append([]string{"unsafe-no-fsync", "snapshot-count", "quota-backend-bytes", "heartbeat-interval",
		"election-timeout", "max-txn-ops", "max-request-bytes", "auto-compaction-retention"}, d.keys...) {
		if v, ok := flags[k]; ok {
			e.Settings[k] = v
		}
	}
	if _, ok := e.Settings["unsafe-no-fsync"]; !ok {
		e.Settings["unsafe-no-fsync"] = "false" // etcd's default, the flag absent from its command line
	}
	ms, err := d.client.MemberList(ctx)
	if err != nil {
		return e, classify(err)
	}
	e.Settings["members"] = strconv.Itoa(len(ms.Members))
	e.Settings["reads"] = "linearizable"
	if d.serializable {
		e.Settings["reads"] = "serializable"
	}
	e.NotReadBack = []string{"reads"} // the client's choice, per request
	return e, nil
}

// parseFlags reads a command line's --name=value and --name flags.
func parseFlags(args []string) map[string]string {
	out := map[string]string{}
	for _, a := range args {
		if k, ok := strings.CutPrefix(a, "--"); ok {
			name, v, has := strings.Cut(k, "=")
			if !has {
				v = "true"
			}
			out[name] = v
		}
	}
	return out
}

// metrics are the /metrics counters Stats returns, by the names it gives.
var metrics = map[string]string{
	"etcd_disk_wal_fsync_duration_seconds":          "flushes",
	"etcd_disk_backend_commit_duration_seconds":     "backend_commits",
	"etcd_server_proposals_committed_total":         "commits",
	"etcd_server_proposals_failed_total":            "proposals_failed",
	"etcd_server_leader_changes_seen_total":         "leader_changes",
	"etcd_mvcc_db_total_size_in_bytes":              "db_bytes",
	"etcd_server_slow_apply_total":                  "slow_applies",
	"etcd_server_heartbeat_send_failures_total":     "heartbeat_failures",
	"etcd_network_client_grpc_received_bytes_total": "client_bytes_in",
}

// Stats reads the first member's /metrics: the WAL's fsyncs (flushes,
// a histogram's count), Raft proposals committed (commits: each write
// transaction is one), bbolt's commits, leader changes, the database's size.
func (d *db) Stats(ctx context.Context) (map[string]int64, error) {
	b, err := d.cluster.Members[0].get(ctx, "/metrics")
	if err != nil {
		return nil, classify(err)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for name, as := range metrics {
		f, ok := fams[name]
		if !ok || len(f.GetMetric()) == 0 {
			continue
		}
		out[as] = int64(value(f.GetMetric()[0]))
	}
	return out, nil
}

// value is a metric's value: a counter's or gauge's, a histogram's count.
func value(m *dto.Metric) float64 {
	switch {
	case m.GetHistogram() != nil:
		return float64(m.GetHistogram().GetSampleCount())
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	}
	return m.GetGauge().GetValue()
}

// Recovery says what the last restart after a kill found.
func (d *db) Recovery() string {
	if d.m == nil {
		return ""
	}
	return d.m.RecoveryNote
}

// Close closes the client and stops the cluster, removing its folders (the
// logs stay).
func (d *db) Close() error {
	var err error
	if d.client != nil {
		err = d.client.Close()
	}
	d.managed().Stop(d.cluster.Stop)
	return err
}

// managedDB is what Open returns: a DB that is a server (its first member,
// as the kit's backend.Managed).
type managedDB struct {
	*db
	*backend.Managed
}

var (
	_ backend.Recoverer     = managedDB{}
	_ backend.KVDB          = managedDB{}
	_ backend.Statser       = (*db)(nil)
	_ backend.Recovered     = (*db)(nil)
	_ backend.NodeRecoverer = managedDB{}
)

func (d *db) managed() managedDB {
	if d.m == nil {
		d.m = &backend.Managed{Server: d.cluster.Members[0].Instance, Name: "etcd", Rules: LogRules}
	}
	return managedDB{d, d.m}
}

// CrashRestart kills the first member (SIGKILL to its process group) and
// starts it again on its data: it replays its WAL from its last snapshot.
func (m managedDB) CrashRestart(ctx context.Context) error {
	log, err := m.cluster.Members[0].CrashRestart(ctx)
	m.RecoveryNote = replayNote(log)
	return err
}

// OnNode is the member that has role (leader, follower) when the fault
// comes, as a Recoverer: --fault kill-at=D,node=ROLE.
func (m managedDB) OnNode(role string) backend.Recoverer { return nodeFault{m: m, role: role} }

// nodeFault kills one member by its role and starts it again on its data.
type nodeFault struct {
	m    managedDB
	role string
}

// CrashRestart finds the member that has the role now (each member's
// status names the leader), kills it with SIGKILL and starts it again on
// its data, and returns once every member is healthy again; the note
// names the member and what it replayed.
func (n nodeFault) CrashRestart(ctx context.Context) error {
	mem, err := n.m.member(ctx, n.role)
	if err != nil {
		return err
	}
	log, err := mem.CrashRestart(ctx)
	if err == nil {
		err = n.m.cluster.healthy(ctx)
	}
	n.m.RecoveryNote = mem.Name + ", the " + n.role + ", killed and restarted; " + replayNote(log)
	return err
}

// member finds the member that has role now: the leader (the one whose
// status names itself leader), or a follower; or the member of that name.
func (d *db) member(ctx context.Context, role string) (*Member, error) {
	if role != "leader" && role != "follower" {
		var names []string
		for _, mem := range d.cluster.Members {
			if mem.Name == role {
				return mem, nil
			}
			names = append(names, mem.Name)
		}
		return nil, fmt.Errorf("the etcd cluster has no member %s: name leader, follower or one of %s", role, strings.Join(names, ", "))
	}
	for _, mem := range d.cluster.Members {
		sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		st, err := d.client.Status(sctx, mem.ClientURL())
		cancel()
		if err != nil {
			continue
		}
		if (st.Leader == st.Header.MemberId) == (role == "leader") {
			return mem, nil
		}
	}
	return nil, errors.New("no member of the etcd cluster is the " + role + " now")
}
