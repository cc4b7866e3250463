package redis

import "github.com/dbgauge/dbgauge/internal/server"

// LogRules are the kinds of trouble a managed Redis's log can show, most
// severe first, and the warnings that are not (docs/backends/redis.md). A
// line's level is its mark after the time: # a warning, * a notice.
var LogRules = &server.LogRules{
	Rules: []server.LogRule{
		server.Rule("crash", `REDIS BUG REPORT|crashed by signal|Guru Meditation`),
		server.Rule("corruption", `Bad file format reading the append only file|Unrecoverable error reading the append only file|(?i)corrupt`),
		server.Rule("recovery", `short read while loading the AOF|aof-load-truncated is enabled`),
		server.Rule("io", `Error writing to the AOF|Can't rewrite append only file|Background AOF rewrite terminated with error|fsync`),
		server.Rule("warning", `^\d+:[A-Z] .* # `),
	},
	Harmless: []server.LogRule{
		// The kernel's settings, said at every start.
		server.Rule("", `WARNING (Memory overcommit|overcommit_memory|you have Transparent Huge Pages|The TCP backlog)`),
		// A clean shutdown's and a restart's own lines.
		server.Rule("", `# (User requested shutdown|Redis is now ready to exit|Server initialized|oO0OoO0OoO0Oo|Redis version=|Configuration loaded|Warning: no config file)`),
	},
}
