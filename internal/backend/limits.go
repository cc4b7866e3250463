package backend

import (
	"context"
	"fmt"
	"syscall"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// Limiter is an optional ability: the engine says, before the clients
// connect, what conns connections (writes: some of them write) will meet.
// A limit the run would hit is an error (a *knob.Error: exit 2, nothing
// run); what a reader of the numbers should know is a note. Hitting a
// limit mid-run is a storm of errors; knowing it before is a decision.
type Limiter interface {
	Limits(ctx context.Context, conns int, writes bool) (notes []string, err error)
}

// filesReserve is the descriptors a run needs besides its connections: the
// result, the unit log, the engine's own files, the Go runtime's.
const filesReserve = 64

// CheckFiles refuses a run whose conns connections, perConn descriptors
// each, would not fit under this process's limit on open files.
func CheckFiles(conns, perConn int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil // no limit to read: the run will tell
	}
	need := uint64(conns*perConn + filesReserve)
	if need <= lim.Cur {
		return nil
	}
	return knob.Bad(fmt.Sprintf("raise the limit (ulimit -n %d; the hard limit is %d) or run fewer --clients", need, lim.Max),
		"%d connections need about %d open files (%d each, and %d besides), and this process may open %d", conns, need, perConn, filesReserve, lim.Cur)
}

// ConnectionsLeft refuses a run that needs more connections than a server
// of the user's has left: limit is its maximum, used the connections open now,
// reserved the slots kept for superusers (0 when the user is one), own the
// connections dbgauge opens besides its clients. setting names the
// server's parameter.
func ConnectionsLeft(conns, own, limit, used, reserved int, setting string) error {
	left := limit - used - reserved
	if conns+own <= left {
		return nil
	}
	return knob.Bad(fmt.Sprintf("raise %s on the server (it takes a restart) or run fewer --clients", setting),
		"the server has %d connections left (%s %d, %d open, %d reserved), and the run needs %d (%d clients and %d of dbgauge's own)",
		max(left, 0), setting, limit, used, reserved, conns+own, conns, own)
}
