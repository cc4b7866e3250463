package objects

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// client is one connection with its object cache. A unit is one object
// added, changed or read. The read phases and update walk the client's
// conferences in passes of --objects objects (each conference, then its room
// and contributions, by following its references), as zodbshootout's
// processes each walk their own n objects:
//
//   - warm: each pass starts with an empty object cache and skips the shared
//     record cache: a new connection, the engine's caches warm;
//   - cold: like warm, on caches the session cleared, and each pass reads
//     conferences no pass read before, so that reads stay cold;
//   - hot: each pass starts with an empty object cache (zodbshootout clears
//     only the pickle cache); records come from the shared record cache;
//   - steamin: through the object cache, never cleared;
//   - update: each object read (through the object cache) and written back
//     with its version + 1, committed once per pass unless --commit says;
//   - add: new conferences, each its contributions, room and conference;
//   - app: a conference of the client's share of them, at random, read
//     (through the object cache) and written back, committed alone.
//
// On an object database (w.engine) the read phases read through the
// client's object session instead (startObjects says what each pass
// empties), a pass's objects in one timed request (readObjects).
type client struct {
	w    *objects
	id   int
	c    backend.KVConn
	rng  *rand.Rand
	g    workload.Group
	objs *LRU[uint64, *Object]
	// os: the engine's object session, which the read phases read
	// through instead of objs and the shared record cache (w.engine).
	os     backend.ObjectSession
	loads0 int64 // the session's loads before the clock
	// A pass on an object session is read in one request at its start:
	// keys are its keys (kept while its first oid, kfirst, is the same),
	// batch their values or bsums their CRC-32s, boid the oid of the next
	// object to hand out and bleft how many are left. sums are the CRC-32s
	// of the values judged before the clock (prereadObjects), by oid.
	keys   [][]byte
	kfirst uint64
	batch  [][]byte
	bsums  []int64
	boid   uint64
	bleft  int
	sums   map[uint64]uint32
	inTx   bool // a transaction is open (the group's, or a pass's read one)
	queue  []uint64
	left   int64 // conferences left in the pass
	conf   int64 // the next conference of the pass
	pass   int64
	lo     int64 // app: the client's conferences [lo, hi)
	hi     int64

	building []*Object // add: the conference being written, in order
	hw       int64     // add: past the highest conference number of the open group
	pending  []*Object // written in the open group
	adds     []uint64  // conferences completed in the open group
	acked    map[uint64]uint32
	added    []uint64
	looked   int64

	// newObjects is c's PutNew where c is an object database's (a
	// backend.ObjectStore): what add stores its objects through.
	newObjects backend.BulkLoader
}

// slice returns the first conference of the client's pass: its own share
// always, except cold, which moves on to conferences never read since the
// caches were cleared.
func (c *client) slice() int64 {
	s := int64(c.id)
	if c.w.phase == phCold {
		k := c.pass*int64(c.w.common.Clients) + int64(c.id)
		if k >= c.w.slices {
			c.w.rereads.Add(int64(c.w.cfg.PassObjects))
		}
		s = k % c.w.slices
	}
	return s * c.w.conf
}

// preread reads the client's objects once, before the clock.
func (c *client) preread(ctx context.Context) error {
	if c.os != nil {
		return c.prereadObjects(ctx)
	}
	if err := c.c.Begin(ctx, false); err != nil {
		return err
	}
	defer c.c.Rollback(ctx)
	first := c.slice()
	for n := first; n < first+c.w.conf; n++ {
		base := c.w.lay.conference(n)
		for oid := base; oid < base+c.w.lay.block(); oid++ {
			v, ok, err := c.c.Get(ctx, table, key(oid))
			if err != nil {
				return err
			}
			o, err := c.judge(oid, v, ok)
			if err != nil {
				return err
			}
			switch c.w.phase {
			case phSteamin:
				c.objs.Put(oid, o)
				fallthrough
			case phHot:
				c.w.store.put(oid, append([]byte(nil), v...))
			}
		}
	}
	return nil
}

// prereadObjects reads the client's objects through its object session,
// a conference at a time, in one transaction: they are in its object cache
// (hot, steamin) and in the storage's cache in its process (warm: a pass
// empties the object cache).
func (c *client) prereadObjects(ctx context.Context) error {
	first := c.slice()
	begin := true
	for n := first; n < first+c.w.conf; n++ {
		base := c.w.lay.conference(n)
		keys := make([][]byte, 0, c.w.lay.block())
		for oid := base; oid < base+c.w.lay.block(); oid++ {
			keys = append(keys, key(oid))
		}
		vs, err := c.os.Read(ctx, keys, begin)
		if err != nil {
			return err
		}
		begin = false
		for i, v := range vs {
			if _, err := c.judge(base+uint64(i), v, v != nil); err != nil {
				return err
			}
			if c.sums == nil {
				c.sums = map[uint64]uint32{}
			}
			c.sums[base+uint64(i)] = crc32.ChecksumIEEE(v)
		}
	}
	return nil
}

