package firebird

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
)

func TestRewrite(t *testing.T) {
	backendtest.Rewrites(t, "Rewrite", Rewrite, map[string]string{
		"SELECT id FROM t WHERE k = ? ORDER BY id LIMIT 1 FOR UPDATE WITH LOCK": "SELECT id FROM t WHERE k = ? ORDER BY id ROWS 1 FOR UPDATE WITH LOCK",
		"UPDATE t SET a = ? WHERE b = 0 ORDER BY id LIMIT ?":                    "UPDATE t SET a = ? WHERE b = 0 ORDER BY id ROWS ?",
		"SELECT id FROM freq_channel WHERE id % ? = ? ORDER BY id":              "SELECT id FROM freq_channel WHERE MOD(id, ?) = ? ORDER BY id",
		"SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM b)":             "SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM b) FROM RDB$DATABASE",
		"SELECT nms_call(?, ?)":        "SELECT nms_call(?, ?) FROM RDB$DATABASE",
		"SELECT fromage FROM t":        "SELECT fromage FROM t",
		"INSERT INTO t (a) VALUES (?)": "INSERT INTO t (a) VALUES (?)",
	})
}

// TestCreateIfNotExists: the CREATE … IF NOT EXISTS forms Firebird 3 lacks
// are found, a descending index's included, with the object's name.
func TestCreateIfNotExists(t *testing.T) {
	for q, want := range map[string][2]string{
		"CREATE TABLE IF NOT EXISTS t (id INT)":                    {"TABLE", "t"},
		"create unique index if not exists u on t (a)":             {"unique index", "u"},
		"CREATE DESCENDING INDEX IF NOT EXISTS d_desc ON t (a, b)": {"DESCENDING INDEX", "d_desc"},
		"CREATE ASC INDEX IF NOT EXISTS a ON t (a)":                {"ASC INDEX", "a"},
		"CREATE INDEX x ON t (a)":                                  {"", ""},
	} {
		m := createIfNot.FindStringSubmatch(q)
		got := [2]string{}
		if m != nil {
			got = [2]string{m[1], m[2]}
		}
		if got != want {
			t.Errorf("%q: %q, want %q", q, got, want)
		}
	}
}
