// Package backend is the contract between dbgauge and a database engine.
//
// Each engine lives in a child folder (sqlite, bbolt, …) that imports only this
// package, and is registered by one line in the catalog. An engine exposes a
// Spec: its name, the --db forms it accepts, how the common knobs map onto its
// own settings, and Open. Open applies the settings and returns a DB that
// speaks SQL (SQL) or key-value (KV); optional abilities such as Statser are
// found by type assertion.
//
// A server engine (postgres, mariadb, firebird) may also start a server of
// its own (Spec.Manages: --db postgres:managed), built on the kit in package
// server; its managed DB embeds a Managed, which is what the session asks
// of a server (ServerInfo, LogRules, Died), and may offer Recoverer,
// Backuper and Cluster. An engine's own knobs (Spec.Knobs) are read once,
// when the run is planned, by Spec.Own, and reach Open in Options.Own.
// Embedded and Served complete a Spec from what it declares.
//
// Rules every engine follows:
//   - settings are read back from the engine and reported as applied
//     (Engine.Settings), never as asked;
//   - driver errors are classified by behaviour in the engine's errors.go
//     (see package dberr), never by matching message text;
//   - no timing code: only the run engine times units of work.
package backend
