package firebird

import "github.com/dbgauge/dbgauge/internal/server"

// LogRules are the kinds of trouble a managed Firebird's firebird.log can
// show, most severe first, and the lines that look like trouble and are not
// (docs/backends/firebird.md).
var LogRules = &server.LogRules{
	Rules: []server.LogRule{
		server.Rule("crash", `(?i)terminated abnormally|Segmentation fault|server crashed`),
		server.Rule("bugcheck", `(?i)bugcheck|internal Firebird consistency check|wrong record length`),
		server.Rule("lock denied", `(?i)lock denied`),
		server.Rule("lock manager", `(?i)Fatal lock manager error`),
		server.Rule("io error", `(?i)I/O error`),
		server.Rule("corruption", `(?i)corrupt|Database file appears corrupt`),
		server.Rule("network", `INET/inet_error`),
		server.Rule("error", `(?i)\berror\b`),
	},
	Harmless: []server.LogRule{
		// Every start on a machine without IPv6 dual-stack sockets.
		server.Rule("", `setsockopt: error setting IPV6_V6ONLY to 0`),
		// A client that went away without detaching (connection reset).
		server.Rule("", `INET/inet_error: read errno = 104`),
	},
}
