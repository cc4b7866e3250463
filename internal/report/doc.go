// Package report renders results for people, in a terminal. Every view is
// a pure function of what it is given (a result.Result, or package
// analysis's reading of several), so any old result renders again.
//
// For one run: Progress is the line printed each second (pgbench -P's),
// Summary the summary at its end, and JSON the same as data (--json;
// NewRunSummary). DiskHeader, DiskCell and DiskFooter print `dbgauge disk`'s
// table as its cells are measured, Shards a merged result's shards. For
// several: Matrix prints a matrix's table and each knob's effect, and
// Compare a comparison, both read by package analysis. The one-line
// formatters (Us, Rate, Bytes, BackupLine, RestoreLine, FailoverLine, …)
// are htmlreport's too, so the terminal and the HTML page say the same.
package report
