package mariadb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/redact"
)

// Nodes is MariaDB's DB on the servers of a cluster another engine started
// and stops (mariadb/galera): a pool on each server, the clients'
// connections all on the first or on each in turn, dbgauge's own reads
// (Engine, Integrity, Limits) on the first; its Stats, Sample and Waits
// sum the servers'. Close closes the pools, not the servers.
type Nodes struct{ *db }

// NodesConfig says which servers Nodes connects to and how.
type NodesConfig struct {
	DSNs   []string // each server's connection string, the first dbgauge's own
	Spread bool     // the clients' connections go to the servers in turn; false: all to the first
	// Classify classifies the engine's own codes before MariaDB's (it
	// returns nil for the others); nil: MariaDB's alone.
	Classify func(error) error
}

// OpenNodes opens a pool on each server of cfg with the run's options
// (isolation, preparation, its --set keys read back by Engine), sized for
// the clients it will carry, and pings each.
func OpenNodes(ctx context.Context, o backend.Options, cfg NodesConfig) (*Nodes, error) {
	if len(cfg.DSNs) == 0 {
		return nil, fmt.Errorf("mariadb: no server to connect to")
	}
	d := &db{prepare: o.Prepare, spread: cfg.Spread}
	if cfg.Classify != nil {
		d.classify = func(err error) error {
			if c := cfg.Classify(err); c != nil {
				return c
			}
			return classify(err)
		}
	}
	for _, kv := range o.Set {
		d.userKeys = append(d.userKeys, kv.Key)
	}
	n := len(cfg.DSNs)
	for i, dsn := range cfg.DSNs {
		dsn, err := withIsolation(dsn, o.Isolation)
		if err == nil {
			dsn, err = withFoundRows(dsn)
		}
		if err != nil {
			d.stop()
			return nil, err
		}
		clients := 0
		switch {
		case cfg.Spread:
			clients = (o.Conns + n - 1 - i) / n // the clients it takes in turn
		case i == 0:
			clients = o.Conns
		}
		p, err := sql.Open("mysql", dsn)
		if err != nil {
			d.stop()
			return nil, err
		}
		p.SetMaxOpenConns(clients + 4)
		p.SetMaxIdleConns(clients + 4)
		d.nodes = append(d.nodes, p)
		if i == 0 {
			d.sql, d.pool = p, clients+4
		}
		if err := p.PingContext(ctx); err != nil {
			d.stop()
			return nil, fmt.Errorf("connect to the cluster's server %d: %s", i+1, redact.DSN(err.Error()))
		}
	}
	return &Nodes{d}, nil
}

// Node is the pool of the cluster's server i (0: the first), for the
// engine's own reads of it.
func (n *Nodes) Node(i int) *sql.DB { return n.nodes[i] }

// Forget drops the idle connections of server i's pool, which died with
// it: the next use dials the server started again.
func (n *Nodes) Forget(i int) {
	p := n.nodes[i]
	p.SetMaxIdleConns(0)
	p.SetMaxIdleConns(p.Stats().MaxOpenConnections)
}

// DurabilitySettings are the server variables a durability level sets
// (innodb_flush_log_at_trx_commit, sync_binlog).
func DurabilitySettings(d backend.Durability) (map[string]string, error) { return mapDurability(d) }
