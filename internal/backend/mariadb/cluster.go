package mariadb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/server"
)

// clusterConfig is what --topology and --replication ask.
type clusterConfig struct {
	topology    string // none, 1, 2-direct, 2-chain
	replication string // async, semi-sync; "none" without replicas
}

// semiSyncTimeout is rpl_semi_sync_master_timeout: long enough that the
// primary never falls back to asynchronous replication during a run (it
// would without a word: a commit that waited this long for a replica's
// acknowledgement goes on without it). A fallback is read back each second
// all the same (Lag: semi_sync_off, semi_sync_no_tx).
const semiSyncTimeout = 24 * time.Hour

// clusterKnobs reads --topology and --replication, refusing what MariaDB
// cannot build: PostgreSQL's sync and remote_apply, and replicas of a
// server dbgauge does not manage.
func clusterKnobs(v *knob.Values) (clusterConfig, error) {
	c := clusterConfig{topology: "none", replication: "async"}
	if !v.Declares("topology") {
		return c, nil
	}
	var err error
	if c.topology, err = v.Choice("topology"); err != nil {
		return c, err
	}
	if c.replication, err = v.Choice("replication"); err != nil {
		return c, err
	}
	switch form, _ := backend.VersionOf(v.Get("db")); {
	case c.replication != "async" && c.replication != "semi-sync":
		return c, knob.Bad("use async or semi-sync with mariadb:managed", "--replication %s is PostgreSQL's: MariaDB's replicas are async or semi-sync", c.replication)
	case c.topology == "none":
		// Nothing to replicate to: in a matrix (--topology none,1
		// --replication async,semi-sync) the none cells run as they are.
		c.replication = "none"
	case !isManagedForm(form):
		return c, knob.Bad("use --db mariadb:managed with --topology", "dbgauge builds replicas only of a server it manages")
	}
	return c, nil
}

// clusterOf returns the options' cluster knobs, none without a plan (a
// test, dbgauge isolation).
func clusterOf(o backend.Options) clusterConfig {
	if x, ok := o.Own.(own); ok && x.cluster.topology != "" {
		return x.cluster
	}
	return clusterConfig{topology: "none", replication: "none"}
}

// primarySettings adds to settings what a topology's primary needs: a
// binary log of row events with GTIDs (server_id 1), kept by every server
// of the cluster (log_slave_updates: a replica feeds a chain, and the other
// replicas once promoted), and, for semi-sync, the primary's side of it
// waiting after the binlog's sync (AFTER_SYNC: a commit no replica has
// received is visible to no one).
func (c clusterConfig) primarySettings(settings map[string]string) {
	for k, v := range map[string]string{"log_bin": "binlog", "server_id": "1", "binlog_format": "ROW", "log_slave_updates": "ON",
		"gtid_strict_mode": "ON", "relay_log": "relay-bin"} {
		settings[k] = v
	}
	if c.replication == "semi-sync" {
		settings["rpl_semi_sync_master_enabled"] = "ON"
		settings["rpl_semi_sync_master_wait_point"] = "AFTER_SYNC"
		settings["rpl_semi_sync_master_timeout"] = strconv.FormatInt(semiSyncTimeout.Milliseconds(), 10)
	}
}

// replicaSettings are a replica's options: the primary's but its semi-sync
// master side (a promoted replica that inherited it would wait for a
// replica on every commit, in 1 for none ever), its own server_id, read
// only, and for semi-sync the replica's side when it follows the primary
// itself (a chain's r2 is asynchronous).
func (c clusterConfig) replicaSettings(primary map[string]string, id int, n server.Node) map[string]string {
	rs := map[string]string{}
	for k, v := range primary {
		if k != "rpl_semi_sync_master_enabled" && k != "rpl_semi_sync_master_wait_point" && k != "rpl_semi_sync_master_timeout" {
			rs[k] = v
		}
	}
	rs["server_id"], rs["read_only"] = strconv.Itoa(id), "ON"
	if c.replication == "semi-sync" && n.Follows == server.Primary {
		rs["rpl_semi_sync_slave_enabled"] = "ON"
	}
	return rs
}

// startReplicas starts the topology's replicas of the managed primary,
// empty, each replicating its upstream from the first event of its binlog.
func (d *db) startReplicas(ctx context.Context, settings map[string]string) error {
	id := 1
	var err error
	d.replicas, d.upstream, err = server.StartTopology(server.Topologies[d.cluster.topology], d.srv, func(up *Server, n server.Node) (*Server, error) {
		id++
		in, err := d.srv.Replica(ctx, d.net, n.Name)
		if err != nil {
			return nil, err
		}
		return up.StartReplica(ctx, in, n.Name, filepath.Join(d.srv.Dir, "mariadb-"+n.Name+".log"), d.cluster.replicaSettings(settings, id, n))
	})
	return err
}

