package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/netns"
	"github.com/dbgauge/dbgauge/internal/server"
)

// syncNames is synchronous_standby_names for a topology: a cascading
// replica cannot be synchronous, so a chain has one synchronous standby.
var syncNames = map[string]string{"1": "r1", "2-direct": "FIRST 1 (r1, r2)", "2-chain": "r1"}

// clusterConfig is what --topology, --replication and --read-from ask.
type clusterConfig struct {
	topology    string
	replication string // async, sync, remote_apply
	readReplica bool   // --read-from replicas
}

// parseCluster checks the cluster knobs against the run's other options and
// adds the primary's settings.
func parseCluster(o backend.Options, settings map[string]string, socket bool) (clusterConfig, error) {
	c := ownOf(o).cluster
	switch {
	case c.topology == "none":
		// Without replicas there is nothing to replicate or read from: in a
		// matrix (--topology none,1 --replication async,sync) the none cells
		// run as they are.
		c.replication, c.readReplica = "none", false
		return c, nil
	case !isManaged(o.DB):
		return c, knob.Bad("use --db postgres:managed with --topology", "dbgauge builds replicas only of a server it manages")
	case socket:
		return c, knob.Bad("drop --socket: clients reach a cluster over TCP, through every server's port", "--socket with --topology")
	case c.replication != "async" && o.Durability != backend.Sync:
		return c, knob.Bad("use --durability sync with --replication "+c.replication, "--replication %s waits for a standby at commit, which --durability %s does not", c.replication, o.Durability)
	}
	if c.replication != "async" {
		settings["synchronous_standby_names"] = syncNames[c.topology]
		settings["synchronous_commit"] = "on"
		if c.replication == "remote_apply" {
			settings["synchronous_commit"] = "remote_apply"
		}
	}
	return c, nil
}

// startReplicas starts the topology's replicas of the managed primary, each
// with the primary's settings but those only a primary may have.
func (d *db) startReplicas(ctx context.Context, dir string, settings map[string]string) error {
	rs := map[string]string{}
	for k, v := range settings {
		if k != "synchronous_standby_names" && !strings.HasPrefix(k, "archive_") {
			rs[k] = v
		}
	}
	var err error
	d.replicas, d.upstream, err = server.StartTopology(server.Topologies[d.cluster.topology], d.srv, func(up *Server, n server.Node) (*Server, error) {
		in, err := d.srv.Replica(ctx, d.net, n.Name)
		if err != nil {
			return nil, err
		}
		return up.StartReplica(ctx, in, n.Name, filepath.Join(dir, "postgres-"+n.Name+".log"), rs)
	})
	return err
}

// clusterDSN is a connection string naming every server, which connects to
// the one that accepts writes (target_session_attrs): after a failover,
// clients reconnect to the promoted replica through it.
func (d *db) clusterDSN() string {
	hosts := []string{d.srv.ListenAddr() + ":" + strconv.Itoa(d.srv.Port)}
	for _, r := range d.replicas {
		hosts = append(hosts, r.ListenAddr()+":"+strconv.Itoa(r.Port))
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(d.srv.User, d.srv.Password), Host: strings.Join(hosts, ","), Path: "/" + d.srv.Database}
	u.RawQuery = url.Values{"sslmode": {"disable"}, "target_session_attrs": {"read-write"}}.Encode()
	return u.String()
}

// stopReplicas stops the replicas, the last first.
func (d *db) stopReplicas() {
	for i := len(d.replicas) - 1; i >= 0; i-- {
		_, _ = d.replicas[i].StopClean()
	}
}

// clusterDB is what Open returns for a managed primary with replicas.
type clusterDB struct{ managedDB }

var _ backend.Cluster = clusterDB{}

// Topology names the topology and the replication the cluster was built with.
func (c clusterDB) Topology() (string, string) { return c.cluster.topology, c.cluster.replication }

// Nodes lists the primary and its replicas.
func (c clusterDB) Nodes() []backend.Node {
	d := c.db
	nodes := []backend.Node{backend.NodeOf(d.srv.Instance, server.Primary, "")}
	sync := syncNames[d.cluster.topology]
	for i, r := range d.replicas {
		n := backend.NodeOf(r.Instance, r.Name, d.upstream[i])
		n.Sync = d.cluster.replication != "async" && d.upstream[i] == server.Primary && strings.Contains(sync, r.Name)
		nodes = append(nodes, n)
	}
	return nodes
}

// live returns the servers still running: the primary unless it was
// killed, and the replicas.
func (d *db) live() []*Server {
	var out []*Server
	if !d.srv.Killed() {
		out = append(out, d.srv)
	}
	return append(out, d.replicas...)
}

