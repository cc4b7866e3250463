package pebble

import "github.com/dbgauge/dbgauge/internal/backend"

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "commits use pebble.Sync: the WAL is fsynced before Commit returns (concurrent commits share one fsync)",
	backend.Lazy: "commits use pebble.NoSync and a background db.LogData(nil, pebble.Sync) fsyncs the WAL every 100 ms (--set SyncInterval=…): a crash loses at most the last interval",
	backend.Off:  "commits use pebble.NoSync: the WAL is written but never fsynced on commit; the OS decides (--set DisableWAL=true drops the WAL too)",
}

// owns is what the levels decide of pebble's options: a WAL to sync.
var owns = []backend.Owned{
	{Key: "DisableWAL", Allows: map[backend.Durability][]string{backend.Sync: {"false"}, backend.Lazy: {"false"}}, Canon: backend.CanonBool("true", "false")},
}

// promises are what Pebble's documentation (WriteOptions.Sync) promises
// each level keeps: a NoSync commit may return before its WAL record is
// written to the file, so even a crash of the process may lose it.
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "pebble.Sync: the WAL is fsynced before Commit returns"},
	backend.Lazy: {Doc: "pebble.NoSync, the WAL fsynced every 100 ms: a crash may lose the last commits"},
	backend.Off:  {Doc: "pebble.NoSync: a crash may lose the last commits"},
}
