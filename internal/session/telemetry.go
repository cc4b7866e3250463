package session

import (
	"context"
	"fmt"
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
// goroutine of its own, each checkpoint an event on the time line.
type telemetry struct {
	dev     string
	started bool
	last    machineSample
	engine  *engineSampler // nil: the engine is no backend.Sampler
	used    engineSample   // the engine's last sample a second used
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
	if t.started {
		return
	}
	t.started, t.dev = true, s.res.Environment.DataDir.Device
	t.last = t.sample(s.db)
	if sm, ok := s.db.(backend.Sampler); ok {
		t.engine = startEngineSampler(sm, time.Second)
	}
}

func (t *telemetry) runEnded(context.Context, *session, *run.Outcome, time.Time) { t.stop() }

func (t *telemetry) closing(*session) { t.stop() }

func (t *telemetry) stop() {
	if t.engine != nil {
		t.engine.stop()
		t.engine = nil
	}
}

func (t *telemetry) second(s *session, _ *metrics.Phase, _ *metrics.Interval, sec *result.Second) {
	if !t.started {
		return
	}
	now := t.sample(s.db)
	sec.Machine = machineSecond(t.last, now)
	t.last = now
	if t.engine == nil {
		return
	}
	latest := t.engine.latest()
	if latest.at.IsZero() || !latest.at.After(t.used.at) {
		return
	}
	if !t.used.at.IsZero() {
		sec.Engine = engineSecond(t.used, latest)
		if n := latest.vals["checkpoints"] - t.used.vals["checkpoints"]; n > 0 {
			s.event(latest.at, result.EventCheckpoint, fmt.Sprintf("%d checkpoint(s) began (the engine counts one as it starts); %d buffers written by checkpoints since the last sample", n,
				latest.vals["checkpoint_buffers"]-t.used.vals["checkpoint_buffers"]))
		}
	}
	t.used = latest
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

// engineSampler reads an engine's counters every interval on a goroutine
// of its own, so that a slow read never holds up the series.
type engineSampler struct {
	mu     sync.Mutex
	last   engineSample
	cancel context.CancelFunc
	done   chan struct{}
}

// startEngineSampler samples sm now and then every every, each read
// bounded by most of the interval, until stop.
func startEngineSampler(sm backend.Sampler, every time.Duration) *engineSampler {
	ctx, cancel := context.WithCancel(context.Background())
	e := &engineSampler{cancel: cancel, done: make(chan struct{})}
	take := func() {
		rctx, rcancel := context.WithTimeout(ctx, every*4/5)
		vals, err := sm.Sample(rctx)
		rcancel()
		if err == nil {
			e.mu.Lock()
			e.last = engineSample{at: time.Now(), vals: vals}
			e.mu.Unlock()
		}
	}
	go func() {
		defer close(e.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for take(); ; take() {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return e
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
func (t *telemetry) sample(db backend.DB) machineSample {
	m := machineSample{at: time.Now()}
	if t.dev != "" {
		if d, err := hostinfo.DiskStats(t.dev); err == nil {
			m.disk, m.diskOK = d, true
		}
	}
	if srv, ok := db.(backend.Server); ok {
		m.serverPID = srv.ServerInfo().PID
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
