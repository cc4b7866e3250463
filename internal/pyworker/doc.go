// Package pyworker runs a worker process in Python for an engine that has
// no Go client (ZODB and the storages built on it): a pinned virtualenv
// (Env: made by `dbgauge engines install NAME` in the user's cache folder,
// root's /var/cache, or named by the user), the worker's source shipped
// inside the binary and written to the cache folder at start, and a small
// typed protocol over the worker's stdin and stdout (Worker).
//
// The protocol is one JSON object a line. The worker first writes a hello
// line (its protocol's version, its Python, the versions of its packages,
// its pid); then each request is {"id", "s" (session), "op", "a" (its
// arguments)} and each reply {"id", "ok" or "err", "cpu", "more"}: "err"
// names the Python exception's class and module (the driver's code, which
// an engine classifies), "cpu" is the worker's CPU time so far
// (time.process_time), "more" marks a reply continued on the next line (a
// scan). Session 0 is the worker's own; every other one a client's, which
// the worker serves on a thread of its own, so that a client waiting on a
// lock does not hold up the others sharing the worker (a FileStorage is
// opened by one process only).
//
// Timing is the caller's, around each Call: the worker times nothing.
// Every wait on the worker is bounded (the ctx's deadline, else
// Config.Limit) and cancellable, and says what it waited for when it gives
// up; a worker that exits is an error carrying the end of its stderr, for
// every call waiting on it and every later one, never a hang.
package pyworker
