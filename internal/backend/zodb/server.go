package zodb

import (
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/server"
)

// ServerLogRules are the kinds of trouble a managed ZEO server's log
// (Python's logging: "DATE LEVEL LOGGER message") can show, most severe
// first (docs/backends/zodb.md): zeo's and zrs's.
var ServerLogRules = &server.LogRules{
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

// Ping connects to a ZEO server on loopback port and reads its greeting (a
// frame naming its protocol, "Z5"), within a second, before it closes:
// closed unread, the connection would be reset, which the server logs as an
// error.
func Ping(port int) error {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SetReadDeadline(time.Now().Add(time.Second)); err != nil {
		return err
	}
	var hello [6]byte // its length (4 bytes), then the protocol
	if _, err := io.ReadFull(c, hello[:]); err != nil {
		return fmt.Errorf("no greeting from the ZEO server: %w", err)
	}
	return nil
}

var storageLine = regexp.MustCompile(`opening storage '([^']*)' using (\w+)`)

// StorageOf says which storage a ZEO server opened, from its log's words
// ("FileStorage", "ZRS"), "" when it said nothing recognisable.
func StorageOf(log string) string {
	if m := storageLine.FindAllStringSubmatch(log, -1); m != nil {
		return m[len(m)-1][2]
	}
	return ""
}

var recoveryLines = regexp.MustCompile(`(?m)^.*(?:[Rr]ecover|[Tt]runcat|[Rr]ebuild|index).*$`)

// RecoveryNote is what a restarted ZEO server's log says of its
// FileStorage's recovery: its lines that speak of it, joined.
func RecoveryNote(log string) string {
	var out []string
	for _, l := range recoveryLines.FindAllString(log, 5) {
		out = append(out, strings.TrimSpace(l))
	}
	return strings.Join(out, "; ")
}
