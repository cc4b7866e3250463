// Package nms is the network-management call-processing workload of seed 000:
// a satellite network's VSATs and channel units, and the frequency channels
// allocated to calls. One unit is one call of --ops-per-call operations.
package nms

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers nms in the catalog.
var Spec = workload.Spec{
	Name:    "nms",
	Summary: "network-management call processing: insert a channel, update VSATs and CUs, clear a call",
	Source:  "the NMS evaluation: Solid DB against ndbm for a satellite network-management system (calls/s against a requirement of 16 calls/s)",
	Unit:    "call",
	Units:   "calls",
	APIs:    []backend.API{backend.SQL, backend.KV},
	Knobs: []knob.Spec{
		{Name: "lines", Default: "2500", Kind: knob.Int, Uses: knob.ForLoad | knob.ForCheck, Usage: "VSATs, and as many CUs (the NMS evaluation tried 900, 2500 and 25000)"},
		{Name: "ops-per-call", Default: "15", Kind: knob.Int, Values: "3..", Uses: knob.ForLoad, Usage: "operations that make one call (15 in the NMS evaluation); a stored procedure (--procedure) is made for this many"},
		{Name: "procedure", Kind: knob.Switch, Uses: knob.ForLoad, Usage: "run each call as one stored procedure (engines that have them)"},
	},
	New: newNMS,
}

// Config is nms's typed configuration, recorded in the result.
type Config struct {
	Lines      int    `json:"lines"`
	OpsPerCall int    `json:"ops_per_call"`
	Channels   int    `json:"channels"` // active channels loaded: half the lines
	Procedure  bool   `json:"procedure"`
	Commit     string `json:"commit"`
}

// The operations of a call, as timed and reported.
const (
	opBegin = iota
	opInsert
	opUpdateVSAT
	opUpdateCU
	opDelete
	opCommit
	opProcedure
)

var opNames = []string{"begin", "insert_channel", "update_vsat", "update_cu", "delete_channel", "commit", "procedure"}

type nms struct {
	cfg    Config
	common workload.Common
	nextID atomic.Int64 // next channel id
	base   tally        // the dataset's state before the run
	acked  struct {     // operations whose commit returned
		inserts, deletes, vsat, cu atomic.Int64
	}
	// unknown counts the operations of commits that failed with their
	// connection (workload.Ambiguous): the engine may have made them.
	unknown struct {
		inserts, deletes, vsat, cu atomic.Int64
	}
	notes  []string
	ledger workload.Ledger // told of every channel each commit makes or clears
}

// SetLedger makes every commit tell l the channels it sets up (Committing,
// Acked) and clears (Removing, Removed).
func (w *nms) SetLedger(l workload.Ledger) { w.ledger = l }

// Present returns the ids of the channels the database holds.
func (w *nms) Present(ctx context.Context, db backend.DB) (map[int64]bool, error) {
	s, err := w.admin(ctx, db)
	if err != nil {
		return nil, err
	}
	defer s.close()
	ids, err := s.ownedChannels(ctx, 1, 0)
	out := make(map[int64]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, err
}

func newNMS(c workload.Common, v *knob.Values) (workload.Workload, error) {
	lines, err := v.Int("lines", 1, 10_000_000)
	if err != nil {
		return nil, err
	}
	ops, err := v.Int("ops-per-call", 3, 10_000)
	if err != nil {
		return nil, err
	}
	proc, err := v.Bool("procedure")
	if err != nil {
		return nil, err
	}
	if proc && c.Commit.Mode == workload.PerOp {
		return nil, knob.Bad("use --commit unit or every:N with --procedure", "--procedure makes a call one statement, so --commit op has no operations to commit one by one")
	}
	cfg := Config{
		Lines: int(lines), OpsPerCall: int(ops), Channels: max(int(lines)/2, 1),
		Procedure: proc, Commit: c.Commit.String(),
	}
	return &nms{cfg: cfg, common: c, notes: notes()}, nil
}

func (w *nms) Shape() workload.Shape {
	return workload.Shape{Units: []workload.Weighted{{Name: "call", Weight: 1}}, Ops: opNames}
}

func (w *nms) Config() any { return w.cfg }

// Requires asks for stored procedures when --procedure is given.
func (w *nms) Requires() []backend.Ability {
	if w.cfg.Procedure {
		return []backend.Ability{backend.Procedures}
	}
	return nil
}

func (w *nms) admin(ctx context.Context, db backend.DB) (store, error) {
	switch d := db.(type) {
	case backend.SQLDB:
		c, err := d.Conn(ctx)
		if err != nil {
			return nil, err
		}
		return newSQLStore(c, d.Dialect()), nil
	case backend.KVDB:
		c, err := d.KVConn(ctx)
		if err != nil {
			return nil, err
		}
		return &kvStore{c: c}, nil
	}
	return nil, fmt.Errorf("nms: backend %T is neither SQL nor key-value", db)
}

// Load builds the dataset for --lines, or reuses one built for the same
// number of lines, then takes the baseline the checks compare against.
func (w *nms) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	s, err := w.admin(ctx, db)
	if err != nil {
		return workload.Dataset{}, err
	}
	defer s.close()
	ds := workload.Dataset{}
	lines, found, err := s.datasetLines(ctx)
	if err != nil {
		return ds, err
	}
	if found && lines == w.cfg.Lines {
		ds.Reused = true
	} else if err := s.rebuild(ctx, w.cfg.Lines, w.cfg.Channels, newGenerator(w.cfg.Lines)); err != nil {
		return ds, fmt.Errorf("nms: load %d lines: %w", w.cfg.Lines, err)
	}
	if w.cfg.Procedure {
		p, ok := s.(procedureStore)
		if !ok {
			return ds, backend.Unsupported("nms on this engine", "run a call as a stored procedure", "drop --procedure")
		}
		if err := p.createProcedure(ctx, w.cfg.OpsPerCall-2); err != nil {
			return ds, fmt.Errorf("nms: create the call procedure: %w", err)
		}
	}
	if w.base, err = s.tally(ctx, false); err != nil {
		return ds, err
	}
	w.nextID.Store(w.base.maxChannel + 1)
	ds.Facts = map[string]string{
		"vsats": strconv.FormatInt(w.base.vsats, 10), "cus": strconv.FormatInt(w.base.cus, 10),
		"channels": strconv.FormatInt(w.base.channels, 10),
	}
	return ds, nil
}

