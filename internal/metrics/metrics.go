// Package metrics records latencies in HdrHistograms and counts outcomes,
// per interval and per phase, without a shared lock on the hot path.
//
// Clients record into a Recorder; recorders share a few shards, each with its
// own mutex. Once a second the run engine calls Set.Tick, which merges every
// shard into one Interval and resets them; the engine adds intervals into a
// Phase. Percentiles are only ever read from merged histograms, never averaged.
package metrics

import (
	"sort"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbgauge/dbgauge/internal/dberr"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/result"
)

// Histogram range: 1 µs to an hour (Bound) at 3 significant digits. Values
// outside are clamped so that recording never fails; a latency above Bound
// is recorded at Bound and counted (Latency.Above), never clamped unsaid.
const (
	lowestUs  = 1
	highestUs = int64(Bound / time.Microsecond)
	sigFigs   = 3
	samples   = 3   // sample messages kept per failure class
	sampleLen = 300 // characters kept per sample message
)

// Bound is the highest latency a histogram holds as it is. It fits a queued
// value's 32 bits of microseconds (see value).
const Bound = time.Hour

// NewHistogram returns an empty latency histogram in microseconds.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(lowestUs, highestUs, sigFigs)
}

func recordUs(h *hdrhistogram.Histogram, d time.Duration) {
	_ = h.RecordValue(clampUs(d)) // cannot fail once clamped
}

// clampUs is d in microseconds, within the histograms' range.
func clampUs(d time.Duration) int64 {
	return min(max(d.Microseconds(), lowestUs), highestUs)
}

// Shape names what is measured: the unit kinds of a workload's mix and the
// operations inside units.
type Shape struct {
	Units []string
	Ops   []string
}

type failKey struct {
	class dberr.Class
	kind  dberr.Kind
	code  string
}

// counts is one interval's worth of measurements; shards and intervals share it.
type counts struct {
	units    []*hdrhistogram.Histogram
	ops      []*hdrhistogram.Histogram
	lag      *hdrhistogram.Histogram
	failed   []int64
	opFailed []int64 // operations that returned an error, per operation (every attempt)
	nothing  []int64 // units that found nothing to do, per kind
	// unitsAbove, opsAbove and lagAbove count the latencies above Bound
	// (recorded at Bound), per unit kind and operation.
	unitsAbove []int64
	opsAbove   []int64
	lagAbove   int64
	retries    int64
	late       int64
	lost       int64
	canceled   int64
	failures   map[failKey]*result.Failure // units that failed, by cause
	retried    map[failKey]*result.Failure // errors that were retried, by cause
	// nothings counts units that found nothing to do, by the reason the
	// workload gave (its code: OLTP-EMUL's exception names).
	nothings map[failKey]*result.Failure
	// failedBy counts each unit kind's failures by error kind (lock,
	// deadlock, constraint…); nil for a kind that never failed.
	failedBy []map[dberr.Kind]int64
}

// newCounts returns empty counts of shape s. Counts are sparse: a histogram
// is made at its first value (record, mergeInto), since each is ~184 KB and
// most never see a value (the lag of a closed loop, a shard's share of a
// mix's rare branches, the operations of tpcb --select-only).
func newCounts(s Shape) counts {
	return counts{
		units:      make([]*hdrhistogram.Histogram, len(s.Units)),
		ops:        make([]*hdrhistogram.Histogram, len(s.Ops)),
		failed:     make([]int64, len(s.Units)),
		opFailed:   make([]int64, len(s.Ops)),
		nothing:    make([]int64, len(s.Units)),
		unitsAbove: make([]int64, len(s.Units)),
		opsAbove:   make([]int64, len(s.Ops)),
		failures:   map[failKey]*result.Failure{},
		retried:    map[failKey]*result.Failure{},
		nothings:   map[failKey]*result.Failure{},
		failedBy:   make([]map[dberr.Kind]int64, len(s.Units)),
	}
}

