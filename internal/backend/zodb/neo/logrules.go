package neo

import "github.com/dbgauge/dbgauge/internal/server"

// LogRules are the kinds of trouble a NEO node's log (what it writes on
// stderr: Python's logging at WARNING and above, "LEVEL NAME message", and
// tracebacks) can show, most severe first (docs/backends/neo.md).
var LogRules = &server.LogRules{
	Rules: []server.LogRule{
		server.Rule("corruption", `(?i)corrupt`),
		server.Rule("critical", `\bCRITICAL\b`),
		server.Rule("error", `\bERROR\b|Traceback \(most recent call last\)`),
	},
}
