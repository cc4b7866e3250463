package sqlite

import "github.com/dbgauge/dbgauge/internal/backend"

var dialect = backend.Dialect{
	Name: "sqlite",
	Blob: "BLOB",
	// INSERT INTO t(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v
	HasTable: "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
	Upsert: func(table string) string {
		return "INSERT INTO " + table + "(k, v) VALUES(?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v"
	},
}
