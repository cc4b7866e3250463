// Package kv is seed 002's test made general, in the shape of YCSB's core
// workloads: --records records of --value-bytes bytes, and clients that read,
// update, insert, scan and read-modify-write them in the proportions of
// --mix, choosing records uniformly, zipfian, latest first or from a hot
// spot. Its headline is records/s, in total and per client (the seed's
// "cumulative recs/sec"). It speaks key-value: natively on bbolt, gdbm and
// pebble, through sqlkv on every SQL engine.
package kv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers kv in the catalog.
var Spec = workload.Spec{
	Name:    "kv",
	Summary: "YCSB-like records: read, update, insert, scan and read-modify-write in a --mix or a --preset ycsb-a … ycsb-f",
	Source:  "the UniData evaluation: 50, 250 and 400 clients reading records of a linear-hash file (records/s in all and per client); YCSB's core workloads",
	Unit:    "record",
	Units:   "records",
	APIs:    []backend.API{backend.KV},
	Knobs: []knob.Spec{
		{Name: "records", Default: "100000", Kind: knob.Int, Uses: knob.ForLoad, Usage: "records loaded (YCSB recordcount); a dataset of as many records and value bytes is reused"},
		{Name: "value-bytes", Default: "100", Kind: knob.Int, Values: "8..1048576", Uses: knob.ForLoad, Usage: "bytes in each record's value; the first 8 hold its record number, so a read of another record is caught"},
		{Name: "mix", Default: "read=100", Values: "op=W,...", Single: true, Usage: "weights of read, update, insert, scan and rmw (read-modify-write), dealt from a deck; overrides --preset's (the UniData evaluation: read=100)"},
		{Name: "preset", Kind: knob.Choice, Choices: presetNames(), Usage: "a YCSB core workload: its mix and distribution (see docs/workloads/kv.md)"},
		{Name: "distribution", Default: "uniform", Kind: knob.Choice, Choices: []string{"uniform", "zipfian", "latest", "hotspot"}, Usage: "which records operations choose (YCSB requestdistribution, zipfian constant 0.99, scrambled); overrides --preset's"},
		{Name: "hotspot", Default: "0.2:0.8", Values: "DATA:OPS", Usage: "with --distribution hotspot: the fraction DATA of the records gets the fraction OPS of the operations"},
		{Name: "scan-length", Default: "100", Kind: knob.Int, Values: "1..", Usage: "a scan reads 1..N records (uniformly) in key order from the record it chose; one scan is one unit"},
	},
	New: newKV,
}

// Config is kv's typed configuration, recorded in the result.
type Config struct {
	Records      int64  `json:"records"`
	ValueBytes   int    `json:"value_bytes"`
	Preset       string `json:"preset,omitempty"`
	Mix          string `json:"mix"`
	Distribution string `json:"distribution"`
	Hotspot      string `json:"hotspot,omitempty"`
	ScanLength   int    `json:"scan_length,omitempty"`
	Commit       string `json:"commit"`
}

// The operations timed inside units.
const (
	tBegin = iota
	tGet
	tPut
	tScan
	tCommit
)

var timedOps = []string{"begin", "get", "put", "scan", "commit"}

// The table of records (YCSB's usertable), and the record of what was
// loaded, in the meta table nms shares.
const (
	table   = "usertable"
	tMeta   = "dbgauge_meta"
	metaKey = "kv.dataset"
)

// loadBatch is the number of records per transaction while loading, unless
// their values would take more than loadBytes.
const (
	loadBatch = 10_000
	loadBytes = 64 << 20
)

// maxRecords bounds --records (and what --dataset resolves to).
const maxRecords = 2_000_000_000

// loadStream is the random stream of the load, apart from every client's.
const loadStream = 1 << 40

type kv struct {
	cfg      Config
	common   workload.Common
	progress func(done, total int64) // the load's, when someone listens
	mix      Mix
	kinds    []op // unit kind index → operation
	hot      hotspot

	ks      *keyspace
	start   int64   // readable records when the run starts
	zetan   float64 // zeta of start items, for latest
	base    int64   // records present when the run starts
	acked   atomic.Int64
	unknown atomic.Int64 // inserts whose commit's outcome is unknown
	looked  atomic.Int64 // records reads, scans and rmws looked for and found
	missing atomic.Int64 // records that must exist but were not found
	wrong   atomic.Int64 // records whose value was another record's
	once    sync.Once
	ledger  workload.Ledger // told of the records each commit inserts
}

// SetLedger makes every commit tell l the record numbers it inserts
// (Committing, then Acked): dbgauge crash, --backup … --restore-check and
// --failover count the inserted records a fault lost.
func (w *kv) SetLedger(l workload.Ledger) { w.ledger = l }

