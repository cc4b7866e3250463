package redis

import (
	"context"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/backend/backendtest"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

// reply is an error reply as go-redis returns one (goredis.Error): its
// first word is the code.
type reply string

func (r reply) Error() string { return string(r) }
func (reply) RedisError()     {}

func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	backendtest.Classify(t, classify, backendtest.HoldKind|backendtest.HoldCode, []backendtest.ClassCase{
		{Err: goredis.TxFailedErr, Class: dberr.Retryable, Kind: dberr.Serialization, Code: "EXEC nil (WATCH)"},
		{Err: reply("LOADING Redis is loading the dataset in memory"), Class: dberr.Unavailable, Kind: dberr.Busy, Code: "LOADING"},
		{Err: reply("BUSY Redis is busy running a script."), Class: dberr.Retryable, Kind: dberr.Busy, Code: "BUSY"},
		{Err: reply("MISCONF Errors writing to the AOF file: No space left on device"), Class: dberr.Unavailable, Kind: dberr.IO, Code: "MISCONF"},
		{Err: reply("OOM command not allowed when used memory > 'maxmemory'."), Class: dberr.Unavailable, Kind: dberr.IO, Code: "OOM"},
		{Err: reply("READONLY You can't write against a read only replica."), Class: dberr.Unavailable, Kind: dberr.Connection, Code: "READONLY"},
		{Err: reply("WRONGTYPE Operation against a key holding the wrong kind of value"), Class: dberr.Fatal, Kind: dberr.Other, Code: "WRONGTYPE"},
		{Err: reply("EXECABORT Transaction discarded because of previous errors."), Class: dberr.Fatal, Kind: dberr.Other, Code: "EXECABORT"},
		{Err: reply("NOSUCHCODE something new"), Class: dberr.Fatal, Kind: dberr.Other, Code: "NOSUCHCODE"},
		{Err: fmt.Errorf("exec: %w", refused), Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: io.EOF, Class: dberr.Unavailable, Kind: dberr.Connection},
		{Err: goredis.ErrClosed, Class: dberr.Unavailable, Kind: dberr.Connection, Code: "ErrClosed"},
		{Err: context.Canceled, Class: dberr.Canceled, Kind: dberr.Interrupted},
		{Err: backend.TableError("t"), Class: dberr.Fatal, Kind: dberr.Other, Code: "no such table"},
	})
}
