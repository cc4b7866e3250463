package sqlite

import "github.com/dbgauge/dbgauge/internal/backend"

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

// synchronousName turns PRAGMA synchronous's number into its name.
func synchronousName(v string) string {
	switch v {
	case "0":
		return "OFF"
	case "1":
		return "NORMAL"
	case "2":
		return "FULL"
	case "3":
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
