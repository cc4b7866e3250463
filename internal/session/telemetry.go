package session

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/hostinfo"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/server"
)

// telemetry samples the machine's side of every interval of the series
// (result.Second.Machine): the data folder's device, a managed server's
// processes' CPU and dbgauge's own, from the kernel's counters, read once
// an interval by the observer's goroutine; and the engine's side
// (result.Second.Engine), from a backend.Sampler read once a second on a
// goroutine of its own, each move of a checkpoint, autovacuum, flush or
// compaction counter an event on the time line (eventCounters).
type telemetry struct {
	off       bool // --telemetry off
	dev       string
	serverPID int // a managed server's main process as the run began; 0: none
	started   bool
	last      machineSample
	engine    *engineSampler // nil: the engine is neither a backend.Sampler nor a backend.Waiter
	used      engineSample   // the engine's last sample a second used
	// The measure phase's waits: connections waiting summed over its
	// reads, by wait, and the reads.
	waits map[string]int
	reads int
}

// machineSample is the counters at one moment.
type machineSample struct {
	at        time.Time
	disk      hostinfo.Disk
	diskOK    bool
	serverPID int
	serverCPU time.Duration
	serverOK  bool
	user, sys time.Duration
}

func (t *telemetry) phaseBegins(s *session, _ *metrics.Phase) {
	if t.started || t.off {
		return
	}
	t.started, t.dev = true, s.res.Environment.DataDir.Device
	// The server's main process as the run begins, read once: ServerInfo
	// is not to be read while a fault restarts the server. After a
	// restart the old process is gone, and the server's cores go unknown.
	if srv, ok := s.db.(backend.Server); ok {
		t.serverPID = srv.ServerInfo().PID
	}
	t.last = t.sample()
	sm, _ := s.db.(backend.Sampler)
	w, _ := s.db.(backend.Waiter)
	if sm != nil || w != nil {
		t.engine = startEngineSampler(sm, w, time.Second)
	}
	t.waits = map[string]int{}
}

func (t *telemetry) runEnded(_ context.Context, s *session, _ *run.Outcome, _ time.Time) {
	t.stop()
	if w := topWaits(t.waits, t.reads); w != nil {
		s.mu.Lock()
		s.res.Waits = w
		s.mu.Unlock()
	}
}

// topWaits is the measure phase's waits, most first: each the mean number
// of connections waiting on it and its share of all the waiting seen; nil
// when none was read.
func topWaits(sums map[string]int, reads int) []result.Wait {
	if reads == 0 {
		return nil
	}
	all := 0
	for _, n := range sums {
		all += n
	}
	out := make([]result.Wait, 0, len(sums))
	for k, n := range sums {
		w := result.Wait{Wait: k, Waiting: float64(n) / float64(reads)}
		if all > 0 {
			w.SharePct = 100 * float64(n) / float64(all)
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Waiting != out[j].Waiting {
			return out[i].Waiting > out[j].Waiting
		}
		return out[i].Wait < out[j].Wait
	})
	return out
}

func (t *telemetry) closing(*session) { t.stop() }

func (t *telemetry) stop() {
	if t.engine != nil {
		t.engine.stop()
		t.engine = nil
	}
}

func (t *telemetry) second(s *session, p *metrics.Phase, _ *metrics.Interval, sec *result.Second) {
	if !t.started {
		return
	}
	now := t.sample()
	sec.Machine = machineSecond(t.last, now)
	t.last = now
	if t.engine == nil {
		return
	}
	var sums map[string]int
	var reads int
	sec.Waits, sums, reads = t.engine.takeWaits()
	if p.Name == run.Measure {
		for k, n := range sums {
			t.waits[k] += n
		}
		t.reads += reads
	}
	latest := t.engine.latest()
	if latest.at.IsZero() || !latest.at.After(t.used.at) {
		return
	}
	if !t.used.at.IsZero() {
		sec.Engine = engineSecond(t.used, latest)
		for _, e := range counterEvents(t.used, latest) {
			s.event(latest.at, e.Kind, e.Detail)
		}
	}
	t.used = latest
}

// eventCounters are the engine counters (backend.Sampler) whose every move
// is an event on the time line: the counter, the event's kind, what the
// detail says of a move of n, and a byte or buffer counter whose move the
// detail adds.
var eventCounters = []struct {
	counter, kind string
	detail        func(n, also int64) string
	also          string
}{
	{"checkpoints", result.EventCheckpoint, func(n, also int64) string {
		return fmt.Sprintf("%d checkpoint(s) began (the engine counts one as it starts); %d buffers written by checkpoints since the last sample", n, also)
	}, "checkpoint_buffers"},
	{"autovacuums", result.EventAutovacuum, func(n, _ int64) string {
		return fmt.Sprintf("%d autovacuum(s) of the workload's tables began (seen among the engine's processes)", n)
	}, ""},
	{"autoanalyzes", result.EventAutoanalyze, func(n, _ int64) string {
		return fmt.Sprintf("%d autoanalyze(s) of the workload's tables began (seen among the engine's processes)", n)
	}, ""},
	{"memtable_flushes", result.EventFlush, func(n, also int64) string {
		return fmt.Sprintf("%d memtable flush(es) into tables ended since the last sample, %.1f MiB written", n, float64(also)/(1<<20))
	}, "bytes_flushed"},
	{"compactions", result.EventCompaction, func(n, also int64) string {
		return fmt.Sprintf("%d compaction(s) ended since the last sample, %.1f MiB written", n, float64(also)/(1<<20))
	}, "bytes_compacted"},
}