// stopReplicas stops the replicas, the last first.
func (d *db) stopReplicas() {
	for i := len(d.replicas) - 1; i >= 0; i-- {
		_, _ = d.replicas[i].StopClean()
	}
	d.replicas, d.upstream = nil, nil
}

// servers lists the primary and the replicas, in the topology's order.
func (d *db) servers() []*Server { return append([]*Server{d.srv}, d.replicas...) }

// clusterDB is what Open returns for a managed primary with replicas.
type clusterDB struct{ managedDB }

var _ backend.Cluster = clusterDB{}

// Topology names the topology and the replication it was built with.
func (c clusterDB) Topology() (string, string) { return c.cluster.topology, c.cluster.replication }

// Nodes lists the primary and its replicas; a replica that acknowledges
// the primary's commits (semi-sync, following the primary) is Sync.
func (c clusterDB) Nodes() []backend.Node {
	d := c.db
	d.topo.Lock()
	defer d.topo.Unlock()
	nodes := []backend.Node{backend.NodeOf(d.srv.Instance, server.Primary, "")}
	for i, r := range d.replicas {
		n := backend.NodeOf(r.Instance, r.Name, d.upstream[i])
		n.Sync = d.cluster.replication == "semi-sync" && d.upstream[i] == server.Primary
		nodes = append(nodes, n)
	}
	return nodes
}

// nameOf names a server of the cluster: primary, r1, r2.
func nameOf(s *Server) string {
	if s.Name == "" {
		return server.Primary
	}
	return s.Name
}

// byName returns the live server named name, nil for the killed primary.
func (d *db) byName(name string) *Server {
	for _, s := range d.servers() {
		if nameOf(s) == name && (s != d.srv || !d.srv.Killed()) {
			return s
		}
	}
	return nil
}

// Lag reads, for each replica that replicates from a live upstream, the
// bytes of the upstream's binlog it has not executed (lag_bytes) and the
// transactions (GTID sequence numbers) it has not (lag_trx); and on a
// semi-sync primary, whether it fell back to asynchronous replication
// (semi_sync_off:primary, 1 when it did) and the commits that waited for no
// replica (semi_sync_no_tx:primary).
func (c clusterDB) Lag(ctx context.Context) (map[string]float64, error) {
	d := c.db
	m := map[string]float64{}
	var errs []error
	var replicas, ups []*Server
	d.topo.Lock()
	for i, r := range d.replicas {
		up := d.byName(d.upstream[i])
		if up == nil || r == d.promoted {
			continue // its upstream was killed, or it is the primary now
		}
		replicas, ups = append(replicas, r), append(ups, up)
	}
	primaryLive := !d.srv.Killed()
	d.topo.Unlock()
	for i, r := range replicas {
		bytes, trx, err := r.LagBehind(ctx, ups[i])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r.Name, err))
			continue
		}
		m["lag_bytes:"+r.Name], m["lag_trx:"+r.Name] = bytes, trx
	}
	if d.cluster.replication == "semi-sync" && primaryLive {
		st, err := d.srv.Status(ctx, "Rpl_semi_sync_master_status", "Rpl_semi_sync_master_no_tx")
		if err != nil {
			errs = append(errs, fmt.Errorf("primary: %w", err))
		} else {
			m["semi_sync_off:primary"] = 0
			if st["Rpl_semi_sync_master_status"] != "ON" {
				m["semi_sync_off:primary"] = 1
			}
			m["semi_sync_no_tx:primary"], _ = strconv.ParseFloat(st["Rpl_semi_sync_master_no_tx"], 64)
		}
	}
	return m, errors.Join(errs...)
}

// direct returns the replicas that follow the primary itself.
func (d *db) direct() []*Server { return server.Followers(d.replicas, d.upstream, server.Primary) }

var (
	_ backend.Networked     = clusterDB{}
	_ backend.NodeRecoverer = clusterDB{}
)

// Network is the cluster's network (nil: its servers are on loopback);
// its nodes are primary, r1, r2.
func (c clusterDB) Network() *netns.Net { return c.net }

// OnNode is the server named node (primary, r1, r2) killed and restarted
// on its datadir by --fault kill-at=D,node=NODE: a restarted replica
// replicates on from its GTID position, a restarted primary is the primary
// again, its replicas reconnecting to it.
func (c clusterDB) OnNode(node string) backend.Recoverer { return nodeFault{c, node} }

// nodeFault is one server of a cluster killed and restarted.
type nodeFault struct {
	c    clusterDB
	node string
}

// CrashRestart kills the server with SIGKILL and starts it again on its
// datadir, on the same address and port (InnoDB's crash recovery); it
// returns once it accepts connections, its recovery noted with its name.
func (n nodeFault) CrashRestart(ctx context.Context) error {
	d := n.c.db
	srv := d.byName(n.node)
	if srv == nil {
		return fmt.Errorf("the cluster has no running server %s (its servers: %s)", n.node, strings.Join(server.NodeNames(d.cluster.topology), ", "))
	}
	err := n.c.Recover(ctx, func(ctx context.Context) (string, error) {
		note, err := srv.CrashRestart(ctx)
		return n.node + " killed and restarted: " + note, err
	})
	if srv == d.srv {
		// The clients' idle connections died with it.
		d.sql.SetMaxIdleConns(0)
		d.sql.SetMaxIdleConns(d.pool)
	}
	return err
}

