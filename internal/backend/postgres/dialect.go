package postgres

import "github.com/dbgauge/dbgauge/internal/backend"

var dialect = backend.Dialect{
	Name:     "postgres",
	Blob:     "BYTEA",
	Upsert:   backend.OnConflictUpsert,
	HasTable: "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?",
	LockSkip: " FOR UPDATE SKIP LOCKED",
	Clock:    "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)",
}
