package postgres

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/dbgauge/dbgauge/internal/backend"
)

var (
	_ backend.Sampler = (*db)(nil)
	_ backend.Waiter  = (*db)(nil)
)

// sampler is the connection Sample reads on, opened at its first use and
// again after the server went away.
type sampler struct {
	mu     sync.Mutex
	conn   *pgx.Conn
	made   bool  // a connection was made once: a lost one is made again
	cannot error // the first connection's failure: not tried again

	// The autovacuum workers' tasks on the workload's database that Waits
	// has seen: those of its last read, each "pid query_start", and how many
	// vacuums and analyzes began in all; watched false until a read.
	vacuuming                 map[string]bool
	autovacuums, autoanalyzes int64
	watched                   bool
}

// sampleQueries are Sample's counters: name, then the expression that
// reads it, from the version (server_version_num) since until the one it
// moved in (0: none).
var sampleQueries = []struct {
	name         string
	since, until int
	expr         string
}{
	{"commits", 0, 0, "(SELECT xact_commit FROM pg_stat_database WHERE datname = $1)"},
	{"blks_read", 0, 0, "(SELECT blks_read FROM pg_stat_database WHERE datname = $1)"},
	{"blks_hit", 0, 0, "(SELECT blks_hit FROM pg_stat_database WHERE datname = $1)"},
	{"temp_bytes", 0, 0, "(SELECT temp_bytes FROM pg_stat_database WHERE datname = $1)"},
	{"wal_bytes", 140000, 0, "(SELECT wal_bytes::bigint FROM pg_stat_wal)"},
	{"checkpoints", 0, 170000, "(SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)"},
	{"checkpoints", 170000, 0, "(SELECT num_timed + num_requested FROM pg_stat_checkpointer)"},
	{"checkpoint_buffers", 0, 170000, "(SELECT buffers_checkpoint FROM pg_stat_bgwriter)"},
	{"checkpoint_buffers", 170000, 0, "(SELECT buffers_written FROM pg_stat_checkpointer)"},
	{"bgwriter_buffers", 0, 0, "(SELECT buffers_clean FROM pg_stat_bgwriter)"},
}

