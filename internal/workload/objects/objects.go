// Package objects is seed 003's ZODB benchmark: the object graph of CERN's
// Indico (categories → conferences → a room and contributions each), every
// object a serialized record in a key-value table under its oid, read
// through a per-client object cache (ZODB's pickle cache) over a shared
// record cache (ZEO's client cache), or, on an object database
// (backend.ObjectStore: the ZODB engines), through the engine's own object
// sessions and caches. Each run measures one of zodbshootout's
// phases (add, update, warm, cold, hot, steamin) or the seed's application
// test (app: conferences written, throughput at 60, 120, 240 and 480 s);
// --phase add,update,warm,cold,hot,steamin --concurrency 1,10,40 makes
// zodbshootout's table (objects/s per phase × concurrency) as one matrix.
package objects

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// Spec registers objects in the catalog.
var Spec = workload.Spec{
	Name:    "objects",
	Summary: "an object database's cache states: zodbshootout's add, update, warm, cold, hot and steamin on Indico's object graph, and the CERN evaluation's application test",
	Source:  "the ZODB evaluation at CERN (zodbshootout's phases; Indico's categories, conferences, contributions and rooms; a bulk loader of 85,000 conferences)",
	Unit:    "object",
	Units:   "objects",
	APIs:    []backend.API{backend.KV},
	Knobs: []knob.Spec{
		{Name: "phase", Default: "warm", Kind: knob.Choice, Choices: []string{phAdd, phUpdate, phWarm, phCold, phHot, phSteamin, phApp}, Usage: "what the clients do (zodbshootout's phases, or app: write conferences); a comma list makes zodbshootout's table, each phase a cell on the same dataset"},
		{Name: "objects", Default: "1000", Kind: knob.Int, Usage: "objects each client adds, updates or reads per transaction and pass (zodbshootout -n), rounded up to whole conferences"},
		{Name: "conferences", Default: "10000", Kind: knob.Int, Uses: knob.ForLoad, Usage: "conferences loaded (85,000 ≈ 5 GiB of ZODB at CERN); a dataset of as many conferences, contributions, categories and bytes is reused"},
		{Name: "contributions", Default: "10", Kind: knob.Int, Values: "0..1000", Uses: knob.ForLoad, Usage: "contributions of each conference (each conference also has a room)"},
		{Name: "categories", Default: "100", Kind: knob.Int, Uses: knob.ForLoad, Usage: "categories; each lists its loaded conferences"},
		{Name: "object-bytes", Default: "512", Kind: knob.Int, Values: "64..65536", Uses: knob.ForLoad, Usage: "bytes of each object's record (a category's is longer: its list of conferences)"},
		{Name: "cache-objects", Default: "10000", Kind: knob.Int, Usage: "each client's object cache (ZODB's pickle cache, decoded objects), in objects; on an object database, its Connection's pickle cache"},
		{Name: "storage-cache", Default: "100000", Kind: knob.Int, Usage: "the record cache all clients share (ZEO's client cache), in records; what --phase hot reads from; 0: none; unused on an object database, whose own client cache reads"},
		{Name: "load-workers", Default: "4", Kind: knob.Int, Values: "1..64", Uses: knob.ForLoad, Usage: "connections loading the dataset in parallel (dbgauge load, or a run that loads)"},
		{Name: "checkpoints", Default: "60s,120s,240s,480s", Values: "D,D,...", Single: true, Usage: "with --phase app: moments into the measure phase at which the throughput so far is reported (CERN's: 60, 120, 240, 480 s)"},
	},
	Defaults: map[string]string{"warmup": "0s", "duration": "10s"},
	New:      newObjects,
}

// Config is objects' typed configuration, recorded in the result.
type Config struct {
	Phase         string   `json:"phase"`
	Objects       int      `json:"objects"`
	PassObjects   int      `json:"pass_objects"` // --objects rounded up to whole conferences
	Conferences   int64    `json:"conferences"`
	Contributions int      `json:"contributions"`
	Categories    int64    `json:"categories"`
	ObjectBytes   int      `json:"object_bytes"`
	CacheObjects  int      `json:"cache_objects"`
	StorageCache  int      `json:"storage_cache"`
	LoadWorkers   int      `json:"load_workers"`
	Checkpoints   []string `json:"checkpoints,omitempty"`
	Commit        string   `json:"commit,omitempty"`
	// Caches says whose caches the read phases measured: the engine's own
	// (an object database's: backend.ObjectStore) or dbgauge's Go caches
	// standing in for them (--cache-objects, --storage-cache).
	Caches string `json:"caches,omitempty"`
}