// Lag asks every live upstream how far its replicas are behind it.
func (c clusterDB) Lag(ctx context.Context) (map[string]float64, error) {
	m := map[string]float64{}
	var errs []error
	for _, s := range c.live() {
		lags, err := s.Lags(ctx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, l := range lags {
			m["lag_bytes:"+l.Name] = l.Bytes
			m["replay_lag_ms:"+l.Name] = l.ReplayMs
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

// OnNode is the server named node (primary, r1, r2) killed and restarted
// on its data by --fault kill-at=D,node=NODE: the replicas stream on, a
// restarted replica catches up, a restarted primary is the primary again.
func (c clusterDB) OnNode(node string) backend.Recoverer { return nodeFault{c, node} }

// nodeFault is one server of a cluster killed and restarted.
type nodeFault struct {
	c    clusterDB
	node string
}

// CrashRestart kills the server with SIGKILL and starts it again on its
// data, on the same address and port; it returns once it accepts
// connections, its recovery noted with its name.
func (n nodeFault) CrashRestart(ctx context.Context) error {
	d := n.c.db
	srv, names := (*Server)(nil), []string{server.Primary}
	if n.node == server.Primary && !d.srv.Killed() {
		srv = d.srv
	}
	for _, r := range d.replicas {
		names = append(names, r.Name)
		if r.Name == n.node {
			srv = r
		}
	}
	if srv == nil {
		return fmt.Errorf("the cluster has no running server %s (its servers: %s)", n.node, strings.Join(names, ", "))
	}
	return n.c.Recover(ctx, func(ctx context.Context) (string, error) {
		note, err := srv.CrashRestart(ctx)
		return n.node + " killed and restarted: " + note, err
	})
}

// Network is the cluster's network (nil: its servers are on loopback);
// its nodes are primary, r1, r2.
func (c clusterDB) Network() *netns.Net { return c.net }

// IsolatePrimary cuts the primary off from every replica on the cluster's
// network (server.IsolatePrimary), its clients still reaching it: the
// replicas receive no more WAL, and a primary that does not wait for a
// standby goes on acknowledging commits they will never have.
func (c clusterDB) IsolatePrimary(ctx context.Context) (func(), string, error) {
	return server.IsolatePrimary(ctx, c.net)
}

// KillPrimary kills the primary's process group and waits until it is gone.
func (c clusterDB) KillPrimary(context.Context) error { return c.srv.Kill() }

// Promote promotes the direct replica that received the most WAL.
func (c clusterDB) Promote(ctx context.Context) (string, error) {
	d := c.db
	var best *Server
	bestLSN := -1.0
	for _, r := range d.direct() {
		lsn, err := r.ReceivedLSN(ctx)
		if err != nil {
			continue
		}
		if lsn > bestLSN {
			best, bestLSN = r, lsn
		}
	}
	if best == nil {
		return "", errors.New("no replica of the primary answers: none to promote")
	}
	if err := best.Promote(ctx); err != nil {
		return best.Name, err
	}
	d.promoted = best
	return best.Name, nil
}

// Repoint makes the old primary's other replicas stream from the promoted
// one; a chain's replica already streams from it.
func (c clusterDB) Repoint(ctx context.Context) error {
	d := c.db
	if d.promoted == nil {
		return errors.New("nothing was promoted")
	}
	for _, r := range d.direct() {
		if r != d.promoted {
			if err := r.Follow(ctx, d.promoted); err != nil {
				return err
			}
		}
	}
	return nil
}

// Health reads which live servers accept writes and what each replica
// streams from.
func (c clusterDB) Health(ctx context.Context) (backend.ClusterHealth, error) {
	d := c.db
	h := backend.ClusterHealth{Following: map[string]string{}}
	ports := map[string]string{strconv.Itoa(d.srv.Port): "primary"}
	for _, r := range d.replicas {
		ports[strconv.Itoa(r.Port)] = r.Name
	}
	var errs []error
	for _, s := range d.live() {
		name := s.Name
		if name == "" {
			name = "primary"
		}
		standby, err := s.InRecovery(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		if !standby {
			h.Writable = append(h.Writable, name)
			continue
		}
		streaming, port, err := s.Receiving(ctx)
		switch {
		case err != nil:
			h.Following[name] = "unreadable: " + err.Error()
		case !streaming:
			h.Following[name] = "not streaming"
		default:
			h.Following[name] = "streaming from " + ports[port]
		}
	}
	slices.Sort(h.Writable)
	return h, errors.Join(errs...)
}

// RouteReads makes the connections opened from now on go to the replicas
// in turn, with --read-from replicas (the data is loaded through the
// primary before). It reports whether it did.
func (c clusterDB) RouteReads() (bool, error) {
	d := c.db
	if !d.cluster.readReplica {
		return false, nil
	}
	for _, r := range d.replicas {
		cfg, err := d.configFor(r)
		if err != nil {
			return false, err
		}
		d.readers = append(d.readers, cfg)
	}
	return true, nil
}
