package redis

import (
	"errors"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/dberr"
)

var errTxOpen, errNoTx = backend.TxStateErrors("redis")

type class struct {
	class dberr.Class
	kind  dberr.Kind
}

// prefixes maps the error kinds of Redis's replies: the first word of an
// error reply is its code (RESP: "-WRONGTYPE Operation against a key…").
var prefixes = map[string]class{
	"LOADING":     {dberr.Unavailable, dberr.Busy},       // the server is loading its data (after a restart)
	"BUSY":        {dberr.Retryable, dberr.Busy},         // a script runs
	"TRYAGAIN":    {dberr.Retryable, dberr.Busy},         // a multi-key command during resharding
	"MASTERDOWN":  {dberr.Unavailable, dberr.Connection}, // a replica lost its primary
	"READONLY":    {dberr.Unavailable, dberr.Connection}, // a write to a replica
	"MISCONF":     {dberr.Unavailable, dberr.IO},         // the server cannot persist (an AOF write failed): it refuses writes
	"OOM":         {dberr.Unavailable, dberr.IO},         // maxmemory reached
	"NOREPLICAS":  {dberr.Unavailable, dberr.Connection}, // min-replicas-to-write not met
	"EXECABORT":   {dberr.Fatal, dberr.Other},            // a queued command was refused: a bug
	"WRONGTYPE":   {dberr.Fatal, dberr.Other},            // a key of another type: not dbgauge's
	"NOAUTH":      {dberr.Fatal, dberr.Other},            // no password given
	"WRONGPASS":   {dberr.Fatal, dberr.Other},            // a wrong password
	"NOPERM":      {dberr.Fatal, dberr.Other},            // the ACL user may not
	"ERR":         {dberr.Fatal, dberr.Other},            // a wrong command or argument
	"NOSCRIPT":    {dberr.Fatal, dberr.Other},            // dbgauge runs no scripts
	"CROSSSLOT":   {dberr.Fatal, dberr.Other},            // a cluster: not supported
	"MOVED":       {dberr.Unavailable, dberr.Connection}, // a cluster: not supported
	"ASK":         {dberr.Unavailable, dberr.Connection}, // a cluster: not supported
	"CLUSTERDOWN": {dberr.Unavailable, dberr.Connection}, // a cluster: not supported
}

// sentinels are go-redis's own errors.
var sentinels = []dberr.Sentinel{
	// EXEC answered nil: a key the transaction read (WATCH) changed before
	// it committed; nothing was written.
	{Err: goredis.TxFailedErr, Class: dberr.Retryable, Kind: dberr.Serialization, Code: "EXEC nil (WATCH)"},
	{Err: goredis.ErrClosed, Class: dberr.Unavailable, Kind: dberr.Connection, Code: "ErrClosed"},
	{Err: goredis.ErrPoolTimeout, Class: dberr.Unavailable, Kind: dberr.Timeout, Code: "ErrPoolTimeout"},
	{Err: goredis.ErrPoolExhausted, Class: dberr.Unavailable, Kind: dberr.Connection, Code: "ErrPoolExhausted"},
	{Err: backend.ErrNoSuchTable, Class: dberr.Fatal, Kind: dberr.Other, Code: "no such table"},
}

// classify wraps a go-redis error in a classified *dberr.Error: a reply's
// error by its code (its first word), the client's by its sentinels, a
// lost or refused connection as unavailable.
func classify(err error) error {
	if dberr.Classified(err) {
		return err
	}
	if c := dberr.Match(err, sentinels); c != nil {
		return c
	}
	var re goredis.Error
	if errors.As(err, &re) {
		code, _, _ := strings.Cut(re.Error(), " ")
		if goredis.IsMaxClientsError(err) {
			return dberr.New(dberr.Unavailable, dberr.Connection, code, err)
		}
		c, ok := prefixes[code]
		if !ok {
			c = class{dberr.Fatal, dberr.Other}
		}
		return dberr.New(c.class, c.kind, code, err)
	}
	if c := backend.CanceledOrLost(err); c != nil {
		return c
	}
	return dberr.SystemIO(dberr.New(dberr.Fatal, dberr.Other, "", err))
}
