// Package server starts, stops, kills and watches real database servers that
// dbgauge manages: throwaway instances on loopback, in a folder of the run,
// with the settings the run asks for. PostgreSQL is the first; MariaDB and
// Firebird follow the same shape (an Account to run as, a free port, a
// Process whose log, start-up and shut-down times are recorded).
//
// Servers refuse to run as root. When dbgauge is root, a managed server runs
// as an unprivileged account (the engine's own system user when its package
// created one, otherwise a "dbgauge" system user created for the purpose),
// and the result says so.
package server
