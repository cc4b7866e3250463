package script

import (
	"fmt"
	"io"
	"slices"
	"sort"
)

// WriteReference writes what a script may use, for `dbgauge list scripts`:
// the meta-commands, the built-in variables, the operators and every
// function with its arguments.
func WriteReference(w io.Writer) {
	fmt.Fprint(w, `SCRIPTS  (dbgauge run script -f FILE[@WEIGHT] -D NAME=VALUE; pgbench's language, "Custom Scripts")
  SQL commands end with ; (over several lines if need be); :name is a variable, bound as a parameter
  as pgbench passes it: an integer, a double as its text to 15 digits, true or false, NULL, text as given.
  debug(x) prints "debug(script=S,command=C): TYPE VALUE" on stderr, as pgbench does.
  A script is one transaction: dbgauge's around it, unless it has its own BEGIN; … COMMIT; (or END;),
  which go to the engine's own transaction calls. One SQL command alone runs in autocommit.
  Each script is a unit kind of the result, each SQL command and \sleep an operation.

META-COMMANDS
  \set NAME EXPR               set a variable (EXPR below)
  \sleep N [us|ms|s]           wait; N a whole number or a :variable (s when no unit)
  \if EXPR … \elif EXPR … \else … \endif
  SQL … \gset [PREFIX]         end a query with it: its one row's columns become variables PREFIXcolumn
  SQL … \aset [PREFIX]         every row's columns (the last row's win); none when no row

VARIABLES EVERY CLIENT STARTS WITH
  scale          --scale (pgbench -s), 1 unless given
  client_id      the client's number, from 0
  random_seed    the run's --seed
  default_seed   the seed of hash() and permute() when none is given
  and each -D NAME=VALUE (a comma list makes a matrix axis: -D ratio=0.1,0.5)

OPERATORS (pgbench's precedence, loosest first)
  OR · AND · NOT · IS [NOT] NULL|TRUE|FALSE, ISNULL, NOTNULL · <= >= <> != · < > = · | # & << >> · + - · * / % · unary - ~
  (# is exclusive or, ~ bitwise not; / and % on two ints are the integer division and its remainder)
  CASE WHEN … THEN … [ELSE …] END; literals: 42, 4.2, 1e3, true, false, NULL

FUNCTIONS
`)
	for _, u := range functionUsages() {
		fmt.Fprintln(w, "  "+u)
	}
	fmt.Fprint(w, `
WORKLOAD FILES  (dbgauge run FILE.toml; docs/workload-file.md)
  name, description, [variables] (defaults, each a -D), [schema] (drop, sql, and sqlite/postgres/mariadb/firebird
  of their own), [[table]] (name, rows, columns "NAME = GENERATOR": an expression of :row, 'text', chars(N[, M])),
  after (statements once the tables are filled), [[transaction]] (name, weight, file or script), [[check]] (name,
  equal: queries whose values must agree, or empty: a query that must return no row), [ledger] (transaction,
  variable, table, key: what dbgauge crash verifies)
`)
}

// functionUsages lists each function as it is called: "random(lb, ub)".
func functionUsages() []string {
	out := make([]string, 0, len(functions))
	for _, f := range functions {
		out = append(out, f.usage)
	}
	sort.Strings(out)
	return slices.Compact(out) // a function known by two names is one line
}
