package bench

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
)

// harnessProbe measures dbgauge's own CPU and memory over the measure phase
// (result.Harness). It is used by the run engine's observer goroutine only.
type harnessProbe struct {
	start      time.Time
	user, sys  time.Duration
	peak       int64
	goroutines int
}

// startHarness begins measuring at the start of the measure phase.
func startHarness(at time.Time) *harnessProbe {
	h := &harnessProbe{start: at}
	h.user, h.sys = cpuTimes()
	h.sample()
	return h
}

// sample notes the resident set size if it is the largest yet.
func (h *harnessProbe) sample() {
	if rss := residentBytes(); rss > h.peak {
		h.peak, h.goroutines = rss, runtime.NumGoroutine()
	}
}

// finish returns the record of the phase that ended at end with ok units.
func (h *harnessProbe) finish(end time.Time, ok int64, clients int, inProcess bool) *result.Harness {
	h.sample()
	user, sys := cpuTimes()
	r := &result.Harness{
		Clients: clients, GoMaxProcs: runtime.GOMAXPROCS(0), InProcess: inProcess,
		Seconds:     end.Sub(h.start).Seconds(),
		UserSeconds: (user - h.user).Seconds(), SystemSeconds: (sys - h.sys).Seconds(),
		RSSPeakBytes: h.peak, Goroutines: h.goroutines,
	}
	cpu := r.UserSeconds + r.SystemSeconds
	if ok > 0 {
		r.CPUPerUnitUs = cpu / float64(ok) * 1e6
	}
	if r.Seconds > 0 {
		r.Cores = cpu / r.Seconds
	}
	if clients > 0 {
		r.RSSPerClientBytes = h.peak / int64(clients)
	}
	return r
}

// cpuTimes returns the user and system CPU time of the whole process.
func cpuTimes() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// residentBytes returns the process's resident set size from
// /proc/self/statm, or 0 where there is none.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
