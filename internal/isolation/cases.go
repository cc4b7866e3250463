package isolation

import "maps"

// A test case is Hermitage's (github.com/ept/hermitage, postgres.md and
// mysql.md at commit 000346f): two or three sessions on a table (id, val)
// holding (1, 10) and (2, 20), their statements run in the script's order,
// one at a time. The table is Hermitage's test, named dbgauge_hermitage so
// as not to meet a table of the user's. Where Hermitage's PostgreSQL and
// MySQL scripts differ (a read added or moved so that one engine shows
// the anomaly), the script here holds both reads, so that one script
// decides every engine. Each case's judge decides from what the sessions
// observed, whatever order blocking gave them, whether the anomaly
// happened.

// Case is one of Hermitage's tests.
type Case struct {
	Name   string // "G1c", "PMP-write"
	Column string // Hermitage's summary column it counts in: "PMP"
	// ReadOnly says the anomaly is shown by reads alone (Hermitage's "R/O"
	// column value: prevented for read-only transactions only).
	ReadOnly bool
	What     string // the anomaly in a few words
	Steps    []Step
	// Anomaly reports whether the observations show the anomaly, and what
	// showed it (or what prevented it).
	Anomaly func(o Observed) (bool, string)
}

// Step is one statement of one session: begin, commit, rollback, a read
// (its rows kept under Name) or a write (its count kept under Name).
type Step struct {
	Session int // 0: T1, 1: T2, 2: T3
	Kind    StepKind
	SQL     string // portable; val % N is MOD(val, N) on Firebird
	Name    string // reads and writes whose result a judge uses
}

// StepKind is what a step does.
type StepKind string

// The kinds of steps.
const (
	Begin    StepKind = "begin"
	Commit   StepKind = "commit"
	Rollback StepKind = "rollback"
	Read     StepKind = "read"
	Write    StepKind = "write"
)

// Observed is what the sessions saw: the rows of each named read that
// succeeded, the rows each named write changed, which sessions committed,
// and the table after every session ended.
type Observed struct {
	Reads     map[string]Rows
	Writes    map[string]int64
	Committed map[int]bool
	Final     Rows
}

// Rows maps id to val.
type Rows map[int64]int64

// sawUncommitted101 is G1a's and G1b's judge: T2's read a or b saw the
// 101 T1 wrote and then rolled back or overwrote.
func sawUncommitted101(o Observed) (bool, string) {
	return o.has("a", 1, 101) || o.has("b", 1, 101), "T2 read " + o.Reads["a"].String() + " then " + o.Reads["b"].String()
}

// has reports whether the named read succeeded and saw row id with val v.
func (o Observed) has(name string, id, v int64) bool {
	r, ok := o.Reads[name]
	if !ok {
		return false
	}
	got, ok := r[id]
	return ok && got == v
}

const (
	all    = "SELECT id, val FROM dbgauge_hermitage ORDER BY id"
	byID1  = "SELECT id, val FROM dbgauge_hermitage WHERE id = 1"
	byID2  = "SELECT id, val FROM dbgauge_hermitage WHERE id = 2"
	bothID = "SELECT id, val FROM dbgauge_hermitage WHERE id IN (1, 2) ORDER BY id"
	mod3   = "SELECT id, val FROM dbgauge_hermitage WHERE val % 3 = 0 ORDER BY id"
)

func begin(s int) Step              { return Step{Session: s, Kind: Begin} }
func commit(s int) Step             { return Step{Session: s, Kind: Commit} }
func rollback(s int) Step           { return Step{Session: s, Kind: Rollback} }
func read(s int, n, q string) Step  { return Step{Session: s, Kind: Read, SQL: q, Name: n} }
func write(s int, n, q string) Step { return Step{Session: s, Kind: Write, SQL: q, Name: n} }

