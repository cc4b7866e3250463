package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Integrity runs amcheck over the current schema: verify_heapam on every
// table (from PostgreSQL 14) and bt_index_check on every B-tree index. amcheck ships with
// PostgreSQL (contrib); creating the extension needs a superuser, which the
// managed server's user is.
func (d *db) Integrity(ctx context.Context) (bool, string, error) {
	c, err := d.connect(ctx)
	if err != nil {
		return false, "", classify(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS amcheck"); err != nil {
		return false, "", fmt.Errorf("amcheck: %w", classify(err))
	}
	// verify_heapam arrived with amcheck 1.3, in PostgreSQL 14: on 13 only
	// the indexes are checked, and the line says so.
	var problems []string
	heap := "tables"
	if d.version >= 140000 {
		if problems, err = heapProblems(ctx, c); err != nil {
			return false, "", err
		}
	} else {
		heap = "tables, their heaps unchecked (verify_heapam is 14's)"
	}
	var tables, indexes int64
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind = 'r'`).Scan(&tables); err != nil {
		return false, "", classify(err)
	}
	// bt_index_check raises an error on the first corrupt index.
	if err := c.QueryRow(ctx, `SELECT count(bt_index_check(c.oid)) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		JOIN pg_am a ON a.oid = c.relam AND a.amname = 'btree' WHERE c.relkind = 'i'`).Scan(&indexes); err != nil {
		problems = append(problems, "bt_index_check: "+err.Error())
	}
	if len(problems) > 0 {
		return false, "amcheck: " + strings.Join(problems, "; "), nil
	}
	return true, fmt.Sprintf("amcheck: ok (%d %s, %d B-tree indexes)", tables, heap, indexes), nil
}

// heapProblems runs verify_heapam on every table of the current schema and
// returns the first five problems it reports.
func heapProblems(ctx context.Context, c *pgx.Conn) ([]string, error) {
	var problems []string
	rows, err := c.Query(ctx, `SELECT c.relname, v.blkno, v.msg FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
		CROSS JOIN LATERAL verify_heapam(c.oid) v WHERE c.relkind = 'r'`)
	if err != nil {
		return nil, classify(err)
	}
	for rows.Next() {
		var rel, msg string
		var blk *int64
		if err := rows.Scan(&rel, &blk, &msg); err != nil {
			rows.Close()
			return nil, classify(err)
		}
		if len(problems) < 5 {
			problems = append(problems, fmt.Sprintf("%s: %s", rel, msg))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(err)
	}
	return problems, nil
}
