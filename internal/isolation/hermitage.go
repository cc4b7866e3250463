package isolation

import (
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// Columns are Hermitage's summary columns, in its order.
var Columns = []string{"G0", "G1a", "G1b", "G1c", "OTV", "PMP", "P4", "G-single", "G2-item", "G2"}

// The marks of Hermitage's summary table.
const (
	Yes      = "✓"   // the level prevents the anomaly
	No       = "—"   // it does not
	ReadOnly = "R/O" // it prevents it for read-only transactions only
	Some     = "some"
	Unknown  = "?" // a case could not be judged
)

// HermitageSource is where the published results come from.
const HermitageSource = "github.com/ept/hermitage README.md, \"Summary of test results\" (commit 000346f)"

// Published is Hermitage's published row set for one DBMS.
type Published struct {
	DBMS    string // "PostgreSQL"
	Version string // the version Hermitage's tests were run with
	File    string // its per-engine file, with the scripts
	Levels  map[backend.Isolation][]string
	// Stands says which of Hermitage's rows a level is compared with
	// when Hermitage has none of its own, and why.
	Stands map[backend.Isolation]Stand
}

// Stand is the row a level is compared with instead of its own.
type Stand struct {
	Level backend.Isolation
	Why   string
}

func row(s string) []string { return strings.Fields(s) }

// published maps a backend to Hermitage's results for its DBMS: the cells
// of the summary table, each a fact Hermitage published, not its text.
var published = map[string]Published{
	"postgres": {
		DBMS: "PostgreSQL", Version: "9.3.5", File: "postgres.md",
		Levels: map[backend.Isolation][]string{
			backend.ReadCommitted:  row("✓ ✓ ✓ ✓ ✓ — — — — —"),
			backend.RepeatableRead: row("✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ — —"),
			backend.Serializable:   row("✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓"),
		},
		Stands: map[backend.Isolation]Stand{
			backend.ReadUncommitted: {backend.ReadCommitted, "PostgreSQL runs read uncommitted as read committed (its documentation, 13.2)"},
		},
	},
	"mariadb": {
		DBMS: "MySQL/InnoDB", Version: "MySQL 5.6.21", File: "mysql.md",
		Levels: map[backend.Isolation][]string{
			backend.ReadUncommitted: row("✓ — — — — — — — — —"),
			backend.ReadCommitted:   row("✓ ✓ ✓ ✓ ✓ — — — — —"),
			backend.RepeatableRead:  row("✓ ✓ ✓ ✓ ✓ R/O — R/O — —"),
			backend.Serializable:    row("✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓ ✓"),
		},
	},
}

// Hermitage returns Hermitage's published results for a backend, if it
// has them.
func Hermitage(backendName string) (Published, bool) {
	p, ok := published[backendName]
	return p, ok
}

// Summarize turns a level's outcomes into Hermitage's marks, column by
// column (none for a column none of whose cases ran; ? when one could not
// be judged): ✓ when every case of the column was prevented; where the column
// has cases whose anomaly reads alone show (ReadOnly), — when one of them
// happened and R/O when only another case's did; in a column without such
// cases, some when a case was prevented and another not, — when none was.
func Summarize(outs []Outcome, cases []Case) map[string]string {
	ro := map[string]bool{}
	for _, c := range cases {
		ro[c.Name] = c.ReadOnly
	}
	marks := map[string]string{}
	for _, col := range Columns {
		var prevented, anomalies, roCases, roAnomalies int
		failed := false
		for _, o := range outs {
			if o.Column != col {
				continue
			}
			switch o.Verdict {
			case Failed:
				failed = true
			case Anomaly:
				anomalies++
			default:
				prevented++
			}
			if ro[o.Case] {
				roCases++
				if o.Verdict == Anomaly {
					roAnomalies++
				}
			}
		}
		switch {
		case !failed && prevented+anomalies == 0:
			// No case of the column ran (--case): no mark.
		case failed:
			marks[col] = Unknown
		case anomalies == 0:
			marks[col] = Yes
		case roCases > 0 && roAnomalies > 0:
			marks[col] = No
		case roCases > 0:
			marks[col] = ReadOnly
		case prevented > 0:
			marks[col] = Some
		default:
			marks[col] = No
		}
	}
	return marks
}