// counterEvents are the events the engine's counters say happened between
// two samples, in eventCounters' order; a counter that went down (the
// server restarted) says nothing.
func counterEvents(a, b engineSample) []result.Event {
	var out []result.Event
	for _, c := range eventCounters {
		was, ok := a.vals[c.counter]
		if n := b.vals[c.counter] - was; ok && n > 0 {
			out = append(out, result.Event{Kind: c.kind, Detail: c.detail(n, max(0, b.vals[c.also]-a.vals[c.also]))})
		}
	}
	return out
}

// engineSample is the engine's counters at one moment.
type engineSample struct {
	at   time.Time
	vals map[string]int64
}

// engineSecond is how fast each counter moved between two samples, per
// second; a counter that went down (the server restarted) is left out.
func engineSecond(a, b engineSample) map[string]float64 {
	dt := b.at.Sub(a.at).Seconds()
	if dt <= 0 {
		return nil
	}
	out := map[string]float64{}
	for k, v := range b.vals {
		if w, ok := a.vals[k]; ok && v >= w {
			out[k] = float64(v-w) / dt
		}
	}
	return out
}

// engineSampler reads an engine's counters once a second, and what its
// connections wait on ten times a second, on a goroutine of its own, so
// that a slow read never holds up the series.
type engineSampler struct {
	mu     sync.Mutex
	last   engineSample
	waits  map[string]int // waiting connections summed over the window's reads, by wait
	reads  int            // the window's reads of the waits
	cancel context.CancelFunc
	done   chan struct{}
}

// waitsEvery is how often the engine's waits are read.
const waitsEvery = 100 * time.Millisecond

// startEngineSampler reads sm (a backend.Sampler, or nil) every every and
// w (a backend.Waiter, or nil) every waitsEvery, each read bounded by most
// of its interval, until stop.
func startEngineSampler(sm backend.Sampler, w backend.Waiter, every time.Duration) *engineSampler {
	ctx, cancel := context.WithCancel(context.Background())
	e := &engineSampler{cancel: cancel, done: make(chan struct{}), waits: map[string]int{}}
	sample := func() {
		rctx, rcancel := context.WithTimeout(ctx, every*4/5)
		vals, err := sm.Sample(rctx)
		rcancel()
		if err == nil {
			e.mu.Lock()
			e.last = engineSample{at: time.Now(), vals: vals}
			e.mu.Unlock()
		}
	}
	wait := func() {
		rctx, rcancel := context.WithTimeout(ctx, waitsEvery*4/5)
		got, err := w.Waits(rctx)
		rcancel()
		if err == nil {
			e.mu.Lock()
			for k, n := range got {
				e.waits[k] += n
			}
			e.reads++
			e.mu.Unlock()
		}
	}
	step := every
	if w != nil {
		step = waitsEvery
	}
	go func() {
		defer close(e.done)
		tick := time.NewTicker(step)
		defer tick.Stop()
		var sampled time.Time
		for {
			if sm != nil && time.Since(sampled) >= every-step/2 {
				sampled = time.Now()
				sample()
			}
			if w != nil {
				wait()
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return e
}

// takeWaits returns the window's waits, each the mean number of
// connections waiting on it over the window's reads, and begins a new
// window; nil when there was no read.
func (e *engineSampler) takeWaits() (map[string]float64, map[string]int, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.reads == 0 {
		return nil, nil, 0
	}
	sums, reads := e.waits, e.reads
	e.waits, e.reads = map[string]int{}, 0
	mean := make(map[string]float64, len(sums))
	for k, n := range sums {
		mean[k] = float64(n) / float64(reads)
	}
	return mean, sums, reads
}

func (e *engineSampler) latest() engineSample {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

// stop ends the sampling and waits for a read in flight.
func (e *engineSampler) stop() {
	e.cancel()
	<-e.done
}

// sample reads the counters now.
func (t *telemetry) sample() machineSample {
	m := machineSample{at: time.Now()}
	if t.dev != "" {
		if d, err := hostinfo.DiskStats(t.dev); err == nil {
			m.disk, m.diskOK = d, true
		}
	}
	if t.serverPID > 0 {
		m.serverPID = t.serverPID
		if cpu, _, err := server.TreeCPU(m.serverPID); err == nil {
			m.serverCPU, m.serverOK = cpu, true
		}
	}
	m.user, m.sys, _ = cpuTimes()
	return m
}

// machineSecond is what happened between two samples, per second.
func machineSecond(a, b machineSample) *result.MachineSecond {
	dt := b.at.Sub(a.at).Seconds()
	if dt <= 0 {
		return nil
	}
	out := &result.MachineSecond{HarnessCores: (b.user + b.sys - a.user - a.sys).Seconds() / dt}
	if a.serverOK && b.serverOK && a.serverPID == b.serverPID {
		cores := (b.serverCPU - a.serverCPU).Seconds() / dt
		out.ServerCores = &cores
	}
	if a.diskOK && b.diskOK {
		d, e := a.disk, b.disk
		ms := dt * 1000
		out.Disk = &result.DiskSecond{
			ReadMiB: float64(e.ReadBytes-d.ReadBytes) / (1 << 20) / dt, WriteMiB: float64(e.WrittenBytes-d.WrittenBytes) / (1 << 20) / dt,
			Reads: float64(e.Reads-d.Reads) / dt, Writes: float64(e.Writes-d.Writes) / dt,
			UtilPct: min(100, 100*float64(e.BusyMs-d.BusyMs)/ms), Queue: float64(e.WeightedMs-d.WeightedMs) / ms,
		}
	}
	return out
}