// IsolatePrimary cuts the primary off from every replica on the cluster's
// network (server.IsolatePrimary), its clients still reaching it: the
// replicas receive no more of its binlog; an async primary goes on
// acknowledging commits they will never have, a semi-sync one waits for
// an acknowledgement that does not come.
func (c clusterDB) IsolatePrimary(ctx context.Context) (func(), string, error) {
	return server.IsolatePrimary(ctx, c.net)
}

// KillPrimary kills the primary's process group and waits until it is gone.
func (c clusterDB) KillPrimary(context.Context) error { return c.srv.Kill() }

// Promote promotes the direct replica that received the most of the
// primary's transactions (its Gtid_IO_Pos): it applies what it received,
// stops replicating and accepts writes (read_only off).
func (c clusterDB) Promote(ctx context.Context) (string, error) {
	d := c.db
	var best *Server
	var bestPos string
	for _, r := range d.direct() {
		st, err := r.SlaveStatus(ctx)
		if err != nil || st == nil {
			continue
		}
		if pos := st["Gtid_IO_Pos"]; best == nil || gtidAhead(pos, bestPos) {
			best, bestPos = r, pos
		}
	}
	if best == nil {
		return "", errors.New("no replica of the primary answers: none to promote")
	}
	if err := best.Promote(ctx, bestPos); err != nil {
		return best.Name, err
	}
	d.topo.Lock()
	d.promoted = best
	d.topo.Unlock()
	return best.Name, nil
}

// Repoint makes the old primary's other direct replicas replicate from the
// promoted one, from their own GTID position; a chain's r2 already follows
// it.
func (c clusterDB) Repoint(ctx context.Context) error {
	d := c.db
	if d.promoted == nil {
		return errors.New("nothing was promoted")
	}
	for i, r := range d.replicas {
		if d.upstream[i] == server.Primary && r != d.promoted {
			if err := r.Follow(ctx, d.promoted, true); err != nil {
				return err
			}
			d.topo.Lock()
			d.upstream[i] = d.promoted.Name
			d.topo.Unlock()
		}
	}
	return nil
}

// Health reads from each live server whether it accepts writes (read_only
// off) and, for a replica, its IO and SQL threads and the server it
// replicates from.
func (c clusterDB) Health(ctx context.Context) (backend.ClusterHealth, error) {
	d := c.db
	h := backend.ClusterHealth{Following: map[string]string{}}
	ports := map[string]string{}
	for _, s := range d.servers() {
		ports[strconv.Itoa(s.Port)] = nameOf(s)
	}
	var errs []error
	for _, s := range d.servers() {
		if s == d.srv && d.srv.Killed() {
			continue
		}
		name := nameOf(s)
		ro, err := s.Variable(ctx, "read_only")
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		if ro == "OFF" || ro == "0" {
			h.Writable = append(h.Writable, name)
			continue
		}
		st, err := s.SlaveStatus(ctx)
		switch {
		case err != nil:
			h.Following[name] = "unreadable: " + err.Error()
		case st == nil:
			h.Following[name] = "read only, replicating from nothing"
		default:
			from := ports[st["Master_Port"]]
			if from == "" {
				from = "port " + st["Master_Port"]
			}
			h.Following[name] = fmt.Sprintf("replicating from %s (IO %s, SQL %s)", from, st["Slave_IO_Running"], st["Slave_SQL_Running"])
		}
	}
	slices.Sort(h.Writable)
	return h, errors.Join(errs...)
}

// clusterSettings reads back, into settings, what each server of the
// cluster replicates with: the primary's binlog and semi-sync variables,
// each replica's as "r1 NAME".
func (d *db) clusterSettings(ctx context.Context, settings map[string]string) error {
	for _, s := range d.servers() {
		if s == d.srv && d.srv.Killed() {
			continue
		}
		names := []string{"server_id", "log_bin", "binlog_format", "log_slave_updates", "gtid_strict_mode", "read_only"}
		prefix := ""
		if s == d.srv {
			names = append(names, "rpl_semi_sync_master_enabled", "rpl_semi_sync_master_wait_point", "rpl_semi_sync_master_timeout")
		} else {
			names, prefix = append(names, "rpl_semi_sync_slave_enabled"), s.Name+" "
		}
		vars, err := s.Variables(ctx, names...)
		if err != nil {
			return fmt.Errorf("%s: %w", nameOf(s), err)
		}
		for k, v := range vars {
			settings[prefix+k] = v
		}
	}
	return nil
}
