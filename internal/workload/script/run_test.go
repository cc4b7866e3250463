package script_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/workload/script"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// flow exercises every command a script may hold: \set with variables and
// -D's, the three branches of \if, \gset, \aset with a prefix, \sleep; its
// checks say which branch saw what.
const flow = `name = "flow"
[variables]
k = 5
[schema]
drop = ["t", "seen"]
sql = """
CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL);
CREATE TABLE seen (branch VARCHAR(8) NOT NULL, x INTEGER NOT NULL, got INTEGER);
"""
[[table]]
name = "t"
rows = 10
columns = ["id = :row", "v = :row * 10"]
[[transaction]]
name = "flow"
script = '''
\set x random(1, 3)
\if :x = 1
INSERT INTO seen (branch, x) VALUES ('one', :x);
\elif :x = 2
\set y :x * :k
INSERT INTO seen (branch, x, got) VALUES ('two', :x, :y);
\else
SELECT v AS got FROM t WHERE id = :x \gset
SELECT id, v FROM t WHERE id <= 2 ORDER BY id \aset p_
\sleep 1 ms
INSERT INTO seen (branch, x, got) VALUES ('else', :x, :got + :p_v);
\endif
'''
[[transaction]]
name = "read"
weight = 2
script = '''
\set a random(1, 10)
SELECT v FROM t WHERE id = :a;
SELECT count(*) FROM seen;
'''
[[check]]
name = "branches_saw_their_values"
empty = "SELECT branch FROM seen WHERE (branch = 'one' AND x <> 1) OR (branch = 'two' AND (x <> 2 OR got <> 10)) OR (branch = 'else' AND (x <> 3 OR got <> 50))"
[[check]]
name = "every_branch_taken"
equal = ["SELECT count(DISTINCT branch) FROM seen", "SELECT 3 FROM t WHERE id = 1"]
`

func writeFlow(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "flow.toml")
	if err := os.WriteFile(path, []byte(flow), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEveryCommand runs flow on SQLite: each script is a unit kind, each
// SQL command and \sleep an operation, and the checks pass; with -D k=7
// the second branch sees 14, and the check that wants 10 fails.
func TestEveryCommand(t *testing.T) {
	path := writeFlow(t)
	res := workloadtest.Run(t, script.Spec, map[string]string{"workload-file": path, "clients": "2"})
	measure := res.Phases[len(res.Phases)-1]
	var kinds, ops []string
	for _, u := range measure.Units {
		if u.Count > 0 {
			kinds = append(kinds, u.Name)
		}
	}
	for _, o := range measure.Ops {
		if o.Count > 0 {
			ops = append(ops, o.Name)
		}
	}
	if !slices.Equal(kinds, []string{"flow", "read"}) {
		t.Errorf("unit kinds %v, want flow and read", kinds)
	}
	for _, want := range []string{"flow:19 insert", "flow:22 insert", "flow:24 select", "flow:25 select", "flow:26 sleep", "flow:27 insert", "begin", "commit", "read:35 select", "read:36 select"} {
		if !slices.Contains(ops, want) {
			t.Errorf("no operation %q in %v", want, ops)
		}
	}
	res = workloadtest.Exec(t, script.Spec, map[string]string{"workload-file": path, "define": "k=7"})
	if c := check(res, "branches_saw_their_values"); c == nil || c.OK || !strings.Contains(c.Detail, "two") {
		t.Fatalf("-D k=7 did not reach the script: %+v", c)
	}
}

// TestExamples runs the workload files of examples/ on SQLite, their checks
// passing.
func TestExamples(t *testing.T) {
	for _, name := range []string{"tpcb-like", "nms", "deposits"} {
		t.Run(name, func(t *testing.T) {
			args := map[string]string{"workload-file": filepath.Join("..", "..", "..", "examples", name+".toml"), "clients": "2"}
			if name == "tpcb-like" {
				args["define"] = "scale=1"
			}
			workloadtest.Run(t, script.Spec, args)
		})
	}
}

func check(res *result.Result, name string) *result.Check {
	for i := range res.Checks {
		if res.Checks[i].Name == name {
			return &res.Checks[i]
		}
	}
	return nil
}

// TestFailuresPerStatement: a statement that violates a key fails its unit
// (a rollback, not retried), counted against that statement, whose place
// the cause names; the statements before it are not counted as failed.
func TestFailuresPerStatement(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dup.toml")
	err := os.WriteFile(path, []byte(`name = "dup"
[schema]
drop = ["u"]
sql = "CREATE TABLE u (id INTEGER PRIMARY KEY)"
[[transaction]]
name = "dup"
script = '''
\set x random(1, 5)
SELECT count(*) FROM u;
INSERT INTO u (id) VALUES (:x);
'''
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	res := workloadtest.Exec(t, script.Spec, map[string]string{"workload-file": path, "units": "50"})
	measure := res.Phases[len(res.Phases)-1]
	failed := map[string]int64{}
	for _, o := range measure.Ops {
		failed[o.Name] = o.Failed
	}
	if failed["dup:10 insert"] != 45 || failed["dup:9 select"] != 0 || measure.Failed != 45 {
		t.Fatalf("failed per operation %v, units failed %d; want 45 inserts, from 50 units on 5 keys", failed, measure.Failed)
	}
	if len(measure.Failures) == 0 || !strings.Contains(strings.Join(measure.Failures[0].Samples, " "), "dup.toml:10:1") {
		t.Fatalf("the cause does not name the statement: %+v", measure.Failures)
	}
}
