package zrs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/server"
)

// clusterDB is what Open returns for a primary with secondaries.
type clusterDB struct{ *db }

var _ backend.Cluster = clusterDB{}

// Topology names the topology; ZRS replicates asynchronously.
func (c clusterDB) Topology() (string, string) { return c.topology, "async" }

// Nodes lists the primary and its secondaries.
func (c clusterDB) Nodes() []backend.Node {
	nodes := []backend.Node{backend.NodeOf(c.srv.Instance, server.Primary, "")}
	for i, s := range c.secondaries {
		nodes = append(nodes, backend.NodeOf(s.Instance, s.Name, c.upstream[i]))
	}
	return nodes
}

// byName returns the server named name, nil for a primary killed.
func (d *db) byName(name string) *Server {
	if name == server.Primary {
		if d.srv.Killed() {
			return nil
		}
		return d.srv
	}
	for _, s := range d.secondaries {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Lag reads, beside each live secondary and its upstream, their files'
// last committed transactions: lag_bytes the upstream's file holds beyond
// the secondary's (ZRS writes the same records), replay_lag_ms how much
// older the secondary's last transaction is (a tid is its commit time).
func (c clusterDB) Lag(context.Context) (map[string]float64, error) {
	m := map[string]float64{}
	var errs []error
	for i, s := range c.secondaries {
		up := c.byName(c.upstream[i])
		if up == nil || s.from == 0 {
			continue // its upstream was killed, or it was promoted
		}
		upTID, upSize, err := lastTID(up.File())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tid, size, err := lastTID(s.File())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		m["lag_bytes:"+s.Name] = float64(max(upSize-size, 0))
		m["replay_lag_ms:"+s.Name] = max(float64(tidTime(upTID).Sub(tidTime(tid)).Microseconds())/1000, 0)
	}
	return m, errors.Join(errs...)
}

// direct returns the secondaries that follow the primary itself.
func (d *db) direct() []*Server { return server.Followers(d.secondaries, d.upstream, server.Primary) }

// IsolatePrimary stops the primary's own secondaries' processes (SIGSTOP
// to each one's process group: a ZRS secondary replicates in its ZEO
// server's process), so that they fall behind; undo continues them (what
// the primary sent before it died is in their sockets, as it would be on a
// network). ZRS's servers are on loopback: this is a pause, not a
// partition.
func (c clusterDB) IsolatePrimary(context.Context) (func(), string, error) {
	var stopped []*Server
	resume := func() {
		for _, s := range stopped {
			_ = syscall.Kill(-s.Pid(), syscall.SIGCONT)
		}
	}
	var names []string
	for _, s := range c.direct() {
		if err := syscall.Kill(-s.Pid(), syscall.SIGSTOP); err != nil {
			resume()
			return nil, "", fmt.Errorf("stop %s: %w", s.Name, err)
		}
		stopped = append(stopped, s)
		names = append(names, s.Name)
	}
	return resume, "the secondaries " + strings.Join(names, ", ") + " stopped (SIGSTOP)", nil
}

// KillPrimary kills the primary's process group and waits until it is gone.
func (c clusterDB) KillPrimary(context.Context) error { return c.srv.Kill() }

// Promote restarts the direct secondary whose file holds the latest
// transaction as a primary on its replicated data (a clean stop, then
// runzeo with replicate-to alone, writable) on the killed primary's port,
// the address the clients keep trying, their caches dropped first; it
// returns once it serves.
func (c clusterDB) Promote(ctx context.Context) (string, error) {
	var best *Server
	var bestTID [8]byte
	for _, s := range c.direct() {
		tid, _, err := lastTID(s.File())
		if err != nil {
			continue
		}
		if best == nil || string(tid[:]) > string(bestTID[:]) {
			best, bestTID = s, tid
		}
	}
	if best == nil {
		return "", errors.New("no secondary of the primary has a readable FileStorage: none to promote")
	}
	// The clients saw the killed primary's last transactions, which the
	// promoted secondary may lack: ZEO's clients would refuse it.
	if err := c.ForgetCaches(ctx); err != nil {
		return "", fmt.Errorf("drop the clients' caches: %w", err)
	}
	if err := best.become(ctx, c.srv.Port, 0); err != nil {
		return best.Name, err
	}
	c.primary = best
	return best.Name, nil
}

// Repoint restarts the old primary's other direct secondaries replicating
// from the promoted one; a chain's r2 already follows it.
func (c clusterDB) Repoint(ctx context.Context) error {
	if c.primary == c.srv {
		return errors.New("nothing was promoted")
	}
	for i, s := range c.secondaries {
		if c.upstream[i] == server.Primary && s != c.primary {
			if err := s.become(ctx, s.Port, c.primary.repl); err != nil {
				return err
			}
			c.upstream[i] = c.primary.Name
		}
	}
	return nil
}

// Health reads back from each live server's log whether it serves writes
// (StorageServer created RW) and, for a secondary, what its replication
// last said of its upstream.
func (c clusterDB) Health(context.Context) (backend.ClusterHealth, error) {
	h := backend.ClusterHealth{Following: map[string]string{}}
	names := map[int]string{}
	for _, s := range c.servers() {
		names[s.repl] = s.Name
	}
	for _, s := range c.servers() {
		if s == c.srv && c.srv.Killed() {
			continue
		}
		switch role := s.Role(); role {
		case "RW":
			h.Writable = append(h.Writable, s.Name)
		case "RO":
			port, said := s.Replicating()
			h.Following[s.Name] = fmt.Sprintf("replicating from %s (%s)", names[port], said)
		default:
			h.Following[s.Name] = "its log says no role"
		}
	}
	slices.Sort(h.Writable)
	return h, nil
}
