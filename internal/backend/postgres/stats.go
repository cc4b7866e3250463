package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Stats reads the server's cumulative statistics of this database, and
// the dead tuples of each user table that holds some or was changed
// (dead_tuples.TABLE).
//
// PostgreSQL's backends publish their counters when a transaction ends (at
// most once a second) and when they exit, so Stats first waits, up to 5 s,
// until the backends of connections already closed have exited. It reads in
// one transaction of its own; "commits" excludes the transactions of
// dbgauge's own reads, so that a delta counts the workload's exactly.
func (d *db) Stats(ctx context.Context) (map[string]int64, error) {
	c, err := d.connect(ctx)
	if err != nil {
		return nil, classify(err)
	}
	defer c.Close(ctx)
	tx, err := c.Begin(ctx)
	if err != nil {
		return nil, classify(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // read only; committed below
	self := d.self.Load()
	if err := d.settled(ctx, tx); err != nil {
		return nil, classify(err)
	}
	m := map[string]int64{}
	read := func(q string, names ...string) error {
		vals := make([]int64, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := tx.QueryRow(ctx, q).Scan(ptrs...); err != nil {
			return err
		}
		for i, n := range names {
			m[n] = vals[i]
		}
		return nil
	}
	for _, q := range statQueries {
		if d.version < q.since || (q.until != 0 && d.version >= q.until) {
			continue
		}
		if err := read(q.q, q.names...); err != nil {
			return nil, classify(err)
		}
	}
	if err := deadTuples(ctx, tx, m); err != nil {
		return nil, classify(err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, classify(err)
	}
	d.self.Add(1)
	m["commits"] -= self
	return m, nil
}

// statQueries are Stats' reads, each from the server version since (as
// server_version_num) until the one where it moved.
var statQueries = []struct {
	since, until int
	q            string
	names        []string
}{
	{0, 0, `SELECT xact_commit, xact_rollback, blks_hit, blks_read, deadlocks, tup_inserted, tup_updated, tup_deleted, temp_bytes
		FROM (SELECT pg_stat_clear_snapshot()) s, pg_stat_database WHERE datname = current_database()`,
		[]string{"commits", "rollbacks", "blks_hit", "blks_read", "deadlocks", "tup_inserted", "tup_updated", "tup_deleted", "temp_bytes"}},
	// pg_stat_wal arrived in 14; wal_sync counts the WAL flushes. 18 moved
	// the writes and the flushes to pg_stat_io.
	{140000, 180000, `SELECT wal_records, wal_bytes::bigint, wal_write, wal_sync FROM pg_stat_wal`,
		[]string{"wal_records", "wal_bytes", "wal_writes", "flushes"}},
	{180000, 0, `SELECT wal_records, wal_bytes::bigint FROM pg_stat_wal`, []string{"wal_records", "wal_bytes"}},
	{180000, 0, `SELECT coalesce(sum(writes), 0)::bigint, coalesce(sum(fsyncs), 0)::bigint FROM pg_stat_io WHERE object = 'wal' AND context = 'normal'`,
		[]string{"wal_writes", "flushes"}},
	// 17 moved the checkpoints to pg_stat_checkpointer.
	{0, 170000, `SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter`, []string{"checkpoints"}},
	{170000, 0, `SELECT num_timed + num_requested FROM pg_stat_checkpointer`, []string{"checkpoints"}},
	{0, 0, `SELECT coalesce(sum(n_dead_tup), 0)::bigint, coalesce(sum(n_live_tup), 0)::bigint FROM pg_stat_user_tables`,
		[]string{"dead_tuples", "live_tuples"}},
	// The next transaction id: only writing transactions take one.
	{130000, 0, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`, []string{"write_xacts"}},
}

// settled waits, up to 5 s, until no backend of the database is left but
// this one and the workload's open connections: a closed connection's
// backend publishes its counters as it exits.
func (d *db) settled(ctx context.Context, tx pgx.Tx) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var others int64
		err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT pg_stat_clear_snapshot()) s, pg_stat_activity
			WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`).Scan(&others)
		if err != nil {
			return err
		}
		if others <= d.open.Load() || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// deadTuples reads each user table's dead tuples, the garbage its updates
// and deletes left (Firebird's record back versions, versions.TABLE): where
// it comes from, table by table, into m as dead_tuples.TABLE.
func deadTuples(ctx context.Context, tx pgx.Tx, m map[string]int64) error {
	rows, err := tx.Query(ctx, `SELECT relname, n_dead_tup FROM pg_stat_user_tables WHERE n_dead_tup > 0 OR n_tup_upd + n_tup_del > 0`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			rows.Close()
			return err
		}
		m["dead_tuples."+name] = n
	}
	rows.Close()
	return rows.Err()
}