// startObjects readies the object session for a pass, as zodbshootout
// does before it times one: hot empties its object cache (cacheMinimize:
// the objects are loaded again from the storage's cache in its process);
// warm and cold the storage's cache in its process too (warm: a new
// process's client, as seed 003's warm is, the server's caches warm; cold:
// on caches the session cleared); steamin stays in its transaction, its
// objects unpickled.
func (c *client) startObjects(ctx context.Context) error {
	level := backend.CacheConnection
	switch c.w.phase {
	case phSteamin:
		return nil
	case phWarm, phCold:
		level = backend.CacheStorage
	}
	what, err := c.os.Clear(ctx, level)
	if err == nil {
		c.w.oCleared.Store(what)
	}
	return err
}

// judge decodes what a read of oid returned and checks it is that object.
func (c *client) judge(oid uint64, v []byte, ok bool) (*Object, error) {
	if !ok {
		c.w.missing.Add(1)
		return nil, workload.Inconsistent("objects: oid %d is missing, though it was loaded or its add acknowledged", oid)
	}
	o, err := Decode(v)
	if err == nil {
		err = c.w.lay.valid(oid, o)
	}
	if err != nil {
		c.w.wrong.Add(1)
		return nil, workload.Inconsistent("objects: oid %d: %v", oid, err)
	}
	return o, nil
}

// readObjects reads the next object of the pass through the object
// session. A pass's first object asks for the whole pass in one request
// (zodbshootout times a pass of n objects in its process: one round trip
// to the worker a pass, not one an object), timed as fetch: on an object
// database fetch is one request for a pass's objects, its latency a
// pass's. The others are taken from its reply, each judged (decoded, and
// the object its oid says) as its own unit. A pass's oids are one run:
// conference n's objects are oids n·(2+C)…, the conference, its room and
// its contributions, the order following its references reads them in.
//
// A pass over objects judged before the clock (warm, hot, steamin: the
// client's own, read by prereadObjects) asks for their CRC-32s instead of
// their values, the same reads without moving a pass's bytes through the
// pipe and JSON (some 10 µs an object of 512 bytes here, more than a load
// from ZEO's client cache): an object whose CRC-32 is its judged value's
// is that value; one whose is not is read again whole and judged. cold
// reads objects never read before, so it takes their values.
func (c *client) readObjects(ctx context.Context, ops workload.Ops) error {
	if c.bleft == 0 {
		if err := c.startObjects(ctx); err != nil {
			return err
		}
		first := c.w.lay.conference(c.slice())
		c.pass++
		if c.keys == nil || c.kfirst != first {
			n := c.w.conf * int64(c.w.lay.block())
			c.keys, c.kfirst = c.keys[:0], first
			for oid := first; oid < first+uint64(n); oid++ {
				c.keys = append(c.keys, key(oid))
			}
		}
		sums := c.sums != nil && c.w.phase != phCold
		err := ops.Time(tFetch, func() error {
			// steamin stays in the transaction of its first read.
			begin := c.w.phase != phSteamin
			var err error
			c.batch, c.bsums = nil, nil
			if sums {
				c.bsums, err = c.os.Sums(ctx, c.keys, begin)
			} else {
				c.batch, err = c.os.Read(ctx, c.keys, begin)
			}
			return err
		})
		if err != nil {
			return err
		}
		c.boid, c.bleft = first, len(c.keys)
	}
	i, oid := len(c.keys)-c.bleft, c.boid
	c.boid, c.bleft = c.boid+1, c.bleft-1
	if c.bsums != nil {
		if want, ok := c.sums[oid]; ok && c.bsums[i] == int64(want) {
			c.looked++
			return nil
		}
		vs, err := c.os.Read(ctx, [][]byte{key(oid)}, false)
		if err != nil {
			return err
		}
		if _, err := c.judge(oid, vs[0], vs[0] != nil); err != nil {
			return err
		}
		c.sums[oid] = crc32.ChecksumIEEE(vs[0])
	} else if _, err := c.judge(oid, c.batch[i], c.batch[i] != nil); err != nil {
		return err
	}
	c.looked++
	return nil
}

