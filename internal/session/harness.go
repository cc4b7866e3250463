package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/hostinfo"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/placement"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/run"
	"github.com/dbgauge/dbgauge/internal/server"
	"github.com/dbgauge/dbgauge/internal/verdict"
)

// harness is dbgauge measuring itself: its own CPU and memory over the
// measure phase, a managed server's CPU over the same phase, and the
// verdict on whether dbgauge could have been the limit (verdict.Harness).
type harness struct{ probe *harnessProbe }

func (h *harness) phaseBegins(s *session, p *metrics.Phase) {
	if p.Name == run.Measure {
		h.probe = startHarness(p.Start, s.db, s.res.Environment.DataDir.Device)
	}
}

func (h *harness) second(*session, *metrics.Phase, *metrics.Interval, *result.Second) {
	if h.probe != nil {
		h.probe.sample()
	}
}

func (h *harness) runEnded(_ context.Context, s *session, out *run.Outcome, end time.Time) {
	if out == nil || h.probe == nil || len(out.Phases) == 0 {
		return
	}
	ok := out.Phases[len(out.Phases)-1].OK()
	// An engine run in worker processes (backend.Workers) is not inside dbgauge.
	inProcess := s.res.Server == nil && s.res.Engine.Path != "" && h.probe.workers == nil
	r := h.probe.finish(end, ok, s.run.Clients, s.GCPercent(), inProcess, s.harnessCPUs != nil)
	sc := h.probe.server(end, ok)
	verdict.Harness(r, sc, s.res.Config.Unit)
	dio := h.probe.deviceIO()
	s.mu.Lock()
	s.res.Harness, s.res.ServerCPU, s.res.DeviceIO = r, sc, dio
	s.mu.Unlock()
}

// harnessProbe measures dbgauge's own CPU and memory over the measure phase
// (result.Harness). It is used by the run engine's observer goroutine only.
type harnessProbe struct {
	start      time.Time
	user, sys  time.Duration
	csw        int64  // context switches at the start
	allocs     uint64 // heap allocations at the start, and their bytes
	allocBytes uint64
	peak       int64
	anon       int64 // the largest anonymous part seen
	engine     int64 // the engine's own allocations at the peak (backend.MemoryUser)
	goroutines int
	mem        backend.MemoryUser // nil unless the engine runs inside dbgauge and counts its memory
	// The engine's worker processes (backend.Workers) and their cost at
	// the start; nil: none.
	workers    backend.Workers
	workerCPU  time.Duration
	workerReqs int64
	// A managed server's main process and its tree's CPU at the start.
	srv       backend.Server
	serverPID int
	serverCPU time.Duration
	// The data folder's block device, and what it had read and written
	// at the start (diskOK: it could be read).
	dev    string
	disk   hostinfo.Disk
	diskOK bool
	// Every CPU's ticks at the start (/proc/stat), and the CPUs dbgauge
	// and a managed server may run on (nil: the machine's).
	ticks      map[int]hostinfo.CPUTicks
	own, onSrv placement.Set
}

// startHarness begins measuring at the start of the measure phase. db is
// the open engine, dev its data folder's block device ("" when unknown).
func startHarness(at time.Time, db backend.DB, dev string) *harnessProbe {
	h := &harnessProbe{start: at}
	h.mem, _ = db.(backend.MemoryUser)
	if w, ok := db.(backend.Workers); ok {
		h.workers = w
		h.workerCPU, h.workerReqs = w.WorkerCost()
	}
	if srv, ok := db.(backend.Server); ok {
		info := srv.ServerInfo()
		if cpu, _, err := server.TreeCPU(info.PID); err == nil {
			h.srv, h.serverPID, h.serverCPU = srv, info.PID, cpu
		}
		if info.CPUs != "" {
			h.onSrv, _ = placement.ParseList(info.CPUs)
		}
	}
	h.own, _ = placement.Self()
	h.ticks, _ = hostinfo.CPUTimes()
	h.user, h.sys, h.csw = cpuTimes()
	h.allocs, h.allocBytes = heapAllocs()
	if dev != "" {
		if d, err := hostinfo.DiskStats(dev); err == nil {
			h.dev, h.disk, h.diskOK = dev, d, true
		}
	}
	h.sample()
	return h
}

// deviceIO returns what the data folder's device read and wrote since the
// start; nil when it could not be read.
func (h *harnessProbe) deviceIO() *result.DeviceIO {
	if !h.diskOK {
		return nil
	}
	d, err := hostinfo.DiskStats(h.dev)
	if err != nil {
		return nil
	}
	return &result.DeviceIO{Device: h.dev, ReadBytes: d.ReadBytes - h.disk.ReadBytes, WrittenBytes: d.WrittenBytes - h.disk.WrittenBytes}
}

// server returns what the managed server used over the phase that ended
// at end with ok units; nil when there is none, or when it was restarted
// in the phase (its CPU before is then lost).
func (h *harnessProbe) server(end time.Time, ok int64) *result.ServerCPU {
	if h.srv == nil || h.srv.ServerInfo().PID != h.serverPID {
		return nil
	}
	cpu, n, err := server.TreeCPU(h.serverPID)
	if err != nil {
		return nil
	}
	r := &result.ServerCPU{Seconds: (cpu - h.serverCPU).Seconds(), Processes: n, CPUCount: len(h.onSrv)}
	if ticks, err := hostinfo.CPUTimes(); err == nil && h.ticks != nil {
		if r.CPUCount == 0 {
			r.CPUCount = len(ticks)
		}
		r.CPUsBusy = hostinfo.BusyCores(h.ticks, ticks, h.onSrv)
	}
	if secs := end.Sub(h.start).Seconds(); secs > 0 {
		r.Cores = r.Seconds / secs
	}
	if ok > 0 {
		r.CPUPerUnitUs = r.Seconds / float64(ok) * 1e6
	}
	return r
}