// empty is the histogram of no values, for counts that have none; it is
// never modified.
var empty = NewHistogram()

// orEmpty returns h, or an empty histogram when h was never made.
func orEmpty(h *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if h == nil {
		return empty
	}
	return h
}

// merge adds src into *dst, making *dst when src has values.
func merge(dst **hdrhistogram.Histogram, src *hdrhistogram.Histogram) {
	if src == nil || src.TotalCount() == 0 {
		return
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	Merge(*dst, src)
}

// record records d into *h, making the histogram at its first value.
func record(h **hdrhistogram.Histogram, d time.Duration) {
	if *h == nil {
		*h = NewHistogram()
	}
	recordUs(*h, d)
}

// mergeInto adds c into dst and, if reset, empties c.
func (c *counts) mergeInto(dst *counts, reset bool) {
	for i, h := range c.units {
		merge(&dst.units[i], h)
	}
	for i, h := range c.ops {
		merge(&dst.ops[i], h)
	}
	merge(&dst.lag, c.lag)
	for i, n := range c.failed {
		dst.failed[i] += n
	}
	for i, n := range c.nothing {
		dst.nothing[i] += n
	}
	for i, n := range c.opFailed {
		dst.opFailed[i] += n
	}
	for i, n := range c.unitsAbove {
		dst.unitsAbove[i] += n
	}
	for i, n := range c.opsAbove {
		dst.opsAbove[i] += n
	}
	dst.lagAbove += c.lagAbove
	dst.retries += c.retries
	dst.late += c.late
	dst.lost += c.lost
	dst.canceled += c.canceled
	mergeCauses(dst.failures, c.failures)
	mergeCauses(dst.retried, c.retried)
	mergeCauses(dst.nothings, c.nothings)
	for i, m := range c.failedBy {
		for k, n := range m {
			if dst.failedBy[i] == nil {
				dst.failedBy[i] = map[dberr.Kind]int64{}
			}
			dst.failedBy[i][k] += n
		}
	}
	if reset {
		c.reset()
	}
}

func mergeCauses(dst, src map[failKey]*result.Failure) {
	for k, f := range src {
		d, ok := dst[k]
		if !ok {
			d = &result.Failure{Class: f.Class, Kind: f.Kind, Code: f.Code}
			dst[k] = d
		}
		d.Count += f.Count
		for _, s := range f.Samples {
			if len(d.Samples) < samples && !contains(d.Samples, s) {
				d.Samples = append(d.Samples, s)
			}
		}
	}
}

// addCause counts err in m under its class, kind and code, keeping a few
// distinct sample messages (passwords masked).
func addCause(m map[failKey]*result.Failure, class dberr.Class, kind dberr.Kind, code string, err error) {
	key := failKey{class, kind, code}
	f, ok := m[key]
	if !ok {
		f = &result.Failure{Class: class.String(), Kind: string(kind), Code: code}
		m[key] = f
	}
	f.Count++
	if len(f.Samples) < samples {
		msg := redact.DSN(err.Error())
		if len(msg) > sampleLen {
			msg = msg[:sampleLen] + "…"
		}
		if !contains(f.Samples, msg) {
			f.Samples = append(f.Samples, msg)
		}
	}
}

func (c *counts) reset() {
	for _, h := range c.units {
		if h != nil {
			h.Reset()
		}
	}
	for _, h := range c.ops {
		if h != nil {
			h.Reset()
		}
	}
	if c.lag != nil {
		c.lag.Reset()
	}
	clear(c.failed)
	clear(c.opFailed)
	clear(c.nothing)
	clear(c.unitsAbove)
	clear(c.opsAbove)
	c.lagAbove = 0
	c.retries, c.late, c.lost, c.canceled = 0, 0, 0, 0
	clear(c.failures)
	clear(c.retried)
	clear(c.nothings)
	for _, m := range c.failedBy {
		clear(m)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shard is the measurements of the clients that share it since the last
// tick. Latencies are appended to vals and recorded into histograms in
// batches: recording one value at a time, between a client's network calls,
// missed the CPU's caches (the histogram, its counts, the lock) and cost
// ~250 ns a value at pgbench's pace, against ~5 in a batch. A batch is
// small (maxBatch, 2 KiB): one of 16,384 values streamed 128 KiB per shard
// through the caches the engine's own code uses (SQLite's, in process), and
// a select-only transaction took 1.7 % more CPU (one CPU, four runs of each).
type shard struct {
	mu sync.Mutex
	counts
	vals []uint64 // latencies not yet in a histogram: see value
	_    [64]byte // the next shard's lock on another cache line
}

// A latency waiting in a shard: the operation flag, the unit kind or
// operation index, and microseconds (clamped to the histograms' range,
// which fits in 32 bits).
const (
	opFlag   = 1 << 63
	maxBatch = 1 << 8 // values a shard holds before it records them itself
)

// The clamped microseconds fit in a value's 32 bits: this fails to compile
// if Bound grows past them (about 71 minutes).
const _ = uint32(highestUs)

func value(op bool, i int, d time.Duration) uint64 {
	v := uint64(i)<<32 | uint64(clampUs(d))
	if op {
		v |= opFlag
	}
	return v
}

// add queues a latency; the shard's lock is held.
func (sh *shard) add(v uint64) {
	sh.vals = append(sh.vals, v)
	if len(sh.vals) >= maxBatch {
		sh.flush(&sh.counts)
	}
}

// flush records the shard's waiting latencies into dst; the shard's lock is held.
func (sh *shard) flush(dst *counts) {
	for _, v := range sh.vals {
		h := &dst.units
		if v&opFlag != 0 {
			h = &dst.ops
		}
		i := int(v>>32) & 0x7fffffff
		if (*h)[i] == nil {
			(*h)[i] = NewHistogram()
		}
		_ = (*h)[i].RecordValue(int64(uint32(v))) // cannot fail: clamped
	}
	sh.vals = sh.vals[:0]
}

// Set gathers the measurements of every client of one run.
type Set struct {
	shape  Shape
	shards []*shard
	iv     Interval
}

// NewSet returns a Set for clients clients.
func NewSet(shape Shape, clients int) *Set {
	n := min(max(clients, 1), 16)
	s := &Set{shape: shape, shards: make([]*shard, n)}
	for i := range s.shards {
		s.shards[i] = &shard{counts: newCounts(shape)}
	}
	s.iv.counts = newCounts(shape)
	return s
}

// Recorder returns the recorder of client id. Recorders of different clients
// may be used concurrently.
func (s *Set) Recorder(id int) *Recorder {
	return &Recorder{sh: s.shards[id%len(s.shards)]}
}

// Tick closes the current interval at now and returns it. The Interval is
// reused by the next Tick: use it before calling Tick again. Tick must not be
// called concurrently with itself.
func (s *Set) Tick(now time.Time) *Interval {
	s.iv.reset()
	s.iv.Start, s.iv.End = s.iv.End, now
	for _, sh := range s.shards {
		sh.mu.Lock()
		sh.flush(&s.iv.counts)
		sh.mergeInto(&s.iv.counts, true)
		sh.mu.Unlock()
	}
	return &s.iv
}

// Start sets the beginning of the first interval.
func (s *Set) Start(now time.Time) { s.iv.End = now }

// Recorder records the measurements of one client, from that client's
// goroutine only.
//
// An operation's latency waits in the recorder until the next event that
// takes the shard's lock, its unit's outcome most often (Unit, Failed,
// Nothing, Lost…), or Flush: an operation costs no lock of its own, which
// between a client's network calls was a cache miss or two. So an
// operation is counted in the interval its unit ended in, with its unit.
type Recorder struct {
	sh  *shard
	ops []uint64 // operations' latencies not handed to the shard yet
}

// maxOps is how many operations' latencies a recorder keeps before it
// hands them to its shard on its own.
const maxOps = 64

// take locks the shard and hands it the operations' latencies waiting.
func (r *Recorder) take() {
	r.sh.mu.Lock()
	for _, v := range r.ops {
		r.sh.add(v)
	}
	r.ops = r.ops[:0]
}

// Flush hands the operations' latencies waiting to the shard: a client
// calls it before it ends.
func (r *Recorder) Flush() {
	r.take()
	r.sh.mu.Unlock()
}

// Unit records a successful unit of kind k that took d.
func (r *Recorder) Unit(k int, d time.Duration) {
	v := value(false, k, d)
	r.take()
	r.sh.add(v)
	if d > Bound {
		r.sh.unitsAbove[k]++
	}
	r.sh.mu.Unlock()
}

// Op records an operation op (inside a unit) that took d.
func (r *Recorder) Op(op int, d time.Duration) {
	v := value(true, op, d)
	if d <= Bound && len(r.ops) < maxOps {
		r.ops = append(r.ops, v)
		return
	}
	r.take()
	r.sh.add(v)
	if d > Bound {
		r.sh.opsAbove[op]++
	}
	r.sh.mu.Unlock()
}

// OpFailed counts an operation op that returned err: a statement that
// failed, on every attempt of its unit. An operation that found nothing to
// do, or that the stopping run canceled, is no failure.
func (r *Recorder) OpFailed(op int, err error) {
	switch dberr.ClassOf(err) {
	case dberr.Expected, dberr.Canceled:
		return
	}
	r.take()
	r.sh.opFailed[op]++
	r.sh.mu.Unlock()
}

// Lag records how far behind its intended start a unit began (open loop).
func (r *Recorder) Lag(d time.Duration, late bool) {
	r.take()
	record(&r.sh.lag, d)
	if d > Bound {
		r.sh.lagAbove++
	}
	if late {
		r.sh.late++
	}
	r.sh.mu.Unlock()
}

// Retry counts one retry of a unit after the retryable error err.
func (r *Recorder) Retry(err error) {
	class, kind, code := dberr.Describe(err)
	r.take()
	r.sh.retries++
	addCause(r.sh.retried, class, kind, code, err)
	r.sh.mu.Unlock()
}

// Lost counts n units that had finished but were rolled back with their
// group (--commit every:N): the run engine never recorded them as units.
func (r *Recorder) Lost(n int64) {
	r.take()
	r.sh.lost += n
	r.sh.mu.Unlock()
}

// Failed counts a unit of kind k that failed with err. Canceled units (the run
// is stopping) are counted apart and are neither ok nor failed.
func (r *Recorder) Failed(k int, err error) {
	class, kind, code := dberr.Describe(err)
	r.take()
	defer r.sh.mu.Unlock()
	if class == dberr.Canceled {
		r.sh.canceled++
		return
	}
	r.sh.failed[k]++
	if r.sh.failedBy[k] == nil {
		r.sh.failedBy[k] = map[dberr.Kind]int64{}
	}
	r.sh.failedBy[k][kind]++
	addCause(r.sh.failures, class, kind, code, err)
}

// Nothing counts a unit of kind k that found nothing to do
// (workload.ErrNothing, err): neither ok nor failed, and not in the
// throughput. The reasons are counted by err's code, with a few samples.
func (r *Recorder) Nothing(k int, err error) {
	class, kind, code := dberr.Describe(err)
	r.take()
	r.sh.nothing[k]++
	if err != nil {
		addCause(r.sh.nothings, class, kind, code, err)
	}
	r.sh.mu.Unlock()
}

// Interval is what was measured between two ticks.
type Interval struct {
	Start, End time.Time
	// Offered is how many units the open loop's plan meant to start in
	// the interval (an expected count with Poisson arrivals); 0 in a
	// closed loop.
	Offered float64
	counts
}

// OK returns the number of successful units: those recorded with Unit.
// Units rolled back with their group are Lost, and never recorded: a
// count is never negative.
func (iv *Interval) OK() int64 {
	var n int64
	for _, h := range iv.units {
		if h != nil {
			n += h.TotalCount()
		}
	}
	return n
}

// Lost returns the number of units rolled back with their group.
func (iv *Interval) Lost() int64 { return iv.lost }

// Late returns the number of units of an open loop that started over one
// intended gap behind their intended start.
func (iv *Interval) Late() int64 { return iv.late }

// UnitOK returns the number of successful units of each kind.
func (iv *Interval) UnitOK() []int64 {
	out := make([]int64, len(iv.units))
	for i, h := range iv.units {
		if h != nil {
			out[i] = h.TotalCount()
		}
	}
	return out
}

// Failed returns the number of failed units.
func (iv *Interval) Failed() int64 {
	var n int64
	for _, f := range iv.failed {
		n += f
	}
	return n
}

// Nothing returns the number of units that found nothing to do.
func (iv *Interval) Nothing() int64 {
	var n int64
	for _, v := range iv.nothing {
		n += v
	}
	return n
}

// Retries returns the number of retries.
func (iv *Interval) Retries() int64 { return iv.retries }

// FailedByClass counts the interval's failed units by error class.
func (iv *Interval) FailedByClass() map[string]int64 { return byClass(iv.failures) }

// RetriedByClass counts the interval's retried errors by error class.
func (iv *Interval) RetriedByClass() map[string]int64 { return byClass(iv.retried) }

func byClass(m map[failKey]*result.Failure) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	out := map[string]int64{}
	for k, f := range m {
		out[k.class.String()] += f.Count
	}
	return out
}

// All returns the latencies of every unit kind merged. It may return the
// interval's own histogram: do not modify it.
func (iv *Interval) All() *hdrhistogram.Histogram { return mergeAll(iv.units) }

func mergeAll(hs []*hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if len(hs) == 1 {
		return orEmpty(hs[0])
	}
	all := NewHistogram()
	for _, h := range hs {
		if h != nil {
			Merge(all, h)
		}
	}
	return all
}

// Phase accumulates the intervals of one phase.
type Phase struct {
	Name      string
	Discarded bool
	// Settled, on a warm-up the run ends when its rate settles (--warmup
	// auto), says whether it did; nil on any other phase.
	Settled *bool
	Start   time.Time
	End     time.Time
	// Offered is the units the open loop meant to start in the phase.
	Offered float64
	// Missed is the units the open loop meant to start in the phase that
	// never started: left waiting by a slow engine when a step or the
	// run ended.
	Missed int64
	shape  Shape
	counts
}

// NewPhase returns an empty phase starting at start.
func NewPhase(name string, shape Shape, start time.Time) *Phase {
	return &Phase{Name: name, shape: shape, Start: start, End: start, counts: newCounts(shape)}
}

// Add adds an interval to the phase.
func (p *Phase) Add(iv *Interval) {
	iv.mergeInto(&p.counts, false)
	p.Offered += iv.Offered
	if iv.End.After(p.End) {
		p.End = iv.End
	}
}

// OK returns the phase's successful units.
func (p *Phase) OK() int64 {
	iv := Interval{counts: p.counts}
	return iv.OK()
}

// Record returns the phase as a result record. With hist, every latency holds
// its encoded histogram.
func (p *Phase) Record(hist bool) result.Phase {
	iv := Interval{counts: p.counts}
	secs := p.End.Sub(p.Start).Seconds()
	out := result.Phase{
		Name: p.Name, Discarded: p.Discarded, Settled: p.Settled, Start: p.Start.UTC(), End: p.End.UTC(), Seconds: secs,
		OK: iv.OK(), Failed: iv.Failed(), Nothing: iv.Nothing(), Retries: p.retries, Lost: p.lost, Late: p.late,
		Missed: p.Missed, All: Summarize("all", mergeAll(p.units), hist),
	}
	for _, n := range p.unitsAbove {
		out.All.Above += n
	}
	out.All.BoundUs = boundOf(out.All.Above)
	if secs > 0 {
		out.Rate = float64(out.OK) / secs
		out.Offered = p.Offered / secs
	}
	for i, h := range p.units {
		u := Summarize(p.shape.Units[i], h, hist)
		u.Failed, u.Nothing = p.failed[i], p.nothing[i]
		u.Above, u.BoundUs = p.unitsAbove[i], boundOf(p.unitsAbove[i])
		for k, n := range p.failedBy[i] {
			if n == 0 {
				continue
			}
			if out.UnitsFailedBy == nil {
				out.UnitsFailedBy = map[string]map[string]int64{}
			}
			if out.UnitsFailedBy[u.Name] == nil {
				out.UnitsFailedBy[u.Name] = map[string]int64{}
			}
			out.UnitsFailedBy[u.Name][string(k)] += n
		}
		out.Units = append(out.Units, u)
	}
	for i, h := range p.ops {
		o := Summarize(p.shape.Ops[i], h, hist)
		o.Failed = p.opFailed[i]
		o.Above, o.BoundUs = p.opsAbove[i], boundOf(p.opsAbove[i])
		out.Ops = append(out.Ops, o)
	}
	if p.lag != nil && p.lag.TotalCount() > 0 {
		l := Summarize("lag", p.lag, hist)
		l.Above, l.BoundUs = p.lagAbove, boundOf(p.lagAbove)
		out.Lag = &l
	}
	out.Failures, out.Retried = causes(p.failures), causes(p.retried)
	if len(p.nothings) > 0 {
		out.NothingBy = causes(p.nothings)
	}
	return out
}

// boundOf is the bound a latency summary names beside above latencies
// over it, or 0 when there are none.
func boundOf(above int64) int64 {
	if above == 0 {
		return 0
	}
	return highestUs
}

// causes lists a cause map, most frequent first.
func causes(m map[failKey]*result.Failure) []result.Failure {
	out := make([]result.Failure, 0, len(m))
	for _, f := range m {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Class+out[i].Kind+out[i].Code < out[j].Class+out[j].Kind+out[j].Code
	})
	return out
}

// Summarize returns the summary of a latency histogram, with the histogram
// itself encoded when hist is true.
func Summarize(name string, h *hdrhistogram.Histogram, hist bool) result.Latency {
	if h == nil {
		return result.Latency{Name: name}
	}
	l := result.Latency{Name: name, Count: h.TotalCount()}
	if l.Count == 0 {
		return l
	}
	q := h.ValueAtPercentilesSlice(summaryPercentiles) // one pass (counts.go)
	l.P50Us, l.P90Us, l.P95Us, l.P99Us, l.P999Us, l.MaxUs = q[0], q[1], q[2], q[3], q[4], q[5]
	l.MinUs = h.Min() // it stops at the first value
	if !hist {
		l.MeanUs, l.SdUs = h.Mean(), h.StdDev()
		return l
	}
	if v, ok := viewOf(h); ok { // the same values, faster (counts.go)
		l.MeanUs, l.Hist = v.mean(), v.encode()
		l.SdUs = v.stddev(l.MeanUs)
		return l
	}
	l.MeanUs, l.SdUs = h.Mean(), h.StdDev()
	// HdrHistogram's own text form: V2 compressed, base64 ("HISTFAAA…").
	if b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		l.Hist = string(b)
	}
	return l
}

// Decode returns the histogram encoded in a result latency.
func Decode(l result.Latency) (*hdrhistogram.Histogram, error) {
	return hdrhistogram.Decode([]byte(l.Hist))
}