// Sample reads the server's cumulative counters in one statement on a
// connection of its own: the database's commits (its backends publish them
// at most once a second), blocks read and hit, temporary bytes, the WAL's
// bytes, the checkpoints and the buffers they and the background writer
// wrote. The connection is to another database of the server ("postgres",
// or "template1" when the workload's is "postgres"), so that the samples'
// own transactions are not the workload database's; where it cannot be
// made, Sample says so and does not try again.
func (d *db) Sample(ctx context.Context) (map[string]int64, error) {
	var names, exprs []string
	for _, q := range sampleQueries {
		if d.version >= q.since && (q.until == 0 || d.version < q.until) {
			names, exprs = append(names, q.name), append(exprs, q.expr)
		}
	}
	d.samples.mu.Lock()
	defer d.samples.mu.Unlock()
	c, err := d.samplerConn(ctx)
	if err != nil {
		return nil, err
	}
	vals := make([]int64, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := c.QueryRow(ctx, "SELECT "+strings.Join(exprs, ", "), d.cfg.Database).Scan(ptrs...); err != nil {
		d.dropSampler(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("sampling the server's counters: %w", classify(err))
	}
	m := make(map[string]int64, len(names)+2)
	for i, n := range names {
		m[n] = vals[i]
	}
	if d.samples.watched {
		m["autovacuums"], m["autoanalyzes"] = d.samples.autovacuums, d.samples.autoanalyzes
	}
	return m, nil
}

// samplerConn is Sample's and Waits' connection, made when there is none,
// with d.samples.mu held.
func (d *db) samplerConn(ctx context.Context) (*pgx.Conn, error) {
	if d.samples.cannot != nil {
		return nil, d.samples.cannot
	}
	if d.samples.conn == nil || d.samples.conn.IsClosed() {
		cfg := d.cfg.Copy()
		cfg.Database = "postgres"
		if d.cfg.Database == "postgres" {
			cfg.Database = "template1" // never copied by dbgauge (CREATE DATABASE)
		}
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			err = fmt.Errorf("sampling the server's counters from its %s database: %w", cfg.Database, classify(err))
			if !d.samples.made && ctx.Err() == nil {
				d.samples.cannot = err
			}
			return nil, err
		}
		d.samples.conn, d.samples.made = c, true
	}
	return d.samples.conn, nil
}

// closeSampler closes Sample's connection.
func (d *db) closeSampler() {
	d.samples.mu.Lock()
	defer d.samples.mu.Unlock()
	d.dropSampler(context.Background())
}

// dropSampler closes Sample's connection, with d.samples.mu held.
func (d *db) dropSampler(ctx context.Context) {
	if d.samples.conn != nil {
		_ = d.samples.conn.Close(ctx)
		d.samples.conn = nil
	}
}

// Waits counts the workload database's client backends that are waiting,
// by wait_event_type:wait_event (pg_stat_activity), on Sample's connection:
// those running a statement, and those idle in a transaction as
// "Client:ClientRead (idle in transaction)"; a backend running on a CPU is
// "CPU" (no wait event). The same read notes each autovacuum worker's task
// on the workload's database: one not seen at the last read is an
// autovacuum or an autoanalyze that began ("autovacuums" and
// "autoanalyzes" in Sample). A task shorter than the time between two
// reads may be missed.
func (d *db) Waits(ctx context.Context) (map[string]int, error) {
	d.samples.mu.Lock()
	defer d.samples.mu.Unlock()
	c, err := d.samplerConn(ctx)
	if err != nil {
		return nil, err
	}
	// An autovacuum worker's row: its task (query: "autovacuum: VACUUM
	// ANALYZE public.t", PostgreSQL's own words), "pid query_start", 0.
	rows, err := c.Query(ctx, `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU'), state, count(*)
		FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND state IN ('active', 'idle in transaction')
		GROUP BY 1, 2
		UNION ALL
		SELECT query, pid || ' ' || query_start, 0 FROM pg_stat_activity
		WHERE datname = $1 AND backend_type = 'autovacuum worker' AND query_start IS NOT NULL AND query LIKE 'autovacuum: %'`, d.cfg.Database)
	if err != nil {
		d.dropSampler(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("reading the server's waits: %w", classify(err))
	}
	out := map[string]int{}
	tasks := map[string]bool{}
	for rows.Next() {
		var wait, state string
		var n int
		if err := rows.Scan(&wait, &state, &n); err != nil {
			rows.Close()
			return nil, classify(err)
		}
		switch {
		case n == 0:
			tasks[state] = true
			if !d.samples.vacuuming[state] {
				vacuum, analyze := autovacuumTask(wait)
				d.samples.autovacuums += vacuum
				d.samples.autoanalyzes += analyze
			}
		case state != "active":
			out[wait+" (idle in transaction)"] += n
		default:
			out[wait] += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	d.samples.vacuuming, d.samples.watched = tasks, true
	return out, nil
}

// autovacuumTask says whether an autovacuum worker's query, "autovacuum:
// VACUUM public.t", "autovacuum: VACUUM ANALYZE public.t (to prevent
// wraparound)" or "autovacuum: ANALYZE public.t", is a vacuum, an analyze
// or both, as 1 or 0 each.
func autovacuumTask(query string) (vacuum, analyze int64) {
	task, _ := strings.CutPrefix(query, "autovacuum: ")
	switch {
	case strings.HasPrefix(task, "VACUUM ANALYZE "):
		return 1, 1
	case strings.HasPrefix(task, "VACUUM "):
		return 1, 0
	case strings.HasPrefix(task, "ANALYZE "):
		return 0, 1
	}
	return 0, 0
}
