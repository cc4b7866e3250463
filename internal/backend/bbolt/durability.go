package bbolt

import "github.com/dbgauge/dbgauge/internal/backend"

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "NoSync=false: fdatasync of the file at every commit",
	backend.Lazy: "NoSync=true and a background db.Sync() every 100 ms (--set SyncInterval=…): a crash loses at most the last interval",
	backend.Off:  "NoSync=true: bbolt never syncs; the OS decides when data reaches the disk",
}
