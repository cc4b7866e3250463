package postgres

import (
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// isolationDoc says what --isolation sets (PostgreSQL 15 documentation,
// 13.2 "Transaction Isolation").
var isolationDoc = map[backend.Isolation]string{
	backend.DefaultIsolation: "the server's default_transaction_isolation (read committed unless configured); read back",
	backend.ReadUncommitted:  "default_transaction_isolation = 'read uncommitted', which PostgreSQL runs as read committed (13.2: \"PostgreSQL's Read Uncommitted mode behaves like Read Committed\")",
	backend.ReadCommitted:    "default_transaction_isolation = 'read committed': each statement sees the rows committed before it began; an update of a row changed since waits, then re-reads it",
	backend.RepeatableRead:   "default_transaction_isolation = 'repeatable read': snapshot isolation, one snapshot per transaction; updating a row changed since fails with 40001",
	backend.Serializable:     "default_transaction_isolation = 'serializable': serializable snapshot isolation (SSI); a dangerous structure of read/write dependencies fails one transaction with 40001",
}

// isolationSetting returns default_transaction_isolation's value for l, or
// "" for the server's default. It is set like any parameter: at the start
// of a managed server (-c), else for each session (a runtime parameter of
// the connection), so that every connection, dbgauge's own read-back
// included, begins its transactions at l.
func isolationSetting(l backend.Isolation) string {
	if l == "" || l == backend.DefaultIsolation {
		return ""
	}
	return strings.ReplaceAll(string(l), "-", " ")
}

// applyIsolation puts l into settings, refusing a --set that says otherwise.
func applyIsolation(settings map[string]string, l backend.Isolation) error {
	want := isolationSetting(l)
	if want == "" {
		return nil
	}
	if v, ok := settings["default_transaction_isolation"]; ok && !strings.EqualFold(strings.Trim(v, "'"), want) {
		return knob.Bad("give one of them", "--isolation %s and --set default_transaction_isolation=%s disagree", l, v)
	}
	settings["default_transaction_isolation"] = want
	return nil
}

// levelOf is --isolation's word for default_transaction_isolation's value.
func levelOf(setting string) string {
	return strings.ReplaceAll(strings.TrimSpace(setting), " ", "-")
}