// What Config.Caches says.
const (
	cachesEngine = "the engine's: each client's reads go through its own object session (ZODB: a Connection and its pickle cache of --cache-objects objects, over the storage's cache in the client's process); --storage-cache is not used"
	cachesGo     = "dbgauge's: a Go object cache per client (--cache-objects) over a shared record cache (--storage-cache), reading records through the key-value API"
)

// The phases.
const (
	phAdd     = "add"
	phUpdate  = "update"
	phWarm    = "warm"
	phCold    = "cold"
	phHot     = "hot"
	phSteamin = "steamin"
	phApp     = "app"
)

// The operations timed inside units: a record fetched from the engine (an
// object found in a cache is not), a record stored, a commit.
const (
	tFetch = iota
	tStore
	tCommit
)

var timedOps = []string{"fetch", "store", "commit"}

// The tables: the objects under their oids, and the dataset's record with
// each client's high-water mark of added conferences.
const (
	table   = "objects"
	tMeta   = "objects_meta"
	metaKey = "dataset"
)

// loadBatch is the number of objects per transaction while loading.
const loadBatch = 16384

// loadStream is the random stream of the load, apart from every client's.
const loadStream = 1 << 40

type objects struct {
	cfg    Config
	common workload.Common
	lay    layout
	phase  string
	conf   int64 // conferences per client pass
	slices int64 // whole passes in the loaded conferences
	checks []time.Duration

	pad      []byte
	store    *records
	next     atomic.Int64 // add: the next conference number
	progress func(done, total int64)

	mu      sync.Mutex
	acked   map[uint64]uint32 // oid → version acknowledged (update, app)
	added   []uint64          // conferences whose add was acknowledged
	looked  atomic.Int64
	missing atomic.Int64
	wrong   atomic.Int64
	objHit  atomic.Int64
	objMiss atomic.Int64
	// engine: the read phases read through the engine's object sessions
	// (backend.ObjectStore), and what those counted.
	engine bool
	oLoads atomic.Int64
	// the storage server's count of loads served (ObjectStats.ServerLoads)
	// when the last client was ready, and the highest at a client's end;
	// oNoServer: some storage had no such count
	oServerFrom, oServerTo int64
	oNoServer              bool
	oCleared               atomic.Value // string: what a pass start emptied
	oStorage               atomic.Value // string: the storage's cache in the clients' processes
	oStatsErr              atomic.Value // string: why a session's counts could not be read
	rereads                atomic.Int64 // cold: objects read a second time since the caches were cleared
}

func newObjects(c workload.Common, v *knob.Values) (workload.Workload, error) {
	phase, err := v.Choice("phase")
	if err != nil {
		return nil, err
	}
	ints := map[string]int64{}
	for _, k := range []struct {
		name   string
		lo, hi int64
	}{
		{"objects", 1, 10_000_000}, {"conferences", 1, 1 << 40}, {"contributions", 0, 1000}, {"categories", 1, 1_000_000},
		{"object-bytes", 64, 65536}, {"cache-objects", 0, 100_000_000}, {"storage-cache", 0, 100_000_000}, {"load-workers", 1, 64},
	} {
		if ints[k.name], err = v.Int(k.name, k.lo, k.hi); err != nil {
			return nil, err
		}
	}
	w := &objects{common: c, phase: phase, acked: map[uint64]uint32{}}
	w.lay = layout{contributions: int(ints["contributions"]), categories: ints["categories"]}
	w.conf = (ints["objects"] + int64(w.lay.block()) - 1) / int64(w.lay.block())
	w.cfg = Config{
		Phase: phase, Objects: int(ints["objects"]), PassObjects: int(w.conf * int64(w.lay.block())),
		Conferences: ints["conferences"], Contributions: w.lay.contributions, Categories: ints["categories"],
		ObjectBytes: int(ints["object-bytes"]), CacheObjects: int(ints["cache-objects"]), StorageCache: int(ints["storage-cache"]),
		LoadWorkers: int(ints["load-workers"]),
	}
	w.slices = w.cfg.Conferences / w.conf
	if phase != phAdd && w.slices < int64(c.Clients) {
		need := w.conf * int64(c.Clients)
		return nil, knob.Bad(fmt.Sprintf("give --conferences %d or more, or fewer --objects or clients", need),
			"--phase %s: %d clients × %d conferences each (--objects %d) need %d conferences; --conferences is %d",
			phase, c.Clients, w.conf, w.cfg.Objects, need, w.cfg.Conferences)
	}
	if phase == phCold {
		if d, err := v.Duration("warmup"); err != nil || d > 0 {
			return nil, knob.Bad("drop --warmup (or give --warmup 0s)", "--phase cold reads from cleared caches: a warm-up would fill them")
		}
	}
	switch {
	case phase == phApp:
		for _, s := range strings.Split(v.Get("checkpoints"), ",") {
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil || d <= 0 {
				return nil, knob.Bad("give durations, e.g. --checkpoints 60s,120s,240s,480s", "--checkpoints %q: %q is not a duration", v.Get("checkpoints"), s)
			}
			w.checks = append(w.checks, d)
			w.cfg.Checkpoints = append(w.cfg.Checkpoints, d.String())
		}
	case v.IsSet("checkpoints"):
		return nil, knob.Bad("add --phase app, or drop --checkpoints", "--checkpoints is for the application test (--phase app)")
	}
	if writes(phase) {
		w.cfg.Commit = c.Commit.String()
		if !v.IsSet("commit") {
			// zodbshootout: add or change the objects, then commit; the
			// application test commits each conference, as a request does.
			w.common.Commit = workload.Commit{Mode: workload.PerUnits, Every: w.cfg.PassObjects}
			if phase == phApp {
				w.common.Commit = workload.Commit{Mode: workload.PerUnit, Every: 1}
			}
			w.cfg.Commit = w.common.Commit.String()
		}
	}
	return w, nil
}

