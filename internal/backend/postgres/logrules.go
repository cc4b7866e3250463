package postgres

import "github.com/dbgauge/dbgauge/internal/server"

// LogRules are the kinds of trouble a managed PostgreSQL's log can show, most
// severe first, and the lines that look like trouble and are not
// (docs/backends/postgres.md).
var LogRules = &server.LogRules{
	Rules: []server.LogRule{
		server.Rule("crash", `server process \(PID \d+\) was terminated by signal|terminating any other active server processes`),
		server.Rule("recovery", `was not properly shut down|automatic recovery in progress|database system was interrupted`),
		server.Rule("assertion", `TRAP: `),
		server.Rule("panic", `PANIC: `),
		server.Rule("fatal", `FATAL: `),
		server.Rule("error", `ERROR: `),
	},
	Harmless: []server.LogRule{
		server.Rule("", `FATAL:  (the database system is (starting up|shutting down|not yet accepting connections)|terminating connection due to administrator command)`),
	},
}
