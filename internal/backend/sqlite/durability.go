package sqlite

import (
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// durabilityPragmas maps the common durability knob. WAL in every mode, so
// that readers never block the writer and several clients work.
var durabilityPragmas = map[backend.Durability][]backend.KeyValue{
	backend.Sync: {{Key: "journal_mode", Value: "WAL"}, {Key: "synchronous", Value: "FULL"}},
	backend.Lazy: {{Key: "journal_mode", Value: "WAL"}, {Key: "synchronous", Value: "NORMAL"}},
	backend.Off:  {{Key: "journal_mode", Value: "WAL"}, {Key: "synchronous", Value: "OFF"}},
}

var durabilityDoc = map[backend.Durability]string{
	backend.Sync: "PRAGMA journal_mode=WAL, synchronous=FULL: the WAL is fsynced at every commit",
	backend.Lazy: "PRAGMA journal_mode=WAL, synchronous=NORMAL: the WAL is fsynced only at checkpoints; a power loss may lose the last commits, never consistency",
	backend.Off:  "PRAGMA journal_mode=WAL, synchronous=OFF: SQLite never fsyncs; the OS decides when data reaches the disk",
}

// owns is what the levels decide: PRAGMA synchronous, and a journal that
// keeps a commit whole through a crash at every level (WAL is dbgauge's;
// DELETE, TRUNCATE and PERSIST keep it too, MEMORY and OFF do not).
var owns = []backend.Owned{
	{Key: "synchronous", Allows: map[backend.Durability][]string{
		backend.Sync: {"FULL", "EXTRA"}, backend.Lazy: {"NORMAL"}, backend.Off: {"OFF"},
	}, Canon: synchronousName},
	{Key: "journal_mode", Allows: map[backend.Durability][]string{
		backend.Sync: journals, backend.Lazy: journals, backend.Off: journals,
	}, Canon: strings.ToLower},
}

var journals = []string{"wal", "delete", "truncate", "persist"}

// synchronousName turns PRAGMA synchronous's value (its number, or its
// name in any case) into its name.
func synchronousName(v string) string {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "0", "OFF":
		return "OFF"
	case "1", "NORMAL":
		return "NORMAL"
	case "2", "FULL":
		return "FULL"
	case "3", "EXTRA":
		return "EXTRA"
	}
	return v
}

// promises are what SQLite's documentation ("PRAGMA synchronous", "WAL")
// promises each level keeps: WAL with NORMAL or OFF hands every commit to
// the OS at once, so a crash of the process loses nothing, a power loss may.
var promises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "synchronous=FULL: a commit is durable through a crash and a power loss"},
	backend.Lazy: {Crash: true, Doc: "WAL, synchronous=NORMAL: durable through an application crash; a power loss may roll back the last commits"},
	backend.Off:  {Crash: true, Doc: "synchronous=OFF: durable through an application crash; a power loss may lose commits or corrupt the database"},
}