func writes(phase string) bool { return phase == phAdd || phase == phUpdate || phase == phApp }

func (w *objects) Shape() workload.Shape {
	return workload.Shape{Units: []workload.Weighted{{Name: w.phase, Weight: 1}}, Ops: timedOps}
}

func (w *objects) Config() any { return w.cfg }

// ColdStart asks the session to clear the engine's caches before --phase cold.
func (w *objects) ColdStart() bool { return w.phase == phCold }

// Checkpoints are the application test's moments.
func (w *objects) Checkpoints() []time.Duration { return w.checks }

// ReadOnly says the read phases may run on replicas.
func (w *objects) ReadOnly() bool { return !writes(w.phase) }

// SetProgress receives Load's progress, in objects.
func (w *objects) SetProgress(fn func(done, total int64)) { w.progress = fn }

func (w *objects) datasetTag() string {
	return fmt.Sprintf("conferences=%d,contributions=%d,categories=%d,object_bytes=%d",
		w.cfg.Conferences, w.cfg.Contributions, w.cfg.Categories, w.cfg.ObjectBytes)
}

// padding returns the bytes that fill objects to --object-bytes, the same
// for a seed.
func (w *objects) padding() []byte {
	r := workload.NewRand(w.common.Seed, loadStream)
	b := make([]byte, w.cfg.ObjectBytes)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return b
}

// fill sets o's Pad so that its record is about --object-bytes long.
func (w *objects) fill(o *Object) {
	o.Pad = nil
	o.Pad = w.pad[:max(0, w.cfg.ObjectBytes-o.Size())]
}

// Load reuses a dataset loaded with the same sizes (its first and last
// conference present and whole; the full check comes after the run), or
// loads a new one with --load-workers connections, in transactions of
// loadBatch objects through the engine's bulk path (COPY on PostgreSQL).
// Then, on a reused one, it finds where added conferences end (a scan of
// the meta table: on an object database a walk through every record).
func (w *objects) Load(ctx context.Context, db backend.DB) (workload.Dataset, error) {
	d, err := workload.KVOf("objects", db)
	if err != nil {
		return workload.Dataset{}, err
	}
	c, err := d.KVConn(ctx)
	if err != nil {
		return workload.Dataset{}, err
	}
	defer c.Close()
	w.pad = w.padding()
	w.store = newRecords(w.cfg.StorageCache)
	if _, ok := c.(backend.ObjectStore); ok && !writes(w.phase) {
		w.engine = true
	}
	w.cfg.Caches = cachesGo
	if w.engine {
		w.cfg.Caches = cachesEngine
	}
	ds := workload.Dataset{}
	tag, err := readMeta(ctx, c, metaKey)
	if err != nil {
		return ds, err
	}
	if string(tag) == w.datasetTag() {
		ds.Reused = w.probe(ctx, c) == nil
	}
	if !ds.Reused {
		if err := w.rebuild(ctx, d, c); err != nil {
			return ds, fmt.Errorf("objects: load %d conferences: %w", w.cfg.Conferences, err)
		}
	}
	next := w.cfg.Conferences // a new dataset: nothing added yet
	if ds.Reused {
		if next, err = w.highWater(ctx, c); err != nil {
			return ds, err
		}
	}
	w.next.Store(next)
	objs := w.cfg.Conferences*int64(w.lay.block()) + w.cfg.Categories
	ds.Facts = map[string]string{
		"conferences": strconv.FormatInt(w.cfg.Conferences, 10), "added_before": strconv.FormatInt(next-w.cfg.Conferences, 10),
		"objects": strconv.FormatInt(objs, 10), "object_bytes": strconv.Itoa(w.cfg.ObjectBytes),
		"objects_per_pass": strconv.Itoa(w.cfg.PassObjects),
	}
	return ds, nil
}