// Client opens client id's store and takes its share of the active channels:
// those whose id is id modulo the number of clients.
func (w *nms) Client(ctx context.Context, db backend.DB, id int, rng *rand.Rand) (workload.Client, error) {
	s, err := w.admin(ctx, db)
	if err != nil {
		return nil, err
	}
	owned, err := s.ownedChannels(ctx, int64(max(w.common.Clients, 1)), int64(id))
	if err != nil {
		_ = s.close()
		return nil, err
	}
	return &client{w: w, s: s, rng: rng, q: newQueue(owned), g: workload.Group{Commit: w.common.Commit}}, nil
}

// Check compares the dataset with what the run acknowledged.
func (w *nms) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	s, err := w.admin(ctx, db)
	if err != nil {
		return nil, err
	}
	defer s.close()
	t, err := s.tally(ctx, true)
	if err != nil {
		return nil, err
	}
	ins, del := w.acked.inserts.Load(), w.acked.deletes.Load()
	wantCh := w.base.channels + ins - del
	wantV := w.base.vsatUpdates + w.acked.vsat.Load()
	wantC := w.base.cuUpdates + w.acked.cu.Load()
	u := &w.unknown
	lines := int64(w.cfg.Lines)
	maybe := func(n int64) string {
		if n == 0 {
			return ""
		}
		return fmt.Sprintf(" (up to %d more or less from commits whose outcome is unknown: their connection died)", n)
	}
	return []workload.Check{
		{Name: "lines", OK: t.vsats == lines && t.cus == lines,
			Detail: fmt.Sprintf("%d VSATs and %d CUs, want %d of each", t.vsats, t.cus, lines)},
		{Name: "no_orphan_channels", OK: t.orphans == 0,
			Detail: fmt.Sprintf("%d channels point to a missing VSAT or CU", t.orphans)},
		{Name: "channels_match_acknowledged", OK: t.channels >= wantCh-u.deletes.Load() && t.channels <= wantCh+u.inserts.Load(),
			Detail: fmt.Sprintf("%d channels; %d before + %d inserts − %d deletes acknowledged = %d", t.channels, w.base.channels, ins, del, wantCh) +
				maybe(max(u.inserts.Load(), u.deletes.Load()))},
		{Name: "vsat_updates_match_acknowledged", OK: t.vsatUpdates >= wantV && t.vsatUpdates <= wantV+u.vsat.Load(),
			Detail: fmt.Sprintf("update counters sum to %d, acknowledged %d", t.vsatUpdates, wantV) + maybe(u.vsat.Load())},
		{Name: "cu_updates_match_acknowledged", OK: t.cuUpdates >= wantC && t.cuUpdates <= wantC+u.cu.Load(),
			Detail: fmt.Sprintf("update counters sum to %d, acknowledged %d", t.cuUpdates, wantC) + maybe(u.cu.Load())},
	}, nil
}
