package redis

import (
	goredis "github.com/redis/go-redis/v9"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/redact"
)

// parseURL reads --db redis://[USER:PASSWORD@]HOST:PORT/DB (rediss:// for
// TLS) with go-redis's own parser; its query parameters are go-redis's
// options. No message holds the password.
func parseURL(db string) (*goredis.Options, error) {
	o, err := goredis.ParseURL(db)
	if err != nil {
		return nil, knob.Bad("write it as redis://:PASSWORD@HOST:6379/0 (rediss:// for TLS)",
			"--db %s is not a Redis URL: %s", redact.DSN(db), redact.DSN(err.Error()))
	}
	return o, nil
}

// preflight checks that --db is a Redis URL and that something answers at
// its address.
func preflight(db string) error {
	o, err := parseURL(db)
	if err != nil {
		return err
	}
	return backend.Reachable(o.Network, o.Addr, redact.DSN(db))
}
