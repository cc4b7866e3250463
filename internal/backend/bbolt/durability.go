package bbolt

import "github.com/dbgauge/dbgauge/internal/backend"

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "NoSync=false: fdatasync of the file at every commit",
	backend.Lazy: "NoSync=true and a background db.Sync() every 100 ms (--set SyncInterval=…): a crash loses at most the last interval",
	backend.Off:  "NoSync=true: bbolt never syncs; the OS decides when data reaches the disk",
}

// owns is what the levels decide of bbolt's DB: whether a commit syncs.
var owns = []backend.Owned{
	{Key: "NoSync", Allows: map[backend.Durability][]string{backend.Sync: {"false"}, backend.Lazy: {"true"}, backend.Off: {"true"}}, Canon: backend.CanonBool("true", "false")},
}

// promises are what bbolt's documentation (DB.NoSync) promises each level
// keeps: every commit is written to the file; without its fdatasync only
// the OS holds it, which a crash of the process leaves alone.
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "NoSync=false: fdatasync at every commit"},
	backend.Lazy: {Crash: true, Doc: "NoSync=true and a sync every 100 ms: a process crash loses nothing; a power loss up to the last interval"},
	backend.Off:  {Crash: true, Doc: "NoSync=true: a process crash loses nothing; a power loss may lose commits or corrupt the file"},
}
