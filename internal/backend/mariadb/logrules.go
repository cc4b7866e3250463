package mariadb

import "github.com/dbgauge/dbgauge/internal/server"

// LogRules are the kinds of trouble a managed MariaDB's error log can show,
// most severe first (docs/backends/mariadb.md).
var LogRules = &server.LogRules{
	Rules: []server.LogRule{
		server.Rule("crash", `(mariadbd|mysqld) got signal|Attempting backtrace`),
		server.Rule("assertion", `Assertion failure|Failing assertion`),
		server.Rule("recovery", `Starting crash recovery|crash recovery`),
		server.Rule("corruption", `(?i)corrupt`),
		server.Rule("error", `\[ERROR\]`),
	},
}