// Present returns the numbers of the records the database holds (a value
// that is not its key's is left out: the check reports it).
func (w *kv) Present(ctx context.Context, db backend.DB) (map[int64]bool, error) {
	c, err := workload.KVConnOf(ctx, "kv", db)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.Begin(ctx, false); err != nil {
		return nil, err
	}
	defer c.Rollback(ctx)
	out := map[int64]bool{}
	err = c.Scan(ctx, table, func(k, v []byte) error {
		if n, ok := w.numberOf(k, v); ok {
			out[n] = true
		}
		return nil
	})
	return out, err
}

func newKV(c workload.Common, v *knob.Values) (workload.Workload, error) {
	records, err := v.Int("records", 1, maxRecords)
	if err != nil {
		return nil, err
	}
	vb, err := v.Int("value-bytes", 8, 1<<20)
	if err != nil {
		return nil, err
	}
	scanLen, err := v.Int("scan-length", 1, 1_000_000)
	if err != nil {
		return nil, err
	}
	cfg := Config{Records: records, ValueBytes: int(vb), Commit: c.Commit.String(), Distribution: "uniform"}
	mix := Mix{opRead: 100}
	if v.IsSet("preset") {
		name, err := v.Choice("preset")
		if err != nil {
			return nil, err
		}
		p, _ := presetNamed(name)
		cfg.Preset, mix, cfg.Distribution = p.Name, p.Mix, p.Distribution
	}
	if v.IsSet("mix") || cfg.Preset == "" {
		if mix, err = ParseMix(v.Get("mix")); err != nil {
			return nil, err
		}
	}
	if v.IsSet("distribution") || cfg.Preset == "" {
		if cfg.Distribution, err = v.Choice("distribution"); err != nil {
			return nil, err
		}
	}
	w := &kv{cfg: cfg, common: c, mix: mix}
	if cfg.Distribution == "hotspot" {
		if w.hot, err = parseHotspot(v.Get("hotspot")); err != nil {
			return nil, err
		}
		w.cfg.Hotspot = v.Get("hotspot")
	} else if v.IsSet("hotspot") {
		return nil, knob.Bad("add --distribution hotspot, or drop --hotspot", "--hotspot has no effect with --distribution %s", cfg.Distribution)
	}
	if mix.Has(opScan) {
		w.cfg.ScanLength = int(scanLen)
	}
	w.cfg.Mix = mix.String()
	for o := range nOps {
		if mix[o] > 0 {
			w.kinds = append(w.kinds, o)
		}
	}
	return w, nil
}

// parseHotspot parses DATA:OPS, two fractions in (0, 1).
func parseHotspot(s string) (hotspot, error) {
	a, b, ok := strings.Cut(s, ":")
	d, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	o, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if !ok || err1 != nil || err2 != nil || d <= 0 || d >= 1 || o <= 0 || o >= 1 {
		return hotspot{}, knob.Bad("write it as DATA:OPS, two fractions between 0 and 1, e.g. --hotspot 0.2:0.8 (20 % of the records get 80 % of the operations)",
			"--hotspot %q is not DATA:OPS", s)
	}
	return hotspot{data: d, ops: o}, nil
}

func (w *kv) Shape() workload.Shape {
	units := make([]workload.Weighted, len(w.kinds))
	for i, o := range w.kinds {
		units[i] = workload.Weighted{Name: o.String(), Weight: w.mix[o]}
	}
	return workload.Shape{Units: units, Ops: timedOps}
}

func (w *kv) Config() any { return w.cfg }

// SizeKnobs says --dataset replaces --records.
func (w *kv) SizeKnobs() []string { return []string{"records"} }

// SizeFor sets --records so that the records take about bytes on disk: a
// record is its 8-byte key, its value and the engine's overhead. At least
// one record.
func (w *kv) SizeFor(bytes, overhead int64) workload.Sizing {
	per := 8 + int64(w.cfg.ValueBytes) + max(0, overhead)
	w.cfg.Records = max(1, min(maxRecords, bytes/per))
	return workload.Sizing{Items: w.cfg.Records, ItemBytes: per, Unit: "records"}
}

// Requires asks for range scans when the mix scans (gdbm hashes its keys).
func (w *kv) Requires() []backend.Ability {
	if w.mix.Has(opScan) {
		return []backend.Ability{backend.RangeScans}
	}
	return nil
}

// ReadOnly says a mix of reads and scans may run on replicas.
func (w *kv) ReadOnly() bool { return w.mix.ReadOnly() }

