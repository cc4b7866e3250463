// Package tpcc is TPC-C (TPC Benchmark C, Standard Specification revision
// 5.11) for dbgauge. Comments cite the spec's clauses.
//
//   - rand.go: the spec's random rules. Rand draws uniform integers
//     (2.1.4), NURand with the run's constants C (2.1.6), a-strings and
//     n-strings (4.3.2.2), zip codes (4.3.2.7), last names from the ten
//     syllables (4.3.2.3) and the data fields holding "ORIGINAL"
//     (4.3.3.1); Constants are chosen once per load and once per run, the
//     run's C_LAST at an allowed distance from the load's (2.1.6.1).
//   - population.go: the initial population of clause 4.3.3.1, table by
//     table, as sequences of typed rows (money as exact cents), with the
//     cardinalities of clause 1.2 and go-tpc's table and column names
//     (Tables).
//   - schema.go, load.go: the tables in each engine's dialect, and the
//     population loaded one warehouse per connection, in parallel, by the
//     engine's fastest path; a database of the same warehouse count is
//     reused, whoever loaded it.
//   - terminal.go: a terminal (client) running one transaction at a time,
//     and what the transactions share (the statements made once per
//     dialect, the customer chosen by last name or number).
//   - neworder.go, payment.go, orderstatus.go, delivery.go, stocklevel.go:
//     the five transactions (clauses 2.4 to 2.8), each with its statements.
//   - consistency.go: the twelve consistency conditions of clause 3.3.2 as
//     data, each with a portable query returning the rows that violate it.
//   - tpcc.go: the workload: the mix as a deck (a rolled-back New-Order is a
//     unit kind of its own), terminals bound to a warehouse and a district,
//     keying and think times (--wait), the figures (tpmC, NOPM, efficiency,
//     the 90th-percentile limits) and the checks.
package tpcc
