// Package tpcc is TPC-C (TPC Benchmark C, Standard Specification revision
// 5.11) for dbgauge. Comments cite the spec's clauses.
//
// What is here is the engine-free foundation, pure Go:
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
//   - consistency.go: the twelve consistency conditions of clause 3.3.2 as
//     data, each with a portable query returning the rows that violate it.
//
// Still to come (issue 27): the five transactions (New-Order, Payment,
// Order-Status, Delivery, Stock-Level) and their mix; the schema and the
// parallel load on PostgreSQL, MariaDB, SQLite and Firebird; the workload's
// registration in the catalog, its knobs, figures (tpmC, NOPM) and checks
// (running Conditions); and the cross-check against go-tpc, each checking
// the database the other loaded and ran.
package tpcc
