package sqlite

import "github.com/dbgauge/dbgauge/internal/backend"

var dialect = backend.Dialect{
	Name:     "sqlite",
	Blob:     "BLOB",
	Upsert:   backend.OnConflictUpsert,
	HasTable: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
}
