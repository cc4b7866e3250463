package pebble

import "github.com/dbgauge/dbgauge/internal/backend"

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "commits use pebble.Sync: the WAL is fsynced before Commit returns (concurrent commits share one fsync)",
	backend.Lazy: "commits use pebble.NoSync and a background db.LogData(nil, pebble.Sync) fsyncs the WAL every 100 ms (--set SyncInterval=…): a crash loses at most the last interval",
	backend.Off:  "commits use pebble.NoSync: the WAL is written but never fsynced on commit; the OS decides (--set DisableWAL=true drops the WAL too)",
}
