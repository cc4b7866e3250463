package postgres

import "github.com/dbgauge/dbgauge/internal/backend"

var dialect = backend.Dialect{
	Name: "postgres",
	Blob: "BYTEA",
	// INSERT INTO t(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v
	HasTable: "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?",
	Upsert: func(table string) string {
		return "INSERT INTO " + table + "(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v"
	},
}
