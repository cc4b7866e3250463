package session

import "github.com/dbgauge/dbgauge/internal/result"

// unitCosts is what each of ok successful units cost, from what the run
// counted: a managed server's CPU, dbgauge's, what the data folder's
// device read and wrote, and the engine's flushes and log bytes over the
// measure phase (delta). flushSource says what the engine's flush counter
// counts.
func unitCosts(res *result.Result, delta map[string]int64, ok int64, flushSource string) []result.UnitCost {
	if ok <= 0 {
		return nil
	}
	per := func(n int64) float64 { return float64(n) / float64(ok) }
	var out []result.UnitCost
	add := func(key, label string, v float64, unit, source string) {
		out = append(out, result.UnitCost{Key: key, Label: label, Value: v, Unit: unit, Source: source})
	}
	h, sc := res.Harness, res.ServerCPU
	if sc != nil {
		add(result.CostServerCPU, "server CPU", sc.CPUPerUnitUs, "µs", "the server's processes, the exited ones included (/proc/PID/stat)")
	}
	if h != nil {
		src := "dbgauge's process (getrusage)"
		if h.InProcess {
			src = "dbgauge's process, the engine inside it (getrusage)"
		}
		add(result.CostHarnessCPU, "dbgauge CPU", h.CPUPerUnitUs, "µs", src)
	}
	if d := res.DeviceIO; d != nil {
		src := "the data folder's device " + d.Device + ", any process's (/proc/diskstats): what reached it"
		add(result.CostRead, "read", per(d.ReadBytes)/1024, "KiB", src)
		add(result.CostWritten, "written", per(d.WrittenBytes)/1024, "KiB", src)
	}
	if n, found := delta["flushes"]; found {
		add(result.CostFlushes, "flushes", per(n), "", flushSource)
	}
	if n, found := delta["wal_bytes"]; found {
		add(result.CostLogBytes, "log bytes", per(n), "B", "the engine's own count of its log's (WAL's) bytes")
	}
	return out
}