// Shardable: reads, updates, scans and read-modify-writes touch the loaded
// records only; an insert takes the next key from this process's counter,
// which another shard's would also take.
func (w *kv) Shardable() error {
	if w.mix.Has(opInsert) {
		return errors.New("kv's inserts take their keys from one process's counter: drop insert from --mix for a sharded run")
	}
	return nil
}

// key returns record n's key: its number hashed (YCSB insertorder=hashed,
// FNV-64), big endian, so that key order, and so a scan, scatters over the
// record numbers the same way on every engine.
func key(b []byte, n int64) []byte { return binary.BigEndian.AppendUint64(b[:0], fnv64(uint64(n))) }

// fillValue writes record n's value into b: n (big endian), then random bytes.
func fillValue(b []byte, n int64, r *rand.Rand) {
	binary.BigEndian.PutUint64(b, uint64(n))
	for i := 8; i < len(b); i += 8 {
		var x [8]byte
		binary.LittleEndian.PutUint64(x[:], r.Uint64())
		copy(b[i:], x[:])
	}
}

// numberOf returns the record number a value holds, and whether the value
// is one of record k's: its length, and its number hashing to k.
func (w *kv) numberOf(k, v []byte) (int64, bool) {
	if len(v) != w.cfg.ValueBytes || len(k) != 8 {
		return -1, false
	}
	n := int64(binary.BigEndian.Uint64(v))
	return n, n >= 0 && fnv64(uint64(n)) == binary.BigEndian.Uint64(k)
}

func (w *kv) datasetTag() string {
	return fmt.Sprintf("records=%d,value_bytes=%d", w.cfg.Records, w.cfg.ValueBytes)
}

// Load reuses a dataset loaded with the same --records and --value-bytes
// (its inserts included) or loads a new one, then reads it through once: how
// many records, which inserted numbers are there, every value intact.
func (w *kv) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	c, err := workload.KVConnOf(ctx, "kv", db)
	if err != nil {
		return workload.Dataset{}, err
	}
	defer c.Close()
	ds := workload.Dataset{}
	tag, err := readMeta(ctx, c)
	if err != nil {
		return ds, err
	}
	var t tally
	if tag == w.datasetTag() {
		if t, err = w.tally(ctx, c); err != nil {
			return ds, err
		}
		ds.Reused = t.loaded == w.cfg.Records && t.bad == 0
	}
	if !ds.Reused {
		if err := w.rebuild(ctx, c); err != nil {
			return ds, fmt.Errorf("kv: load %d records: %w", w.cfg.Records, err)
		}
		t = tally{count: w.cfg.Records, loaded: w.cfg.Records, next: w.cfg.Records}
	}
	w.base = t.count
	w.ks = newKeyspace(w.cfg.Records, t.next, t.holes)
	w.start = t.next
	ds.Facts = map[string]string{
		"records": strconv.FormatInt(t.count, 10), "loaded": strconv.FormatInt(w.cfg.Records, 10),
		"inserted_before": strconv.FormatInt(t.count-t.loaded, 10), "value_bytes": strconv.Itoa(w.cfg.ValueBytes),
	}
	return ds, nil
}

func readMeta(ctx context.Context, c backend.KVConn) (string, error) {
	if err := c.CreateTable(ctx, tMeta); err != nil {
		return "", err
	}
	if err := c.Begin(ctx, false); err != nil {
		return "", err
	}
	defer c.Rollback(ctx)
	v, ok, err := c.Get(ctx, tMeta, []byte(metaKey))
	if err != nil || !ok {
		return "", err
	}
	return string(v), nil
}