// fetch returns oid's object: from the object cache, else from the shared
// record cache (hot, steamin), else from the engine.
func (c *client) fetch(ctx context.Context, ops workload.Ops, oid uint64) (*Object, error) {
	if o, ok := c.objs.Get(oid); ok {
		return o, nil
	}
	shared := c.w.phase == phHot || c.w.phase == phSteamin
	if shared {
		if b, ok := c.w.store.get(oid); ok {
			o, err := c.judge(oid, b, true)
			if err != nil {
				return nil, err
			}
			c.objs.Put(oid, o)
			return o, nil
		}
	}
	var o *Object
	err := ops.Time(tFetch, func() error {
		v, ok, err := c.c.Get(ctx, table, key(oid))
		if err != nil {
			return err
		}
		if o, err = c.judge(oid, v, ok); err != nil {
			return err
		}
		if shared {
			c.w.store.put(oid, append([]byte(nil), v...))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.objs.Put(oid, o)
	return o, nil
}

// Do handles one object.
func (c *client) Do(ctx context.Context, _ int, ops workload.Ops) error {
	if !writes(c.w.phase) {
		return c.read(ctx, ops)
	}
	if c.g.UnitBegins() || (c.g.Commit.Mode == workload.PerOp && !c.inTx) {
		if err := c.c.Begin(ctx, true); err != nil {
			return c.fail(ctx, err)
		}
		c.inTx, c.g.Open = true, c.g.Commit.Mode != workload.PerOp
	}
	var err error
	switch c.w.phase {
	case phAdd:
		err = c.add(ctx, ops)
	case phUpdate:
		err = c.update(ctx, ops)
	case phApp:
		err = c.app(ctx, ops)
	}
	if err != nil {
		return c.fail(ctx, err)
	}
	if c.g.Commit.Mode == workload.PerOp || c.g.UnitEnds() {
		if err := c.commit(ctx, ops); err != nil {
			return c.fail(ctx, err)
		}
	}
	return nil
}

// next returns the next oid of the pass, starting a pass when one ended
// (start is told, to clear caches or begin a read transaction).
func (c *client) next(ctx context.Context, start func() error) (uint64, error) {
	if len(c.queue) == 0 {
		if c.left == 0 {
			if err := start(); err != nil {
				return 0, err
			}
			c.conf, c.left = c.slice(), c.w.conf
			c.pass++
		}
		c.queue = append(c.queue[:0], c.w.lay.conference(c.conf))
		c.conf++
		c.left--
	}
	oid := c.queue[0]
	c.queue = c.queue[1:]
	return oid, nil
}

// follow queues a conference's room and contributions.
func (c *client) follow(o *Object) {
	if o.Kind == Conference {
		c.queue = append(c.queue, o.Refs...)
	}
}

// read reads the next object of the pass; a pass is one read transaction.
func (c *client) read(ctx context.Context, ops workload.Ops) error {
	if c.os != nil {
		return c.readObjects(ctx, ops)
	}
	oid, err := c.next(ctx, func() error {
		if c.w.phase != phSteamin {
			c.objs.Clear()
		}
		return c.beginRead(ctx)
	})
	if err != nil {
		return err
	}
	if !c.inTx {
		if err := c.beginRead(ctx); err != nil {
			return err
		}
	}
	o, err := c.fetch(ctx, ops, oid)
	if err != nil {
		_ = c.c.Rollback(ctx)
		c.inTx = false
		return err
	}
	c.looked++
	c.follow(o)
	if len(c.queue) == 0 && c.left == 0 {
		c.inTx = false
		return c.c.Commit(ctx)
	}
	return nil
}

func (c *client) beginRead(ctx context.Context) error {
	if c.inTx {
		_ = c.c.Rollback(ctx)
	}
	if err := c.c.Begin(ctx, false); err != nil {
		return err
	}
	c.inTx = true
	return nil
}

// store writes o in the open transaction. An object added on an object
// database (backend.ObjectStore) goes in as a new object (its PutNew),
// stored without first reading what its key holds, as a ZODB Connection
// stores the objects it adds (zodbshootout's add); any other, by Put.
func (c *client) store(ctx context.Context, ops workload.Ops, o *Object, added bool) error {
	c.w.fill(o)
	v := o.Append(make([]byte, 0, o.Size()))
	var err error
	if added && c.newObjects != nil {
		err = ops.Time(tStore, func() error { return c.newObjects.PutNew(ctx, table, [][]byte{key(o.OID)}, [][]byte{v}) })
	} else {
		err = ops.Time(tStore, func() error { return c.c.Put(ctx, table, key(o.OID), v) })
	}
	if err != nil {
		return err
	}
	c.pending = append(c.pending, o)
	return nil
}

// change writes oid's object back with its version + 1 (the cached object
// stays as it was until the commit).
func (c *client) change(ctx context.Context, ops workload.Ops, oid uint64) (*Object, error) {
	o, err := c.fetch(ctx, ops, oid)
	if err != nil {
		return nil, err
	}
	n := *o
	n.Version++
	return o, c.store(ctx, ops, &n, false)
}

func (c *client) update(ctx context.Context, ops workload.Ops) error {
	oid, err := c.next(ctx, func() error { return nil })
	if err != nil {
		return err
	}
	o, err := c.change(ctx, ops, oid)
	if err != nil {
		return err
	}
	c.follow(o)
	return nil
}

// app changes a conference of the client's share (seed 003:
// testWriteConferencesThroughput, conferences written in a time).
func (c *client) app(ctx context.Context, ops workload.Ops) error {
	n := c.lo + c.rng.Int64N(max(1, c.hi-c.lo))
	_, err := c.change(ctx, ops, c.w.lay.conference(n))
	return err
}

// add writes the next object of the conference being added, starting a new
// conference (numbered from a counter all clients share) when one is done.
func (c *client) add(ctx context.Context, ops workload.Ops) error {
	if len(c.building) == 0 {
		n := c.w.next.Add(1) - 1
		c.building = c.w.lay.objectsOf(n, nil)
		c.hw = max(c.hw, n+1)
	}
	o := c.building[0]
	if err := c.store(ctx, ops, o, true); err != nil {
		return err
	}
	c.building = c.building[1:]
	if o.Kind == Conference {
		c.adds = append(c.adds, o.OID)
	}
	return nil
}

// commit ends the open group. An add also records the client's high-water
// mark, so that the next run adds past it.
func (c *client) commit(ctx context.Context, ops workload.Ops) error {
	if c.w.phase == phAdd && c.hw > 0 {
		v := binary.BigEndian.AppendUint64(nil, uint64(c.hw))
		if err := c.c.Put(ctx, tMeta, []byte("hw."+strconv.Itoa(c.id)), v); err != nil {
			return err
		}
	}
	if err := ops.Time(tCommit, func() error { return c.c.Commit(ctx) }); err != nil {
		return err
	}
	c.inTx = false
	c.g.Committed()
	for _, o := range c.pending {
		c.acked[o.OID] = o.Version
		c.objs.Put(o.OID, o)
	}
	if c.w.phase == phAdd {
		clear(c.acked) // adds are checked by conference, with their references
	}
	c.added = append(c.added, c.adds...)
	c.pending, c.adds = c.pending[:0], c.adds[:0]
	return nil
}

// fail rolls back what is open: its writes did not happen, and an add
// starts its conference again (under new numbers: a gap is harmless).
func (c *client) fail(ctx context.Context, err error) error {
	if c.inTx {
		_ = c.c.Rollback(ctx)
		c.inTx = false
	}
	c.pending, c.adds, c.building = c.pending[:0], c.adds[:0], nil
	return c.g.Abort(err, func() {})
}

// Pending says how many finished units ride on the open transaction
// (--commit every:N): the run engine holds them until it commits.
func (c *client) Pending() int64 { return c.g.Held() }

var _ workload.Pender = (*client)(nil)

// Close commits a group left open and hands what the client saw to the
// workload's checks.
func (c *client) Close(ctx context.Context) error {
	defer c.c.Close()
	var err error
	if c.g.Open {
		if cerr := c.commit(ctx, nopOps{}); cerr != nil {
			err = c.fail(ctx, cerr)
		}
	} else if c.inTx {
		_ = c.c.Rollback(ctx)
		c.inTx = false
	}
	w := c.w
	if c.os != nil {
		// What the engine counted is read even when the run's end canceled
		// ctx; a failure to read it is said in the check, not the run's.
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		st, serr := c.os.Stats(sctx)
		cancel()
		if serr == nil {
			w.oLoads.Add(st.Loads - c.loads0)
			w.serverLoads(st.ServerLoads, false)
			w.oStorage.Store(st.StorageCache)
		} else {
			w.oStatsErr.Store(serr.Error())
		}
		_ = c.os.Close()
	}
	w.looked.Add(c.looked)
	hits, miss := c.objs.Stats()
	w.objHit.Add(hits)
	w.objMiss.Add(miss)
	w.mu.Lock()
	for oid, v := range c.acked {
		w.acked[oid] = v
	}
	w.added = append(w.added, c.added...)
	w.mu.Unlock()
	// A commit the run's end canceled lost its units all the same: err
	// (a *workload.Lost) says how many.
	return err
}

// nopOps runs without timing: Close's commit is outside any unit.
type nopOps struct{}

func (nopOps) Time(_ int, fn func() error) error { return fn() }
