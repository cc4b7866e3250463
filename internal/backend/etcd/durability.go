package etcd

import (
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "etcd's default: every member fsyncs its Raft WAL before it acknowledges an entry, and a commit is acknowledged once a majority has it",
	backend.Lazy: backend.Refuse("etcd has no periodic or deferred fsync: its WAL is fsynced before every entry is acknowledged, or never (--durability off)"),
	backend.Off:  "--unsafe-no-fsync: the WAL and the backend are written but never fsynced; the OS decides",
}

// promises are what etcd's documentation promises each level keeps: a
// write acknowledged has been fsynced to the WAL of a majority of members
// (https://etcd.io/docs/v3.4/learning/api_guarantees/: "durability … any
// completed operations are durable"); --unsafe-no-fsync "may cause data
// loss" (etcd --help: "CAUTIOUS with unsafe flag! It may break the
// guarantees given by the consensus protocol"), and says no more.
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "\"any completed operations are durable\" (etcd API guarantees): the WAL is fsynced before an entry is acknowledged"},
	backend.Off:  {Doc: "--unsafe-no-fsync: \"It may break the guarantees given by the consensus protocol\" (etcd --help): nothing is promised"},
}

// owns is what the levels decide: whether the WAL is fsynced.
var owns = []backend.Owned{
	{Key: "unsafe-no-fsync", Allows: map[backend.Durability][]string{backend.Sync: {"false"}, backend.Off: {"true"}}},
}

// noFsync says whether level d runs with --unsafe-no-fsync.
func noFsync(d backend.Durability) (bool, error) {
	switch d {
	case backend.Sync:
		return false, nil
	case backend.Off:
		return true, nil
	case backend.Lazy:
		why, _ := strings.CutPrefix(durabilityDoc[backend.Lazy], backend.Refused)
		return false, knob.Bad("use --durability sync or off", "etcd refuses --durability lazy: %s", why)
	}
	return false, knob.Bad("give sync or off", "etcd has no durability %q", d)
}
