// Package zodb is ZODB's FileStorage (engine zodb), run in a Python worker
// (internal/pyworker) because ZODB has no Go client, and what every ZODB
// engine shares: the key-value tables over the storage API (DB, conn; the
// worker's worker.py), the pinned environment (Env), the errors. The
// engines whose storage is a server (zeo, below) are folders of their own
// under this one.
package zodb

import (
	"context"
	"fmt"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
)

// Spec registers zodb in the catalog.
var Spec = backend.Embedded(backend.Spec{
	Name:       "zodb",
	Summary:    "ZODB's FileStorage (ZODB 6.4 in a Python worker): the storage API's two-phase commit, one file, fsync at every commit",
	Ext:        ".fs",
	API:        backend.KV,
	Forms:      []string{"zodb (a Data.fs in the run's folder)", "zodb:PATH"},
	Driver:     "dbgauge's ZODB worker (Python, internal/pyworker)",
	Durability: FileDurability,
	Promises:   FilePromises,
	Expect: map[backend.Durability]map[string]string{
		backend.Sync: {"fsync_at_finish": "true"},
	},
	Flushes: "FileStorage's fsyncs: one in each tpc_finish (_finish_finish), counted as the commits the worker acknowledged",
	Prepare: backend.NoStatements,
	Knobs:   []knob.Spec{EnvKnob},
	Own:     OwnKnobs,
	NoCache: "the storage API has no cache of its own in the client's process (ZODB's object cache is a Connection's: the objects workload)",
	// --dataset's estimate (docs/data.md): measured (kv, 100,000 records
	// of 100 bytes: 23.5 MiB): a data record's header (42 bytes), the
	// record's pickles beside key and value, the transactions' headers.
	RecordOverhead: 140,
	NoPageSize:     "a FileStorage is a log of transactions: it has no pages",
	Open:           open,
})

// FileDurability is what each level is on a FileStorage: ZODB fsyncs the
// file in every tpc_finish and has no setting to do otherwise.
var FileDurability = map[backend.Durability]string{
	backend.Sync: "FileStorage fsyncs Data.fs in every tpc_finish (ZODB has no setting to skip it); read back: fsync_at_finish",
	backend.Lazy: backend.Refuse("FileStorage fsyncs at every commit and has no setting for a later flush"),
	backend.Off:  backend.Refuse("FileStorage fsyncs at every commit and has no setting to skip it"),
}

// FilePromises is what ZODB's documentation promises a FileStorage keeps:
// a transaction is on disk, fsynced, when tpc_finish returns.
var FilePromises = map[backend.Durability]backend.Promise{
	backend.Sync: {Crash: true, Power: true, Doc: "FileStorage: the transaction is written and fsynced in tpc_finish (ZODB/FileStorage/FileStorage.py _finish_finish)"},
}

// Level checks that d is a level the ZODB engines have, as bad input.
func Level(engine string, d backend.Durability, doc map[backend.Durability]string) error {
	if why, refused := (backend.Spec{Durability: doc}).DurabilityRefusal(d); refused {
		return knob.Bad("give --durability sync", "%s has no durability %s: %s", engine, d, why)
	}
	if _, ok := doc[d]; !ok {
		return knob.Bad("give --durability sync", "%s has no durability %q", engine, d)
	}
	return nil
}

func open(ctx context.Context, o backend.Options) (backend.DB, error) {
	if err := Level("zodb", o.Durability, FileDurability); err != nil {
		return nil, err
	}
	if err := backend.ApplySet("zodb", nil, o.Set); err != nil {
		return nil, err
	}
	python, err := Python(o)
	if err != nil {
		return nil, err
	}
	path := o.EmbeddedPath("zodb", "Data.fs")
	d, err := Open(ctx, Config{Engine: "zodb", Python: python, Storage: Storage{Kind: "file", Path: path}, Shared: true})
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return d, nil
}
