package server

import (
	"context"
	"errors"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/netns"
)

// TopologyKnob is --topology, one knob of every managed engine that builds
// a topology (postgres:managed's streaming replicas, mariadb:managed's
// binlog replicas, zrs:managed's ZRS secondaries): declared here once, read
// by each engine's Spec.Own.
var TopologyKnob = knob.Spec{Name: "topology", Default: "none", Kind: knob.Choice, Choices: []string{"none", "1", "2-direct", "2-chain"},
	Usage: "postgres:managed, mariadb:managed, zrs:managed: replicas of the primary: none, one (r1), two following the primary (2-direct), or primary → r1 → r2 (2-chain); PostgreSQL's stream its WAL, MariaDB's replicate its binlog by GTID, ZRS's secondaries replicate its FileStorage"}

// ReplicationKnob is --replication, what a commit on a topology's primary
// waits for: declared here once with every engine's values, each engine
// refusing those it lacks (Spec.Own) in one line.
var ReplicationKnob = knob.Spec{Name: "replication", Default: "async", Kind: knob.Choice, Choices: []string{"async", "sync", "remote_apply", "semi-sync"},
	Usage: "with --topology: async, commits wait for no replica (both engines); postgres:managed: sync, for r1's flush (synchronous_standby_names; 2-direct: FIRST 1 (r1, r2)), remote_apply, for r1 to apply them; mariadb:managed: semi-sync, for a direct replica to have received them (AFTER_SYNC)"}

// Node is one server of a topology: its name and the one it follows (its
// upstream: "primary", or another node's name).
type Node struct{ Name, Follows string }

// Topology is a declared set of servers: a primary and the nodes that
// follow it, directly or through another node, in the order they start
// (an upstream before its followers). The engine says what following is
// (PostgreSQL: a streaming replica; MariaDB: a binlog replica).
type Topology struct {
	Name  string
	Nodes []Node
}

// Primary names the server every topology starts from.
const Primary = "primary"

// Topologies are the topologies of --topology: none, one replica, two
// replicas of the primary (direct), and a chain (primary → r1 → r2).
var Topologies = map[string]Topology{
	"none":     {Name: "none"},
	"1":        {Name: "1", Nodes: []Node{{"r1", Primary}}},
	"2-direct": {Name: "2-direct", Nodes: []Node{{"r1", Primary}, {"r2", Primary}}},
	"2-chain":  {Name: "2-chain", Nodes: []Node{{"r1", Primary}, {"r2", "r1"}}},
}

// NodeNames names the servers of topology name, the primary first (none
// for a topology that is not one).
func NodeNames(name string) []string {
	t, ok := Topologies[name]
	if !ok {
		return nil
	}
	names := []string{Primary}
	for _, n := range t.Nodes {
		names = append(names, n.Name)
	}
	return names
}

// Followers returns the nodes whose upstream (upstreams[i] for nodes[i],
// as StartTopology returns them) is of: the primary's direct replicas, for
// Primary.
func Followers[S any](nodes []S, upstreams []string, of string) []S {
	var out []S
	for i, n := range nodes {
		if upstreams[i] == of {
			out = append(out, n)
		}
	}
	return out
}

// StartTopology starts t's nodes in order, each by follow from its
// upstream (primary, or a node started before it), and returns them with
// their upstreams' names; on an error, the nodes started so far are
// returned with it, for the caller to stop.
func StartTopology[S any](t Topology, primary S, follow func(upstream S, n Node) (S, error)) ([]S, []string, error) {
	byName := map[string]S{Primary: primary}
	var started []S
	var upstreams []string
	for _, n := range t.Nodes {
		s, err := follow(byName[n.Follows], n)
		if err != nil {
			return started, upstreams, err
		}
		byName[n.Name] = s
		started = append(started, s)
		upstreams = append(upstreams, n.Follows)
	}
	return started, upstreams, nil
}

// ClusterNet puts a topology's servers on a network of their own where
// namespaces can be made here (root: netns.Open), so that a partition is
// the kernel's; elsewhere they stay on loopback (a nil Net, a nil Host) and
// a partition is refused. It returns the network and the primary's place
// on it; for the topology "none", nothing. The caller closes the network
// once its servers are gone.
func ClusterNet(ctx context.Context, topology string) (*netns.Net, *netns.Host, error) {
	if topology == "none" {
		return nil, nil, nil
	}
	net, err := netns.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	h, err := net.Add(ctx, Primary)
	if err != nil {
		_ = net.Close()
		return nil, nil, err
	}
	return net, h, nil
}

// IsolatePrimary cuts a topology's primary off from every other node of
// net (netns.Isolate: nftables in its namespace), its clients still
// reaching it, so that its replicas receive nothing more, and says how. The
// cut stays after the primary is killed (undo does nothing), so that its
// kernel delivers nothing it still held; the network goes with the
// cluster. A nil net (loopback) cannot, and says why.
func IsolatePrimary(ctx context.Context, net *netns.Net) (undo func(), how string, err error) {
	how, err = netns.Isolate(ctx, net, Primary)
	return func() {}, how, err
}

// StopAll stops the servers of a cluster cleanly, the last first, and
// removes their folders (their logs stay): one never launched (no
// Process) is only discarded, a nil one skipped. It returns how long the
// first server's stop took, and every stop's error.
func StopAll(servers []*Instance) (time.Duration, error) {
	var first time.Duration
	var errs []error
	for i := len(servers) - 1; i >= 0; i-- {
		s := servers[i]
		switch {
		case s == nil:
			continue
		case s.Process == nil:
			s.Discard()
			continue
		}
		d, err := s.StopClean()
		errs = append(errs, err)
		if i == 0 {
			first = d
		}
	}
	return first, errors.Join(errs...)
}
