package redis

import (
	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "appendonly yes, appendfsync always: every write is appended to the AOF and fsynced before its reply (one fsync covers the writes of one turn of the event loop)",
	backend.Lazy: "appendonly yes, appendfsync everysec: written to the AOF before the reply, fsynced by a background thread about once a second",
	backend.Off:  "appendonly yes, appendfsync no: written to the AOF before the reply, never fsynced by Redis; the OS decides",
}

// fsyncs are appendfsync's values at each level.
var fsyncs = map[backend.Durability]string{backend.Sync: "always", backend.Lazy: "everysec", backend.Off: "no"}

// promises are what Redis's documentation promises each level keeps
// (https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/,
// and redis.conf's comments on appendfsync). It says what each policy may
// lose "if there is a disaster", without setting a crash of the server apart
// from a power loss: only always is promised to keep everything through
// either; everysec and no are promised nothing (docs/backends/redis.md).
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "appendfsync always: \"fsync every time new commands are appended to the AOF. Very very slow, very safe\" (redis.io, persistence)"},
	backend.Lazy: {Doc: "appendfsync everysec: \"you may lose 1 second of data if there is a disaster\" (redis.io, persistence; up to 2 s when an fsync is slow, redis.conf); a crash of the server alone is not set apart"},
	backend.Off:  {Doc: "appendfsync no: \"don't fsync, just let the OS flush the data when it wants\" (redis.conf): nothing is promised"},
}

// owns is what the levels decide: the AOF is on at every level, and when
// it is fsynced.
var owns = []backend.Owned{
	{Key: "appendonly", Allows: map[backend.Durability][]string{backend.Sync: {"yes"}, backend.Lazy: {"yes"}, backend.Off: {"yes"}}},
	{Key: "appendfsync", Allows: map[backend.Durability][]string{backend.Sync: {"always"}, backend.Lazy: {"everysec"}, backend.Off: {"no"}}},
}

// mapDurability returns the configuration parameters of a durability level.
func mapDurability(d backend.Durability) (map[string]string, error) {
	f, ok := fsyncs[d]
	if !ok {
		return nil, knob.Bad("give sync, lazy or off", "redis has no durability %q", d)
	}
	return map[string]string{"appendonly": "yes", "appendfsync": f}, nil
}