// sample notes the resident set size if it is the largest yet.
func (h *harnessProbe) sample() {
	rss, anon := residentBytes()
	h.anon = max(h.anon, anon)
	if rss > h.peak {
		h.peak, h.goroutines = rss, runtime.NumGoroutine()
		if h.mem != nil {
			h.engine = h.mem.EngineMemory()
		}
	}
}

// finish returns the record of the phase that ended at end with ok units;
// placed says --cpus harness=… put dbgauge on its CPUs.
func (h *harnessProbe) finish(end time.Time, ok int64, clients, gogc int, inProcess, placed bool) *result.Harness {
	h.sample()
	user, sys, csw := cpuTimes()
	allocs, allocBytes := heapAllocs()
	r := &result.Harness{
		Clients: clients, GoMaxProcs: runtime.GOMAXPROCS(0), InProcess: inProcess,
		Seconds:     end.Sub(h.start).Seconds(),
		UserSeconds: (user - h.user).Seconds(), SystemSeconds: (sys - h.sys).Seconds(),
		RSSPeakBytes: h.peak, AnonPeakBytes: h.anon, Goroutines: h.goroutines, EngineBytes: h.engine, GOGC: gcPercent(gogc),
	}
	if clients >= manyClients && r.GOGC == 50 {
		r.Note = fmt.Sprintf("GOGC 50 from %d clients on: their connections make most of the heap", manyClients)
	}
	cpu := r.UserSeconds + r.SystemSeconds
	if ok > 0 {
		r.CPUPerUnitUs = cpu / float64(ok) * 1e6
		r.ContextSwitchesPerUnit = float64(csw-h.csw) / float64(ok)
		r.AllocsPerUnit = float64(allocs-h.allocs) / float64(ok)
		r.AllocBytesPerUnit = float64(allocBytes-h.allocBytes) / float64(ok)
	}
	if r.Seconds > 0 {
		r.Cores = cpu / r.Seconds
	}
	if clients > 0 {
		r.RSSPerClientBytes = max(h.anon-h.engine, 0) / int64(clients)
	}
	r.Worker = h.worker(r.Seconds, ok)
	r.CPUs, r.CPUCount, r.Placed = h.own.String(), len(h.own), placed
	if ticks, err := hostinfo.CPUTimes(); err == nil && h.ticks != nil {
		r.MachineCPUs = len(ticks)
		r.MachineBusy = hostinfo.BusyCores(h.ticks, ticks, nil)
		r.CPUsBusy = hostinfo.BusyCores(h.ticks, ticks, h.own)
		r.Share = r.Cores / float64(r.MachineCPUs)
	}
	return r
}

// worker returns what the engine's workers used over the phase of secs
// seconds with ok units; nil without workers.
func (h *harnessProbe) worker(secs float64, ok int64) *result.WorkerCost {
	if h.workers == nil {
		return nil
	}
	cpu, reqs := h.workers.WorkerCost()
	w := &result.WorkerCost{Seconds: (cpu - h.workerCPU).Seconds(), Requests: reqs - h.workerReqs}
	if secs > 0 {
		w.Cores = w.Seconds / secs
	}
	if w.Requests > 0 {
		w.CPUPerRequestUs = w.Seconds / float64(w.Requests) * 1e6
	}
	if ok > 0 {
		w.CPUPerUnitUs = w.Seconds / float64(ok) * 1e6
	}
	return w
}

// gcPercent returns the garbage collector's target (GOGC) this run has: the
// plan's (applied by cli), else the GOGC variable's, else the runtime's 100.
// (Reading it back through debug.SetGCPercent would turn the collector off
// for a moment and wait for a cycle in progress to finish its marking.)
func gcPercent(planned int) int {
	if planned > 0 && os.Getenv("GOGC") == "" {
		return planned
	}
	if v, err := strconv.Atoi(os.Getenv("GOGC")); err == nil {
		return v
	}
	return 100
}

// cpuTimes returns the user and system CPU time of the whole process, and
// its context switches (voluntary and involuntary).
func cpuTimes() (user, sys time.Duration, csw int64) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), ru.Nvcsw + ru.Nivcsw
}

// heapAllocs returns the Go heap's allocations so far, and their bytes
// (runtime/metrics: cumulative, read without stopping the world).
func heapAllocs() (objects, bytes uint64) {
	s := []rtmetrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 || s[1].Value.Kind() != rtmetrics.KindUint64 {
		return 0, 0
	}
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// residentBytes returns the process's resident set size and its anonymous
// part (resident − shared: the heap, stacks and the engine's allocations,
// without the program's file and files mapped into memory) from
// /proc/self/statm; zeros where there is none.
func residentBytes() (rss, anon int64) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, 0
	}
	resident, err1 := strconv.ParseInt(string(f[1]), 10, 64)
	shared, err2 := strconv.ParseInt(string(f[2]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	page := int64(os.Getpagesize())
	return resident * page, (resident - shared) * page
}
