package mariadb

import (
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// isolationDoc says what --isolation sets (MariaDB's documentation, "SET
// TRANSACTION" and "InnoDB Lock Modes"; Hermitage's mysql.md shows the
// same levels on MySQL 5.6).
var isolationDoc = map[backend.Isolation]string{
	backend.DefaultIsolation: "the server's tx_isolation (REPEATABLE-READ unless configured); read back per session",
	backend.ReadUncommitted:  "tx_isolation = 'READ-UNCOMMITTED' for every session: plain reads see rows other transactions have not committed",
	backend.ReadCommitted:    "tx_isolation = 'READ-COMMITTED' for every session: each plain read sees a fresh snapshot; writes lock the rows they change",
	backend.RepeatableRead:   "tx_isolation = 'REPEATABLE-READ' for every session: plain reads see the transaction's first snapshot, while writes and locking reads act on the latest committed rows (no write-conflict error unless innodb_snapshot_isolation=ON)",
	backend.Serializable:     "tx_isolation = 'SERIALIZABLE' for every session: REPEATABLE READ whose plain reads take shared locks; conflicts wait or end in a deadlock error (1213)",
}

// withIsolation returns dsn with the session variable that gives every
// connection of the pool isolation l (go-sql-driver/mysql sets a DSN
// parameter it does not know as a system variable when it connects:
// SET tx_isolation='READ-COMMITTED'); dsn itself for the default.
func withIsolation(dsn string, l backend.Isolation) (string, error) {
	if l == "" || l == backend.DefaultIsolation {
		return dsn, nil
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", err
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["tx_isolation"] = "'" + strings.ToUpper(string(l)) + "'"
	return cfg.FormatDSN(), nil
}

// withFoundRows returns dsn asking the server for the rows a statement
// matched, not those it changed (CLIENT_FOUND_ROWS), as every other
// engine counts them: an UPDATE that adds 0 to a row it found is one row,
// not none (tpcb draws a delta of 0 once in 10,001 updates).
func withFoundRows(dsn string) (string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", err
	}
	cfg.ClientFoundRows = true
	return cfg.FormatDSN(), nil
}

// levelOf is --isolation's word for tx_isolation's value.
func levelOf(v string) string { return strings.ToLower(strings.TrimSpace(v)) }
