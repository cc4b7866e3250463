// Package script runs the user's own workload (issue 25, docs/workload-file.md):
// pgbench scripts, and workload files around them.
//
// ParseScript reads a script (script.go): SQL commands ending with ; (their
// :variables bound as parameters), \set, \sleep, \if/\elif/\else/\endif
// (each branch knowing where to go), \gset and \aset; ParseWeighted reads
// -f FILE@WEIGHT. ParseExpr parses an expression of \set or \if with its
// place in the script, Expr.Eval computes it in an Env. NewProgram checks
// scripts together (program.go: transaction control, variables read before
// anything sets them, the operations each command is timed as); a Client
// runs them on one connection (client.go), its variables bound as pgbench
// passes them and debug()'s lines printed through Program.SetDebug
// (workload.Debugged). A workload file (file.go) adds
// a schema and generated rows (load.go), checks (check.go) and a ledger
// (ledger.go); the workload (workload.go) is `run script` and `run FILE.toml`.
//
// It follows pgbench 15 (src/bin/pgbench: exprscan.l, exprparse.y and
// pgbench.c's evaluateExpr): the same precedence, NULL handling, int64
// overflow and division-by-zero errors, coercions, debug() and variable
// formatting; hash, hash_fnv1a, hash_murmur2 and permute give pgbench's
// exact values; the random functions draw the same distributions from the
// client's math/rand/v2 PRNG (not pgbench's sequences). The table in
// expr_test.go was checked against real pgbench, and TestAgainstPgbench
// checks it again wherever pgbench and a PostgreSQL server are installed.
package script