// rebuild drops the table and loads it in transactions of loadBatch
// records; the meta record is written last, so a load cut short is never
// reused.
func (w *kv) rebuild(ctx context.Context, c backend.KVConn) error {
	if err := workload.InKVTx(ctx, c, func() error { return c.Delete(ctx, tMeta, []byte(metaKey)) }); err != nil {
		return err
	}
	if err := c.DropTable(ctx, table); err != nil {
		return err
	}
	if err := c.CreateTable(ctx, table); err != nil {
		return err
	}
	r := workload.NewRand(w.common.Seed, loadStream)
	k := make([]byte, 0, 8)
	// A buffer per record of the batch: Put's key and value must stay
	// untouched until the commit.
	size := int64(8 + w.cfg.ValueBytes)
	batch := max(1, min(loadBatch, loadBytes/size))
	buf := make([]byte, min(batch, w.cfg.Records)*size)
	for lo := int64(0); lo < w.cfg.Records; lo += batch {
		hi := min(lo+batch, w.cfg.Records)
		err := workload.InKVTx(ctx, c, func() error {
			for n := lo; n < hi; n++ {
				b := buf[(n-lo)*size:][:size]
				k = key(b[:0:8], n)
				fillValue(b[8:], n, r)
				if err := c.Put(ctx, table, k, b[8:]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if w.progress != nil {
			w.progress(hi, w.cfg.Records)
		}
	}
	return workload.InKVTx(ctx, c, func() error { return c.Put(ctx, tMeta, []byte(metaKey), []byte(w.datasetTag())) })
}

// SetProgress hears the load's progress in records (workload.Progresser).
func (w *kv) SetProgress(fn func(done, total int64)) { w.progress = fn }

// tally is what one pass over the records found.
type tally struct {
	count  int64   // records
	loaded int64   // records numbered below --records
	next   int64   // one past the highest record number
	holes  []int64 // inserted numbers below next without a record
	bad    int64   // values not of their key, or of the wrong length
}

func (w *kv) tally(ctx context.Context, c backend.KVConn) (tally, error) {
	t := tally{next: w.cfg.Records}
	if err := c.Begin(ctx, false); err != nil {
		return t, err
	}
	defer c.Rollback(ctx)
	var inserted []bool // by number - records
	err := c.Scan(ctx, table, func(k, v []byte) error {
		t.count++
		n, ok := w.numberOf(k, v)
		switch {
		case !ok:
			t.bad++
		case n < w.cfg.Records:
			t.loaded++
		default:
			i := n - w.cfg.Records
			if i >= int64(len(inserted)) {
				inserted = append(inserted, make([]bool, i+1-int64(len(inserted)))...)
			}
			inserted[i] = true
		}
		return nil
	})
	for i, ok := range inserted {
		if !ok {
			t.holes = append(t.holes, w.cfg.Records+int64(i))
		}
	}
	t.next += int64(len(inserted))
	return t, err
}

// Check compares the records with the loaded ones and the inserts
// acknowledged, reads every value through, and reports what the reads found.
func (w *kv) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	c, err := workload.KVConnOf(ctx, "kv", db)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	t, err := w.tally(ctx, c)
	if err != nil {
		return nil, err
	}
	acked, unknown := w.acked.Load(), w.unknown.Load()
	want := w.base + acked
	detail := fmt.Sprintf("%d records; %d before + %d inserts acknowledged = %d", t.count, w.base, acked, want)
	if unknown > 0 {
		detail += fmt.Sprintf(", and up to %d more whose commit's outcome is unknown (the connection died during it)", unknown)
	}
	missing, wrong := w.missing.Load(), w.wrong.Load()
	return []workload.Check{
		{Name: "records_match_acknowledged", OK: t.count >= want && t.count <= want+unknown, Detail: detail},
		{Name: "loaded_records_present", OK: t.loaded == w.cfg.Records,
			Detail: fmt.Sprintf("%d of the %d loaded records", t.loaded, w.cfg.Records)},
		{Name: "values_of_their_key", OK: t.bad == 0,
			Detail: fmt.Sprintf("%d values hold another record's number or have the wrong length", t.bad)},
		{Name: "reads_found_their_records", OK: missing == 0 && wrong == 0,
			Detail: fmt.Sprintf("%d records read; %d that must exist were missing, %d held another record's value", w.looked.Load(), missing, wrong)},
	}, nil
}

// Client returns client id, choosing records with its own generator.
func (w *kv) Client(ctx context.Context, db backend.DB, _ int, rng *rand.Rand) (workload.Client, error) {
	conn, err := workload.KVConnOf(ctx, "kv", db)
	if err != nil {
		return nil, err
	}
	c := &client{w: w, c: conn, rng: rng, g: workload.Group{Commit: w.common.Commit}}
	if w.mix.Has(opScan) {
		rs, ok := conn.(backend.RangeScanner)
		if !ok {
			_ = conn.Close()
			return nil, backend.Unsupported("this engine", "scan a range of keys", "drop scan from --mix (and --preset ycsb-e), or use bbolt, pebble or a SQL engine")
		}
		c.rs = rs
	}
	c.choose = w.chooser()
	return c, nil
}

// chooser returns a new client's record chooser.
func (w *kv) chooser() chooser {
	switch w.cfg.Distribution {
	case "zipfian":
		space := w.start
		if w.mix.Has(opInsert) {
			space *= 2
		}
		return newScrambled(space)
	case "latest":
		w.once.Do(func() { w.zetan = zeta(0, w.start, zipfTheta, 0) }) // one sum for every client
		return &latest{z: newZipfian(w.start, zipfTheta, w.zetan)}
	case "hotspot":
		return w.hot
	}
	return uniform{}
}
