package gdbm

import "github.com/dbgauge/dbgauge/internal/backend"

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "a transaction's writes are applied at commit, then gdbm_sync (fsync) of every file they touched before the commit returns; GDBM_SYNC stays off",
	backend.Lazy: "writes applied at commit; a background gdbm_sync of every file written since the last one, every 100 ms (--set SyncInterval=…): a crash loses at most the last interval",
	backend.Off:  "writes applied at commit, never synced (gdbm_close syncs at the end); the OS decides when data reaches the disk",
}

// promises are what gdbm's documentation (gdbm_sync) promises each level
// keeps: writes reach the OS at commit; only a sync makes them survive a
// power loss.
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "gdbm_sync of every file a commit touched before it returns"},
	backend.Lazy: {Crash: true, Doc: "gdbm_sync every 100 ms: a process crash loses nothing; a power loss up to the last interval"},
	backend.Off:  {Crash: true, Doc: "never synced: a process crash loses nothing; a power loss may lose commits"},
}
