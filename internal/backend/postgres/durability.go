package postgres

import (
	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "synchronous_commit=on, fsync=on: a commit returns once its WAL is flushed (concurrent commits share flushes: group commit)",
	backend.Lazy: "synchronous_commit=off, wal_writer_delay=100ms: commits return at once and the WAL writer flushes every 100 ms (the NMS evaluation's lazy mode); a crash loses at most ~3 × 100 ms, never consistency",
	backend.Off:  "fsync=off (managed servers only): the server never flushes; a crash of the machine can corrupt the cluster",
}

// mapDurability returns the server parameters of a durability level. On a
// server of the user's, only what a session may set can be asked for.
func mapDurability(d backend.Durability, managed bool) (map[string]string, error) {
	switch d {
	case backend.Sync:
		if managed {
			return map[string]string{"synchronous_commit": "on", "fsync": "on"}, nil
		}
		return map[string]string{"synchronous_commit": "on"}, nil
	case backend.Lazy:
		if managed {
			return map[string]string{"synchronous_commit": "off", "wal_writer_delay": "100ms"}, nil
		}
		return map[string]string{"synchronous_commit": "off"}, nil
	case backend.Off:
		if managed {
			return map[string]string{"fsync": "off"}, nil
		}
		return nil, knob.Bad("use --db postgres:managed, or set fsync=off on your server yourself and say --durability sync",
			"--durability off turns fsync off, which dbgauge does only on a server it manages")
	}
	return nil, knob.Bad("give sync, lazy or off", "postgres has no durability %q", d)
}

// owns is what the levels decide: whether a commit waits for its WAL's
// flush (local, remote_write and remote_apply wait for the local flush
// too), and whether the server flushes at all. Off leaves
// synchronous_commit free: with fsync off nothing is flushed either way.
var owns = []backend.Owned{
	{Key: "synchronous_commit", Allows: map[backend.Durability][]string{
		backend.Sync: {"on", "local", "remote_write", "remote_apply"}, backend.Lazy: {"off"},
	}, Canon: backend.CanonBool("on", "off")},
	{Key: "fsync", Allows: map[backend.Durability][]string{
		backend.Sync: {"on"}, backend.Lazy: {"on"}, backend.Off: {"off"},
	}, Canon: backend.CanonBool("on", "off")},
}

// promises are what PostgreSQL's documentation ("Asynchronous Commit",
// "fsync") promises each level keeps: an asynchronous commit's WAL may
// still be in the server's buffers when it dies; with fsync=off every
// commit's WAL reaches the OS, which a power loss may not keep.
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "synchronous_commit=on: a commit returns once its WAL is flushed"},
	backend.Lazy: {Doc: "synchronous_commit=off: a crash of the server or the machine may lose up to 3 × wal_writer_delay of commits, never consistency"},
	backend.Off:  {Crash: true, Doc: "fsync=off: a server crash loses nothing; a power loss may lose commits or corrupt the cluster"},
}