// Cases lists Hermitage's tests in the order of its summary table.
func Cases() []Case {
	return []Case{
		{
			Name: "G0", Column: "G0", What: "write cycle (dirty write): two transactions' writes to two rows interleave",
			Steps: []Step{begin(0), begin(1),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 11 WHERE id = 1"),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 12 WHERE id = 1"),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 21 WHERE id = 2"),
				commit(0),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 22 WHERE id = 2"),
				commit(1)},
			Anomaly: func(o Observed) (bool, string) {
				mixed := maps.Equal(o.Final, Rows{1: 12, 2: 21}) || maps.Equal(o.Final, Rows{1: 11, 2: 22})
				return mixed, "final rows " + o.Final.String()
			},
		},
		{
			Name: "G1a", Column: "G1a", ReadOnly: true, What: "aborted read: T2 sees a value T1 wrote and rolled back",
			Steps: []Step{begin(0), begin(1),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 101 WHERE id = 1"),
				read(1, "a", all),
				rollback(0),
				read(1, "b", all),
				commit(1)},
			Anomaly: sawUncommitted101,
		},
		{
			Name: "G1b", Column: "G1b", ReadOnly: true, What: "intermediate read: T2 sees a value T1 overwrote before committing",
			Steps: []Step{begin(0), begin(1),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 101 WHERE id = 1"),
				read(1, "a", all),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 11 WHERE id = 1"),
				commit(0),
				read(1, "b", all),
				commit(1)},
			Anomaly: sawUncommitted101,
		},
		{
			Name: "G1c", Column: "G1c", ReadOnly: true, What: "circular information flow: each transaction sees the other's uncommitted write",
			Steps: []Step{begin(0), begin(1),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 11 WHERE id = 1"),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 22 WHERE id = 2"),
				read(0, "t1", byID2),
				read(1, "t2", byID1),
				commit(0),
				commit(1)},
			Anomaly: func(o Observed) (bool, string) {
				return o.has("t1", 2, 22) && o.has("t2", 1, 11), "T1 read " + o.Reads["t1"].String() + ", T2 read " + o.Reads["t2"].String()
			},
		},
		{
			Name: "OTV", Column: "OTV", ReadOnly: true, What: "observed transaction vanishes: T3 sees T2's write, then misses another of T2's",
			Steps: []Step{begin(0), begin(1), begin(2),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 11 WHERE id = 1"),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 19 WHERE id = 2"),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 12 WHERE id = 1"),
				commit(0),
				read(2, "x", all),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 18 WHERE id = 2"),
				read(2, "y", all),
				commit(1),
				read(2, "z", all),
				commit(2)},
			Anomaly: func(o Observed) (bool, string) {
				seen := false // T3 has seen T2's write of row 1
				for _, n := range []string{"x", "y", "z"} {
					seen = seen || o.has(n, 1, 12)
					if seen && o.has(n, 2, 19) {
						return true, "T3 read " + o.Reads[n].String() + " after seeing T2's 1=12"
					}
				}
				return false, "T3 read " + o.Reads["x"].String() + ", " + o.Reads["y"].String() + ", " + o.Reads["z"].String()
			},
		},
		{
			Name: "PMP", Column: "PMP", ReadOnly: true, What: "predicate-many-preceders: a predicate read sees a row inserted since the transaction's first read",
			Steps: []Step{begin(0), begin(1),
				read(0, "a", "SELECT id, val FROM dbgauge_hermitage WHERE val = 30"),
				write(1, "", "INSERT INTO dbgauge_hermitage (id, val) VALUES (3, 30)"),
				commit(1),
				read(0, "b", mod3),
				commit(0)},
			Anomaly: func(o Observed) (bool, string) {
				a, ok := o.Reads["a"]
				_, has3 := o.Reads["b"][3]
				return ok && len(a) == 0 && has3, "T1 read " + a.String() + " then " + o.Reads["b"].String()
			},
		},
		{
			Name: "PMP-write", Column: "PMP", What: "predicate-many-preceders on a write predicate: after deleting the rows with val = 20, T2 still sees one",
			Steps: []Step{begin(0), begin(1),
				write(0, "", "UPDATE dbgauge_hermitage SET val = val + 10"),
				read(1, "a", "SELECT id, val FROM dbgauge_hermitage WHERE val = 20"),
				write(1, "d", "DELETE FROM dbgauge_hermitage WHERE val = 20"),
				commit(0),
				read(1, "b", all),
				commit(1)},
			Anomaly: func(o Observed) (bool, string) {
				b, ok := o.Reads["b"]
				for _, v := range b {
					if ok && v == 20 {
						return true, "after its delete T2 read " + b.String()
					}
				}
				return false, "after its delete T2 read " + b.String()
			},
		},
		{
			Name: "P4", Column: "P4", What: "lost update: both transactions read 10, both write, both commit",
			Steps: []Step{begin(0), begin(1),
				read(0, "a", byID1),
				read(1, "b", byID1),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 11 WHERE id = 1"),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 11 WHERE id = 1"),
				commit(0),
				commit(1)},
			Anomaly: func(o Observed) (bool, string) {
				return o.Committed[0] && o.Committed[1] && o.has("a", 1, 10) && o.has("b", 1, 10), committed(o, 2)
			},
		},
		{
			Name: "G-single", Column: "G-single", ReadOnly: true, What: "read skew: T1 sees row 1 before T2 and row 2 after it",
			Steps: []Step{begin(0), begin(1),
				read(0, "a", byID1),
				read(1, "", byID1),
				read(1, "", byID2),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 12 WHERE id = 1"),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 18 WHERE id = 2"),
				commit(1),
				read(0, "b", byID2),
				commit(0)},
			Anomaly: func(o Observed) (bool, string) {
				return o.has("a", 1, 10) && o.has("b", 2, 18), "T1 read " + o.Reads["a"].String() + " then " + o.Reads["b"].String()
			},
		},
		{
			Name: "G-single-pred", Column: "G-single", ReadOnly: true, What: "read skew through predicates: T1's second predicate read sees T2's update",
			Steps: []Step{begin(0), begin(1),
				read(0, "a", "SELECT id, val FROM dbgauge_hermitage WHERE val % 5 = 0 ORDER BY id"),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 12 WHERE val = 10"),
				commit(1),
				read(0, "b", mod3),
				commit(0)},
			Anomaly: func(o Observed) (bool, string) {
				return o.has("a", 1, 10) && o.has("b", 1, 12), "T1 read " + o.Reads["a"].String() + " then " + o.Reads["b"].String()
			},
		},
		{
			Name: "G-single-write", Column: "G-single", What: "read skew on a write predicate: T1 read row 1 before T2, and its delete acts on the rows after T2",
			Steps: []Step{begin(0), begin(1),
				read(0, "a", byID1),
				read(1, "", all),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 12 WHERE id = 1"),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 18 WHERE id = 2"),
				commit(1),
				write(0, "d", "DELETE FROM dbgauge_hermitage WHERE val = 20"),
				read(0, "b", byID2),
				commit(0)},
			Anomaly: func(o Observed) (bool, string) {
				d, ok := o.Writes["d"]
				return o.Committed[0] && o.has("a", 1, 10) && ok && d == 0,
					"T1 read " + o.Reads["a"].String() + ", deleted " + count(d, ok) + " rows, read " + o.Reads["b"].String() + "; " + committed(o, 2)
			},
		},
		{
			Name: "G2-item", Column: "G2-item", What: "write skew: both read rows 1 and 2, each updates one, both commit",
			Steps: []Step{begin(0), begin(1),
				read(0, "a", bothID),
				read(1, "b", bothID),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 11 WHERE id = 1"),
				write(1, "", "UPDATE dbgauge_hermitage SET val = 21 WHERE id = 2"),
				commit(0),
				commit(1)},
			Anomaly: func(o Observed) (bool, string) {
				orig := Rows{1: 10, 2: 20}
				return o.Committed[0] && o.Committed[1] && maps.Equal(o.Reads["a"], orig) && maps.Equal(o.Reads["b"], orig), committed(o, 2)
			},
		},
		{
			Name: "G2", Column: "G2", What: "anti-dependency cycle on a predicate: both find no row with val % 3 = 0, each inserts one, both commit",
			Steps: []Step{begin(0), begin(1),
				read(0, "a", mod3),
				read(1, "b", mod3),
				write(0, "", "INSERT INTO dbgauge_hermitage (id, val) VALUES (3, 30)"),
				write(1, "", "INSERT INTO dbgauge_hermitage (id, val) VALUES (4, 42)"),
				commit(0),
				commit(1)},
			Anomaly: func(o Observed) (bool, string) {
				a, okA := o.Reads["a"]
				b, okB := o.Reads["b"]
				return o.Committed[0] && o.Committed[1] && okA && okB && len(a) == 0 && len(b) == 0, committed(o, 2)
			},
		},
		{
			Name: "G2-two-edges", Column: "G2", What: "Fekete et al.'s cycle with two anti-dependencies: T1 reads, T2 updates and commits, T3 reads both, T1 writes what T3 read",
			Steps: []Step{begin(0),
				read(0, "a", all),
				begin(1),
				write(1, "", "UPDATE dbgauge_hermitage SET val = val + 5 WHERE id = 2"),
				commit(1),
				begin(2),
				read(2, "c", all),
				commit(2),
				write(0, "", "UPDATE dbgauge_hermitage SET val = 0 WHERE id = 1"),
				commit(0)},
			Anomaly: func(o Observed) (bool, string) {
				return o.Committed[0] && o.Committed[1] && o.Committed[2] && o.has("a", 2, 20) && o.has("c", 2, 25) && o.has("c", 1, 10),
					"T1 read " + o.Reads["a"].String() + ", T3 read " + o.Reads["c"].String() + "; " + committed(o, 3)
			},
		},
	}
}
