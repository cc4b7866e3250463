package etcd

import (
	"regexp"

	"github.com/dbgauge/dbgauge/internal/server"
)

// LogRules are the kinds of trouble a managed etcd member's log (zap's
// JSON lines) can show, most severe first, and the warnings that are not
// (docs/backends/etcd.md).
var LogRules = &server.LogRules{
	Rules: []server.LogRule{
		server.Rule("crash", `"level":"(panic|fatal|dpanic)"`),
		// In the message: a start's line lists initial-corrupt-check among its fields.
		server.Rule("corruption", `"msg":"[^"]*(?i:corrupt|checksum mismatch|crc mismatch)`),
		server.Rule("election", `elected leader|lost leader|leader changed`),
		server.Rule("error", `"level":"error"`),
		server.Rule("slow", `apply request took too long|slow fdatasync|failed to send out heartbeat on time`),
		server.Rule("warning", `"level":"warn"`),
	},
	Harmless: []server.LogRule{
		// dbgauge's cluster has no authentication (loopback only).
		server.Rule("", `simple token is not cryptographically signed|serving client traffic insecurely`),
		// dbgauge raises --max-request-bytes for kv's load (server.go).
		server.Rule("", `exceeded recommended request limit`),
		// Members of a cluster finding each other.
		server.Rule("", `established TCP streaming connection with remote peer|peer became active`),
		// The first election of a new cluster, and a clean stop.
		server.Rule("", `elected leader [0-9a-f]+ at term 2"|skipped leadership transfer|closing etcd server`),
	},
}

var newRaft = regexp.MustCompile(`newRaft [0-9a-f]+ \[peers: \[[^\]]*\], term: (\d+), commit: (\d+), applied: (\d+), lastindex: (\d+)`)

// replayNote says what a member restarted on its data had to catch up
// on, from its log's newRaft line: its Raft log's last index, what was
// committed and what its backend had applied (the rest is replayed from
// the WAL).
func replayNote(log string) string {
	m := newRaft.FindStringSubmatch(log)
	if m == nil {
		return ""
	}
	return "etcd restarted the member at term " + m[1] + ": Raft log to index " + m[4] + ", committed " + m[2] + ", applied " + m[3] + " (the WAL replayed past its last snapshot)"
}
