package bdb

import "github.com/dbgauge/dbgauge/internal/backend"

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "DB_TXN_SYNC (the default): the log is written and flushed at every commit",
	backend.Lazy: "DB_TXN_WRITE_NOSYNC and a background DB_ENV->log_flush every 100 ms (--set SyncInterval=…): the log is written at commit, flushed by dbgauge",
	backend.Off:  "DB_TXN_NOSYNC: the log is neither written nor flushed at commit; Berkeley DB writes its buffer when full",
}

// owns is what the levels decide: the environment's two flags.
var owns = []backend.Owned{
	{Key: "DB_TXN_NOSYNC", Allows: map[backend.Durability][]string{backend.Sync: {"false"}, backend.Lazy: {"false"}, backend.Off: {"true"}}, Canon: backend.CanonBool("true", "false")},
	{Key: "DB_TXN_WRITE_NOSYNC", Allows: map[backend.Durability][]string{backend.Sync: {"false"}, backend.Lazy: {"true"}, backend.Off: {"false"}}, Canon: backend.CanonBool("true", "false")},
}

// promises are what Berkeley DB's documentation (DB_ENV->set_flags)
// promises each level keeps: DB_TXN_WRITE_NOSYNC "will maintain
// transactional semantics … if the application fails, but not if the
// system fails"; DB_TXN_NOSYNC "may lose … if the application or system
// fails".
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "DB_TXN_SYNC: the log is flushed at commit"},
	backend.Lazy: {Crash: true, Doc: "DB_TXN_WRITE_NOSYNC: \"transactional semantics\" kept if the application fails, \"but not if the system fails\" (DB_ENV->set_flags)"},
	backend.Off:  {Doc: "DB_TXN_NOSYNC: the last transactions \"may be undone\" if the application or system fails (DB_ENV->set_flags)"},
}