func readMeta(ctx context.Context, c backend.KVConn, k string) ([]byte, error) {
	if err := c.CreateTable(ctx, tMeta); err != nil {
		return nil, err
	}
	if err := c.Begin(ctx, false); err != nil {
		return nil, err
	}
	defer c.Rollback(ctx)
	v, ok, err := c.Get(ctx, tMeta, []byte(k))
	if err != nil || !ok {
		return nil, err
	}
	return append([]byte(nil), v...), nil
}

// probe checks the first and last loaded conference and their objects.
func (w *objects) probe(ctx context.Context, c backend.KVConn) error {
	if err := c.Begin(ctx, false); err != nil {
		return err
	}
	defer c.Rollback(ctx)
	for _, n := range []int64{0, w.cfg.Conferences - 1} {
		base := w.lay.conference(n)
		for oid := base; oid < base+w.lay.block(); oid++ {
			v, ok, err := c.Get(ctx, table, key(oid))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("oid %d missing", oid)
			}
			o, err := Decode(v)
			if err != nil {
				return err
			}
			if err := w.lay.valid(oid, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// highWater returns the next conference number to add: past the loaded ones
// and every client's high-water mark (hw.ID keys, written with its adds).
func (w *objects) highWater(ctx context.Context, c backend.KVConn) (int64, error) {
	next := w.cfg.Conferences
	if err := c.Begin(ctx, false); err != nil {
		return 0, err
	}
	defer c.Rollback(ctx)
	err := c.Scan(ctx, tMeta, func(k, v []byte) error {
		if strings.HasPrefix(string(k), "hw.") && len(v) == 8 {
			next = max(next, int64(binary.BigEndian.Uint64(v)))
		}
		return nil
	})
	return next, err
}

// rebuild drops the tables and loads the conferences, then the categories;
// the dataset's record is written last, so a load cut short is never reused.
func (w *objects) rebuild(ctx context.Context, d backend.KVDB, c backend.KVConn) error {
	for _, t := range []string{table, tMeta} {
		if err := c.DropTable(ctx, t); err != nil {
			return err
		}
		if err := c.CreateTable(ctx, t); err != nil {
			return err
		}
	}
	total := w.cfg.Conferences*int64(w.lay.block()) + w.cfg.Categories
	var done atomic.Int64
	report := func(n int64) {
		if w.progress != nil {
			w.progress(done.Add(n), total)
		}
	}
	per := max(1, loadBatch/int64(w.lay.block())) // conferences per transaction
	batches := make(chan int64)
	errs := make(chan error, w.cfg.LoadWorkers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range w.cfg.LoadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- w.loadWorker(ctx, d, batches, per, report)
		}()
	}
	var ferr error
feed:
	for lo := int64(0); lo < w.cfg.Conferences; lo += per {
		select {
		case batches <- lo:
		case err := <-errs:
			ferr = err
			cancel()
			break feed
		}
	}
	close(batches)
	wg.Wait()
	close(errs)
	for err := range errs {
		if ferr == nil && err != nil {
			ferr = err
		}
	}
	if ferr != nil {
		return ferr
	}
	if err := w.loadCategories(ctx, c, report); err != nil {
		return err
	}
	return workload.InKVTx(ctx, c, func() error { return c.Put(ctx, tMeta, []byte(metaKey), []byte(w.datasetTag())) })
}

// loadWorker loads batches of conferences on a connection of its own. It
// encodes a batch before its transaction begins, so that workers encode
// while another one writes.
func (w *objects) loadWorker(ctx context.Context, d backend.KVDB, batches <-chan int64, per int64, report func(int64)) error {
	c, err := d.KVConn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var keys, vals [][]byte
	for lo := range batches {
		hi := min(lo+per, w.cfg.Conferences)
		keys, vals = keys[:0], vals[:0]
		for n := lo; n < hi; n++ {
			for _, o := range w.lay.objectsOf(n, nil) {
				w.fill(o)
				keys, vals = append(keys, key(o.OID)), append(vals, o.Append(make([]byte, 0, o.Size())))
			}
		}
		if err := putNew(ctx, c, keys, vals); err != nil {
			return err
		}
		report(int64(len(keys)))
	}
	return nil
}

// putNew stores new records in one transaction, through the bulk path
// when the connection has one.
func putNew(ctx context.Context, c backend.KVConn, keys, vals [][]byte) error {
	return workload.InKVTx(ctx, c, func() error {
		if b, ok := c.(backend.BulkLoader); ok {
			return b.PutNew(ctx, table, keys, vals)
		}
		for i := range keys {
			if err := c.Put(ctx, table, keys[i], vals[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// loadCategories writes the categories, each listing its loaded conferences.
func (w *objects) loadCategories(ctx context.Context, c backend.KVConn, report func(int64)) error {
	cats := make([]*Object, w.cfg.Categories)
	for j := range cats {
		cats[j] = &Object{Kind: Category, OID: categoryBase + uint64(j), Title: fmt.Sprintf("Category %d", j)}
	}
	for n := int64(0); n < w.cfg.Conferences; n++ {
		j := n % w.cfg.Categories
		cats[j].Refs = append(cats[j].Refs, w.lay.conference(n))
	}
	var keys, vals [][]byte
	var bytes int
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		err := putNew(ctx, c, keys, vals)
		report(int64(len(keys)))
		keys, vals, bytes = keys[:0], vals[:0], 0
		return err
	}
	for _, o := range cats {
		w.fill(o)
		b := o.Append(nil)
		keys, vals, bytes = append(keys, key(o.OID)), append(vals, b), bytes+len(b)
		if bytes > 16<<20 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// Check reads every object: it must decode, be the object its oid says,
// and a conference's room and contributions must exist; every loaded
// conference must be there, every add and update acknowledged must be
// there at its version, and the reads of the run must have found theirs.
func (w *objects) Check(ctx context.Context, db backend.DB) ([]workload.Check, error) {
	c, err := workload.KVConnOf(ctx, "objects", db)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.Begin(ctx, false); err != nil {
		return nil, err
	}
	defer c.Rollback(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	present := map[uint64]bool{}
	var refs []uint64 // every reference, checked once the scan is done
	var count, bad, loaded int64
	var badWhy string
	versions := map[uint64]uint32{}
	err = c.Scan(ctx, table, func(k, v []byte) error {
		count++
		oid := binary.BigEndian.Uint64(k)
		o, err := Decode(v)
		if err == nil {
			err = w.lay.valid(oid, o)
		}
		if err != nil {
			bad++
			badWhy = err.Error()
			return nil
		}
		present[oid] = true
		if o.Kind == Conference || o.Kind == Category {
			refs = append(refs, o.Refs...)
			if o.Kind == Conference && w.lay.number(oid) < w.cfg.Conferences {
				loaded++
			}
		}
		if _, ok := w.acked[oid]; ok {
			versions[oid] = o.Version
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	dangling := 0
	for _, r := range refs {
		if !present[r] {
			dangling++
		}
	}
	stale, lostAdds := 0, 0
	for oid, v := range w.acked {
		if got, ok := versions[oid]; !ok || got != v {
			stale++
		}
	}
	for _, oid := range w.added {
		if !present[oid] {
			lostAdds++
		}
	}
	detail := fmt.Sprintf("%d objects; %d do not decode or are not the object their oid says", count, bad)
	if bad > 0 {
		detail += " (" + badWhy + ")"
	}
	hits, miss := w.objHit.Load(), w.objMiss.Load()
	sh, sm := w.store.stats()
	cache := fmt.Sprintf("object caches: %d hits, %d misses; shared record cache: %d hits, %d misses", hits, miss, sh, sm)
	if w.engine {
		cache = w.engineCaches()
	}
	if n := w.rereads.Load(); n > 0 {
		cache += fmt.Sprintf("; %d cold reads came back to objects already read since the caches were cleared (the run outlasted the dataset)", n)
	}
	return []workload.Check{
		{Name: "objects_decode", OK: bad == 0, Detail: detail},
		{Name: "references_valid", OK: dangling == 0, Detail: fmt.Sprintf("%d references, %d to missing objects", len(refs), dangling)},
		{Name: "loaded_conferences_present", OK: loaded == w.cfg.Conferences, Detail: fmt.Sprintf("%d of the %d loaded conferences", loaded, w.cfg.Conferences)},
		{Name: "acknowledged_writes_present", OK: stale == 0 && lostAdds == 0,
			Detail: fmt.Sprintf("%d objects changed and %d conferences added with acknowledged commits; %d not at their acknowledged version, %d added missing", len(w.acked), len(w.added), stale, lostAdds)},
		{Name: "reads_found_their_objects", OK: w.missing.Load() == 0 && w.wrong.Load() == 0,
			Detail: fmt.Sprintf("%d objects read; %d missing, %d not the object asked for; %s", w.looked.Load(), w.missing.Load(), w.wrong.Load(), cache)},
	}, nil
}

// Client returns client id. Before the clock starts it reads its objects
// once as the phase needs: warm through no cache (the engine's caches are
// warm, as after zodbshootout's add and update), hot into the shared record
// cache, steamin into its object cache too.
func (w *objects) Client(ctx context.Context, db backend.DB, id int, rng *rand.Rand) (workload.Client, error) {
	conn, err := workload.KVConnOf(ctx, "objects", db)
	if err != nil {
		return nil, err
	}
	c := &client{w: w, id: id, c: conn, rng: rng, g: workload.Group{Commit: w.common.Commit},
		objs: NewLRU[uint64, *Object](w.cfg.CacheObjects), acked: map[uint64]uint32{}}
	if _, ok := conn.(backend.ObjectStore); ok {
		c.newObjects, _ = conn.(backend.BulkLoader)
	}
	if w.engine {
		store, ok := conn.(backend.ObjectStore)
		if !ok {
			_ = conn.Close()
			return nil, fmt.Errorf("objects: client %d's connection has no object sessions, though the loader's had", id)
		}
		if c.os, err = store.Objects(ctx, table, w.cfg.CacheObjects); err != nil {
			_ = conn.Close()
			return nil, err
		}
	}
	if w.phase == phApp {
		n := w.cfg.Conferences
		c.lo, c.hi = int64(id)*n/int64(w.common.Clients), int64(id+1)*n/int64(w.common.Clients)
	}
	switch w.phase {
	case phWarm, phHot, phSteamin:
		if err := c.preread(ctx); err != nil {
			_ = conn.Close()
			return nil, err
		}
	}
	if c.os != nil {
		// Every client is ready before the clock starts: the server's loads
		// from the last one's reading on are the run's.
		st, err := c.os.Stats(ctx)
		if err != nil {
			_ = conn.Close()
			return nil, err
		}
		w.serverLoads(st.ServerLoads, true)
		c.loads0 = st.Loads
	}
	return c, nil
}

// serverLoads records a client's reading of its storage server's count of
// loads served: before the clock (from), or at its end.
func (w *objects) serverLoads(n int64, from bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case n < 0:
		w.oNoServer = true
	case from:
		w.oServerFrom = max(w.oServerFrom, n)
	default:
		w.oServerTo = max(w.oServerTo, n)
	}
}

// engineCaches says what the engine's object sessions counted; w.mu is
// held (Check).
func (w *objects) engineCaches() string {
	loads := w.oLoads.Load()
	s := fmt.Sprintf("the engine's caches: while the clock ran the clients' object caches loaded %d objects from their storage (the other reads found them unpickled)", loads)
	if from, to := w.oServerFrom, w.oServerTo; !w.oNoServer {
		// Cold's fresh DB after each clear loads its root from the server:
		// served may pass the clients' loads by a load a pass.
		served := to - from
		s += fmt.Sprintf("; the server served %d loads while they ran (each DB made afresh loads its root); %d of the clients' loads came from their client caches", served, max(0, loads-served))
	}
	if v, ok := w.oStorage.Load().(string); ok {
		s += "; the storage's cache in the client's process: " + v
	}
	if v, ok := w.oCleared.Load().(string); ok {
		s += "; emptied at each pass: " + v
	}
	if v, ok := w.oStatsErr.Load().(string); ok {
		s += "; a client's counts could not be read, the counts lack them: " + v
	}
	return s
}
