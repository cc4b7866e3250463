package mariadb

import (
	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "innodb_flush_log_at_trx_commit=1, sync_binlog=1: the redo log is written and flushed at every commit (group commit shares flushes)",
	backend.Lazy: "innodb_flush_log_at_trx_commit=2, sync_binlog=0: written at commit, flushed about once a second; a crash of the machine loses up to a second",
	backend.Off:  "innodb_flush_log_at_trx_commit=0, sync_binlog=0: written and flushed about once a second; even a server crash loses up to a second",
}

// promises are what MariaDB's documentation (innodb_flush_log_at_trx_commit)
// promises each level keeps: 2 writes the redo log to the OS at every
// commit, which survives a crash of the server, not of the machine; 0
// writes it about once a second, which even a server crash may lose.
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "innodb_flush_log_at_trx_commit=1: the redo log is flushed at every commit"},
	backend.Lazy: {Crash: true, Doc: "innodb_flush_log_at_trx_commit=2: survives a crash of the server, not of the machine (up to a second lost)"},
	backend.Off:  {Doc: "innodb_flush_log_at_trx_commit=0: even a crash of the server may lose up to a second of commits"},
}

// mapDurability returns the server variables of a durability level.
func mapDurability(d backend.Durability) (map[string]string, error) {
	switch d {
	case backend.Sync:
		return map[string]string{"innodb_flush_log_at_trx_commit": "1", "sync_binlog": "1"}, nil
	case backend.Lazy:
		return map[string]string{"innodb_flush_log_at_trx_commit": "2", "sync_binlog": "0"}, nil
	case backend.Off:
		return map[string]string{"innodb_flush_log_at_trx_commit": "0", "sync_binlog": "0"}, nil
	}
	return nil, knob.Bad("give sync, lazy or off", "mariadb has no durability %q", d)
}

// owns is what the levels decide: when the redo log is flushed (3 flushes
// at every commit as 1 does), and, at sync, the binary log's sync at every
// commit too.
var owns = []backend.Owned{
	{Key: "innodb_flush_log_at_trx_commit", Allows: map[backend.Durability][]string{
		backend.Sync: {"1", "3"}, backend.Lazy: {"2"}, backend.Off: {"0"},
	}},
	{Key: "sync_binlog", Allows: map[backend.Durability][]string{backend.Sync: {"1"}}},
}
