package verdict

import (
	"fmt"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Thresholds of the harness verdict.
const (
	// Busy is how busy CPUs must be, as a fraction of their time, to be
	// short of CPU: a little idle time is left by any run's ramps and stalls.
	Busy = 0.9
	// HarnessShare is the share of busy CPUs above which dbgauge's own use
	// could be what the engine lacks.
	HarnessShare = 0.25
)

// Harness judges whether dbgauge's own process could have been the limit of
// the run, from its CPU and that of the CPUs it ran on (h), and a managed
// server's (sc, nil without one), and fills in h.Limit and h.Verdict. unit
// names a unit of work ("transaction").
//
//   - yes: dbgauge kept busy all the CPU it may use (its CPUs, or
//     GOMAXPROCS when fewer): it ran as fast as it could, whatever the
//     engine could have done.
//   - maybe: the CPUs dbgauge runs on were busy and it took more than a
//     quarter of them: the engine, there too, could have had that time.
//   - no: otherwise.
//
// An engine's worker processes (h.Worker: ZODB's Python workers, forked
// from dbgauge and so on its CPUs) are the harness's too: their CPU counts
// with dbgauge's in what it took of busy CPUs.
func Harness(h *result.Harness, sc *result.ServerCPU, unit string) {
	if h == nil {
		return
	}
	if unit == "" {
		unit = "unit"
	}
	usable := float64(h.CPUCount)
	if h.GoMaxProcs > 0 && (usable == 0 || float64(h.GoMaxProcs) < usable) {
		usable = float64(h.GoMaxProcs)
	}
	line := fmt.Sprintf("%.2f CPU (%.1f µs per %s)", h.Cores, h.CPUPerUnitUs, unit)
	took, who := h.Cores, "dbgauge"
	if w := h.Worker; w != nil {
		line += fmt.Sprintf(", its workers %.2f CPU (%.1f µs per %s)", w.Cores, w.CPUPerUnitUs, unit)
		took, who = took+w.Cores, "dbgauge and its workers"
	}
	if sc != nil {
		line += fmt.Sprintf(", server %.2f CPU", sc.Cores)
	}
	where := "the machine's"
	if h.Placed {
		where = "its"
	}
	switch {
	case usable > 0 && h.Cores >= Busy*usable:
		h.Limit = result.LimitYes
		if h.InProcess {
			h.Verdict = fmt.Sprintf("%s: dbgauge, with the engine inside it, kept %s %s busy, so that process is the limit, the engine's work and the harness's together: give it more CPUs (--cpus harness=…) or fewer clients",
				line, where, cpus(usable))
			return
		}
		h.Verdict = fmt.Sprintf("%s: dbgauge kept %s %s busy, so the harness is the limit, not the engine: give it more CPUs (--cpus harness=…), fewer clients, or run it from another machine",
			line, where, cpus(usable))
	case h.CPUCount > 0 && h.CPUsBusy >= Busy*float64(h.CPUCount) && took > HarnessShare*float64(h.CPUCount):
		h.Limit = result.LimitMaybe
		what := "the CPUs it ran on were busy"
		if !h.Placed {
			what = "the machine's CPUs were busy"
		}
		if sc != nil {
			what += " (the server's among them)"
		}
		if h.InProcess {
			// No server to move away: the rest of the CPUs went to other
			// processes, which the engine inside dbgauge could have had.
			h.Verdict = fmt.Sprintf("%s; the harness could be the limit: %s, dbgauge (the engine inside it) took %.0f %% of them and other processes the rest: run it where nothing else runs, or give it CPUs of its own (--cpus harness=…)",
				line, what, 100*h.Cores/float64(h.CPUCount))
			return
		}
		if h.Worker != nil && sc == nil {
			// The engine is in the workers (zodb's FileStorage): no server to move away.
			h.Verdict = fmt.Sprintf("%s; the harness could be the limit: %s, dbgauge and its workers (the engine in them) took %.0f %% of them and other processes the rest: run it where nothing else runs, or give it CPUs of its own (--cpus harness=…)",
				line, what, 100*took/float64(h.CPUCount))
			return
		}
		h.Verdict = fmt.Sprintf("%s; the harness could be the limit: %s and %s took %.0f %% of them: place the server and dbgauge apart (--cpus server=…,harness=…) or run dbgauge from another machine",
			line, what, who, 100*took/float64(h.CPUCount))
	default:
		h.Limit = result.LimitNo
		switch {
		case sc != nil && sc.CPUCount > 0 && sc.CPUsBusy >= Busy*float64(sc.CPUCount):
			share := h.Share
			if h.Worker != nil && h.MachineCPUs > 0 {
				share = took / float64(h.MachineCPUs)
			}
			h.Verdict = fmt.Sprintf("%s; the harness is not the limit: the server's CPUs were busy and %s took %.0f %% of the machine", line, who, 100*share)
		case h.CPUCount > 0:
			h.Verdict = fmt.Sprintf("%s; the harness is not the limit: it used %.2f of %s %s, which were %.0f %% idle",
				line, took, where, cpus(float64(h.CPUCount)), 100*max(0, 1-h.CPUsBusy/float64(h.CPUCount)))
		default:
			h.Verdict = line + "; the harness is not the limit: it never kept a CPU busy"
		}
	}
}

func cpus(n float64) string {
	if n == 1 {
		return "1 CPU"
	}
	return fmt.Sprintf("%.0f CPUs", n)
}
