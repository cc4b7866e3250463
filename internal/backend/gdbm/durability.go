package gdbm

import "github.com/dbgauge/dbgauge/internal/backend"

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "a transaction's writes are applied at commit, then gdbm_sync (fsync) of every file they touched before the commit returns; GDBM_SYNC stays off",
	backend.Lazy: "writes applied at commit; a background gdbm_sync of every file written since the last one, every 100 ms (--set SyncInterval=…): a crash loses at most the last interval",
	backend.Off:  "writes applied at commit, never synced (gdbm_close syncs at the end); the OS decides when data reaches the disk",
}
