// Package catalog is THE registry: the literal lists of every workload and
// every backend dbgauge has. Adding one is one folder and one line here.
// `dbgauge list` and docs/knobs.md are generated from these lists.
package catalog

import (
	"context"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/bbolt"
	"github.com/dbgauge/dbgauge/internal/backend/bdb"
	"github.com/dbgauge/dbgauge/internal/backend/etcd"
	"github.com/dbgauge/dbgauge/internal/backend/firebird"
	"github.com/dbgauge/dbgauge/internal/backend/gdbm"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb"
	"github.com/dbgauge/dbgauge/internal/backend/mariadb/galera"
	"github.com/dbgauge/dbgauge/internal/backend/pebble"
	"github.com/dbgauge/dbgauge/internal/backend/postgres"
	"github.com/dbgauge/dbgauge/internal/backend/redis"
	"github.com/dbgauge/dbgauge/internal/backend/sqlite"
	"github.com/dbgauge/dbgauge/internal/backend/zodb"
	"github.com/dbgauge/dbgauge/internal/backend/zodb/neo"
	"github.com/dbgauge/dbgauge/internal/backend/zodb/relstorage"
	"github.com/dbgauge/dbgauge/internal/backend/zodb/zeo"
	"github.com/dbgauge/dbgauge/internal/backend/zodb/zrs"
	"github.com/dbgauge/dbgauge/internal/pyworker"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/workload"
	"github.com/dbgauge/dbgauge/internal/workload/insert"
	"github.com/dbgauge/dbgauge/internal/workload/kv"
	"github.com/dbgauge/dbgauge/internal/workload/listappend"
	"github.com/dbgauge/dbgauge/internal/workload/nms"
	"github.com/dbgauge/dbgauge/internal/workload/objects"
	"github.com/dbgauge/dbgauge/internal/workload/oltpemul"
	"github.com/dbgauge/dbgauge/internal/workload/script"
	"github.com/dbgauge/dbgauge/internal/workload/tpcb"
	"github.com/dbgauge/dbgauge/internal/workload/tpcc"
)

// Workloads lists every workload, in the order `dbgauge list` shows them.
func Workloads() []workload.Spec {
	return []workload.Spec{
		nms.Spec,
		insert.Spec,
		tpcb.Spec,
		tpcc.Spec,
		kv.Spec,
		objects.Spec,
		oltpemul.Spec,
		script.Spec,
		listappend.Spec,
	}
}

// Backends lists every backend. The first one is the default.
func Backends() []backend.Spec {
	return []backend.Spec{
		sqlite.Spec,
		bbolt.Spec,
		gdbm.Spec,
		pebble.Spec,
		bdb.Hash,
		bdb.Btree,
		postgres.Spec,
		mariadb.Spec,
		galera.Spec,
		firebird.Spec,
		zodb.Spec,
		zeo.Spec,
		zrs.Spec,
		neo.Spec,
		relstorage.Spec(relstorage.Servers{Start: startPostgres, Reopen: reopenPostgres}),
		redis.Spec,
		etcd.Spec,
	}
}

// Environments lists the pinned Python environments of the engines run in a
// worker process: what `dbgauge engines install NAME` makes.
func Environments() []pyworker.Env {
	return []pyworker.Env{zodb.Env, zrs.Env, relstorage.Env, neo.Env}
}

// startPostgres starts the postgres engine's managed server for an engine
// that keeps its data in one (RelStorage): catalog joins the two, as an
// engine never imports another.
func startPostgres(ctx context.Context, cfg server.Config, settings map[string]string) (*relstorage.Postgres, error) {
	s, err := postgres.Start(ctx, postgres.ServerConfig{Config: cfg, Settings: settings})
	if err != nil {
		return nil, err
	}
	return &relstorage.Postgres{Instance: s.Instance, DSN: s.DSN(false), Rules: postgres.LogRules, CrashRestart: s.CrashRestart}, nil
}

// reopenPostgres starts the postgres engine's server again on a killed
// one's cluster (its Unix socket, local connections trusted), for
// RelStorage's crash cycle.
func reopenPostgres(ctx context.Context, dataDir, logPath string) (*relstorage.Postgres, error) {
	s, err := postgres.Reopen(ctx, dataDir, logPath, "")
	if err != nil {
		return nil, err
	}
	return &relstorage.Postgres{Instance: s.Instance, DSN: s.DSN(true), Rules: postgres.LogRules, CrashRestart: s.CrashRestart}, nil
}

// Workload returns the workload named name.
func Workload(name string) (workload.Spec, bool) {
	for _, w := range Workloads() {
		if w.Name == name {
			return w, true
		}
	}
	return workload.Spec{}, false
}

// Backend returns the backend that accepts the --db value db.
func Backend(db string) (backend.Spec, bool) {
	for _, b := range Backends() {
		if b.Match(db) {
			return b, true
		}
	}
	return backend.Spec{}, false
}

// WorkloadNames and BackendNames list the names, for hints.
func WorkloadNames() []string {
	var out []string
	for _, w := range Workloads() {
		out = append(out, w.Name)
	}
	return out
}

// BackendNames lists the backend names.
func BackendNames() []string {
	var out []string
	for _, b := range Backends() {
		out = append(out, b.Name)
	}
	return out
}

// Throwaways lists, in catalog order, the fresh --db form (Spec.Throwaway)
// of every engine for which has holds: what a hint of bad input offers.
func Throwaways(has func(backend.Spec) bool) []string {
	var out []string
	for _, b := range Backends() {
		if has(b) {
			out = append(out, b.Throwaway)
		}
	}
	return out
}
