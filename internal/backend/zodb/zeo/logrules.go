package zeo

import "github.com/dbgauge/dbgauge/internal/server"

// LogRules are the kinds of trouble a managed ZEO server's log (Python's
// logging: "DATE LEVEL LOGGER message") can show, most severe first
// (docs/backends/zodb.md).
var LogRules = &server.LogRules{
	Rules: []server.LogRule{
		server.Rule("corruption", `(?i)corrupt|CorruptedError|POSKeyError`),
		server.Rule("critical", ` CRITICAL `),
		server.Rule("error", ` ERROR |Traceback \(most recent call last\)`),
	},
	Harmless: []server.LogRule{
		// A client process that ended (a worker closed at the end of a run, or
		// killed in a crash test) with the server's last messages unread in
		// its socket: its kernel resets the connection, which ZEO logs as an
		// error of its own. The server is not at fault.
		server.Rule("client gone", `ERROR ZEO\.asyncio\.server Disconnected ConnectionResetError`),
	},
}
