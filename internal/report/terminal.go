package report

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Us formats microseconds for people: 712µs, 1.23ms, 45.6ms, 1.25s.
func Us(us int64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%dµs", us)
	case us < 10_000:
		return fmt.Sprintf("%.2fms", float64(us)/1000)
	case us < 1_000_000:
		return fmt.Sprintf("%.1fms", float64(us)/1000)
	default:
		return fmt.Sprintf("%.2fs", float64(us)/1e6)
	}
}

// Rate formats a rate with sensible precision.
func Rate(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f", r)
	case r >= 10:
		return fmt.Sprintf("%.1f", r)
	default:
		return fmt.Sprintf("%.2f", r)
	}
}

// Progress returns the line of one progress interval, as pgbench -P
// prints it: the time into the measure phase, the rate, the latencies'
// average, standard deviation, p99 and maximum, and what failed.
func Progress(r *result.Result, s result.Second) string {
	rate := 0.0
	if s.Dt > 0 {
		rate = float64(s.OK) / s.Dt
	}
	shown := Rate(rate) + " " + r.Config.UnitRate
	if s.Partial {
		shown = fmt.Sprintf("— %s (the last %.3f s: too short for a rate)", r.Config.UnitRate, s.Dt)
	}
	t := s.T
	if m := r.Phase("measure"); m != nil && s.Phase == "measure" && len(r.Phases) > 0 {
		t -= m.Start.Sub(r.Phases[0].Start).Seconds() // pgbench counts from the measure phase's start
	}
	phase := ""
	if s.Phase != "measure" {
		phase = " " + s.Phase + ","
	}
	line := fmt.Sprintf("progress: %.1f s,%s %s, ok %d", t, phase, shown, s.OK)
	if s.OK > 0 {
		line += fmt.Sprintf(", lat %s sd %s p99 %s max %s", Us(int64(s.MeanUs+0.5)), Us(int64(s.SdUs+0.5)), Us(s.P99Us), Us(s.MaxUs))
	}
	line += fmt.Sprintf(", %d failed", s.Failed)
	if s.Retries > 0 {
		line += fmt.Sprintf(", %d retried", s.Retries)
	}
	if s.Nothing > 0 {
		line += fmt.Sprintf(", %d found nothing to do", s.Nothing)
	}
	return line
}

// Summary writes the end-of-run summary of r, as a person reads it in a terminal.
func Summary(out io.Writer, r *result.Result, dir string) error {
	b := &strings.Builder{}
	c := r.Config
	status := string(r.Status)
	if r.Reason != "" {
		status += " (" + r.Reason + ")"
	}
	fmt.Fprintf(b, "dbgauge %s on %s: %s\n", c.Workload, c.Backend, status)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  result\t%s\n", dir)
	fmt.Fprintf(tw, "  engine\t%s\n", engineLine(r.Engine))
	fmt.Fprintf(tw, "  config\t%s\n", configLine(r))
	if r.Environment.DataDir.Path != "" {
		fmt.Fprintf(tw, "  data\t%s\n", deviceLine(r.Environment.DataDir))
	}
	if line := sizingLine(r); line != "" {
		fmt.Fprintf(tw, "  sizing\t%s\n", line)
	}
	if line := DatasetLine(r); line != "" {
		fmt.Fprintf(tw, "  dataset\t%s\n", line)
	}
	if sv := r.Server; sv != nil {
		on := ""
		if sv.CPUs != "" {
			on = ", on CPUs " + sv.CPUs
		}
		addr := sv.Addr
		if addr == "" {
			addr = "127.0.0.1" // a result from before the address was recorded
		}
		fmt.Fprintf(tw, "  server\t%s on %s:%d as %s%s, %s, log %s\n", sv.Engine, addr, sv.Port, sv.Account, on, Lifecycle(sv), sv.Log)
	}
	if st := r.Storage; st != nil {
		line := fmt.Sprintf("data %s at the end (%+.0f KiB in the measure phase: %s an hour at this pace)",
			Bytes(float64(st.DataEnd)), float64(st.DataEnd-st.DataBegin)/1024, Bytes(st.DataPerHour))
		if st.LogPath != "" {
			line += fmt.Sprintf(" · server log %s (%s an hour)", Bytes(float64(st.LogEnd)), Bytes(st.LogPerHour))
		}
		fmt.Fprintf(tw, "  storage\t%s\n", line)
	}
	if h := r.Harness; h != nil {
		label := "harness"
		if h.Verdict != "" { // first, the verdict; the figures under it
			fmt.Fprintf(tw, "  %s\t%s\n", label, h.Verdict)
			label = ""
		}
		fmt.Fprintf(tw, "  %s\t%s\n", label, HarnessLine(h, r.Config.Unit))
	}
	if st := r.Steady; st != nil {
		fmt.Fprintf(tw, "  trend\t%s: %s\n", st.Verdict, st.Why)
	}
	if sc := r.ServerCPU; sc != nil && r.Server != nil {
		fmt.Fprintf(tw, "  server cpu\t%s used %.2f cores (%.1f µs of CPU per %s), %d processes at the end\n",
			r.Server.Engine, sc.Cores, sc.CPUPerUnitUs, r.Config.Unit, sc.Processes)
	}
	if line := CostLine(r); line != "" {
		fmt.Fprintf(tw, "  cost\t%s\n", line)
	}
	if line := WaitsLine(r.Waits, 5); line != "" {
		fmt.Fprintf(tw, "  waits\t%s\n", line)
	}
	for _, l := range r.Limits {
		fmt.Fprintf(tw, "  limits\t%s\n", l)
	}
	if sl := r.ServerLog; sl != nil {
		if len(sl.Anomalies) == 0 {
			fmt.Fprintf(tw, "  server log	clean: no errors, panics, bugchecks or crashes in %d lines\n", sl.Lines)
		}
		for _, a := range sl.Anomalies {
			fmt.Fprintf(tw, "  server log	%s ×%d, first at line %d: %s\n", a.Kind, a.Count, a.FirstLine, a.Sample)
		}
	}
	_ = tw.Flush()

	s := r.Summary
	m := r.Phase("measure")
	fmt.Fprintln(b)
	if m == nil {
		fmt.Fprintln(b, "  nothing was measured")
	} else {
		if r.Capacity != nil {
			fmt.Fprintf(b, "  capacity  %s\n", CapacityLine(r.Capacity, c.UnitRate))
			fmt.Fprintln(b, "  all the search's steps together, overloaded ones included (no rate of the engine's; the steps are below):")
		}
		fmt.Fprintf(b, "  %s  %s   (%d ok, ", s.Metric, Rate(s.Rate), s.OK)
		if s.Nothing > 0 {
			fmt.Fprintf(b, "%d nothing to do (not counted), ", s.Nothing)
		}
		fmt.Fprintf(b, "%d failed, %d retries in %.1f s", s.Failed, s.Retries, s.Seconds)
		if m.Lost > 0 {
			fmt.Fprintf(b, "; %d rolled back with their group", m.Lost)
		}
		fmt.Fprintln(b, ")")
		if c.Clients > 1 {
			fmt.Fprintf(b, "  per client  %s %s   (%d clients; the line above is their cumulative rate)\n", Rate(r.PerClient()), s.Metric, c.Clients)
		}
		if line := CacheLine(s); line != "" {
			fmt.Fprintf(b, "  cache hits  %s\n", line)
		}
		if s.PerMinute > 0 {
			fmt.Fprintf(b, "  P  %s %s/min (successful units per minute of the measure phase, as OLTP-EMUL's report_perf_total; nothing to do and failed left out)\n", Rate(s.PerMinute), strings.TrimSuffix(s.Metric, "/s"))
		}
		if a := m.All; a.Count > 0 {
			b.WriteString("  latency  ")
			if a.MeanUs > 0 { // a result from before the mean and sd were kept has neither
				fmt.Fprintf(b, "average %s · ", Us(int64(a.MeanUs+0.5)))
			}
			if a.SdUs > 0 {
				fmt.Fprintf(b, "sd %s · ", Us(int64(a.SdUs+0.5)))
			}
			fmt.Fprintf(b, "p50 %s · p95 %s · p99 %s · max %s\n", Us(s.P50Us), Us(s.P95Us), Us(s.P99Us), Us(s.MaxUs))
			if line := AboveLine(m, r.Config.Unit); line != "" {
				fmt.Fprintf(b, "  above the bound  %s\n", line)
			}
		}
		if line := OpenLoopLine(r, m); line != "" {
			fmt.Fprintf(b, "  open loop  %s\n", line)
		}
		figures(b, s.Figures)
		if s.PerMinute > 0 {
			fmt.Fprintln(b)
			detailed(b, m)
			operationTable(b, m)
		} else {
			operations(b, m)
		}
		failures(b, m)
		if s.PerMinute > 0 {
			minutes(b, r)
		}
	}
	if line := durabilityLine(r.Durability); line != "" {
		fmt.Fprintf(b, "\n  durability  %s\n", line)
	}
	if line := walLine(r); line != "" {
		fmt.Fprintf(b, "  log        %s\n", line)
	}
	events(b, r.Events)
	clusterBlock(b, r)
	faultBlock(b, r)
	profileBlock(b, r)
	capacityBlock(b, r)
	backup(b, r.Backup)
	upgraded(b, r.Upgraded)
	if r.Stats != nil && r.Stats.Note != "" {
		fmt.Fprintf(b, "\n  engine counters during the measure phase: %s\n", r.Stats.Note)
	}
	if r.Stats != nil && len(r.Stats.Delta) > 0 {
		fmt.Fprintf(b, "\n  engine counters during the measure phase: %s\n", counters(r.Stats.Delta))
	}
	if len(r.Checks) > 0 {
		fmt.Fprintln(b, "\n  checks")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, ch := range r.Checks {
			fmt.Fprintf(tw, "  %s %s\t%s\n", mark(ch.OK), ch.Name, ch.Detail)
		}
		_ = tw.Flush()
	}
	if len(r.Verdicts) > 0 {
		fmt.Fprintln(b, "\n  requirements")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		for _, v := range r.Verdicts {
			fmt.Fprintf(tw, "  %s %s\tmeasured %s\n", mark(v.OK), v.Require, Measured(v))
		}
		_ = tw.Flush()
		if s.Pass != nil && *s.Pass {
			fmt.Fprintln(b, "  verdict: PASS")
		} else {
			fmt.Fprintln(b, "  verdict: FAIL")
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// CostLine is what each successful unit cost, in one line: "per
// transaction: server CPU 45.1 µs · dbgauge CPU 12.0 µs · written 8.2 KiB ·
// flushes 0.98"; "" when nothing was counted.
func CostLine(r *result.Result) string {
	if len(r.Cost) == 0 {
		return ""
	}
	parts := make([]string, 0, len(r.Cost))
	for _, c := range r.Cost {
		parts = append(parts, c.Label+" "+CostValue(c))
	}
	return "per " + r.Config.Unit + ": " + strings.Join(parts, " · ")
}

// WaitsLine is the top n waits of the measure phase in one line: "IO:WalSync
// 1.8 waiting (45 %) · Lock:transactionid 0.9 (22 %)"; "" when none.
func WaitsLine(ws []result.Wait, n int) string {
	parts := make([]string, 0, n)
	for i, w := range ws {
		if i == n {
			break
		}
		part := fmt.Sprintf("%s %.2f (%.0f %%)", w.Wait, w.Waiting, w.SharePct)
		if i == 0 {
			part = fmt.Sprintf("%s %.2f connections waiting on average (%.0f %% of the waiting)", w.Wait, w.Waiting, w.SharePct)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " · ")
}

// CostValue writes a unit's cost with its unit: "45.1 µs", "8.2 KiB", "0.98".
func CostValue(c result.UnitCost) string {
	v := strconv.FormatFloat(c.Value, 'f', 1, 64)
	if c.Unit == "" || c.Value < 10 && c.Unit != "µs" {
		v = strconv.FormatFloat(c.Value, 'f', 2, 64)
	}
	if c.Unit == "" {
		return v
	}
	return v + " " + c.Unit
}

// Measured formats what a requirement measured, in its unit.
func Measured(v result.Verdict) string {
	if v.Detail != "" {
		return v.Detail
	}
	switch v.Unit {
	case "ms":
		return fmt.Sprintf("%.3g ms", v.Got)
	case "%":
		return fmt.Sprintf("%.3g%%", v.Got)
	}
	return Rate(v.Got) + "/s"
}

func engineLine(e result.Engine) string {
	keys := make([]string, 0, len(e.Settings))
	for k := range e.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{strings.TrimSpace(e.Name + " " + e.Version)}
	var own []string // dbgauge's doing, which the engine keeps nothing to read back of
	for _, k := range keys {
		if slices.Contains(e.NotReadBack, k) {
			own = append(own, k+"="+e.Settings[k])
			continue
		}
		parts = append(parts, k+"="+e.Settings[k])
	}
	if len(own) > 0 {
		parts = append(parts, "· dbgauge's own, not read back: "+strings.Join(own, " "))
	}
	return strings.Join(parts, " ")
}

func configLine(r *result.Result) string {
	c := r.Config
	parts := []string{
		fmt.Sprintf("clients %d", c.Clients), "durability " + c.Durability, "commit " + c.Commit, "prepare " + c.Prepare,
	}
	if c.API == "kv" {
		parts = append(parts, "api kv")
	}
	keys := make([]string, 0, len(c.Knobs))
	for k := range c.Knobs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "clients", "durability", "commit", "prepare", "api", "db", "require", "results", "duration", "units", "warmup", "transactions", "progress":
			continue
		}
		parts = append(parts, k+" "+strings.ReplaceAll(c.Knobs.Text(k), "\n", ","))
	}
	switch {
	case c.Transactions > 0 && c.Duration > 0:
		parts = append(parts, fmt.Sprintf("%d units per client or %s", c.Transactions, c.Duration))
	case c.Transactions > 0:
		parts = append(parts, fmt.Sprintf("%d units per client", c.Transactions))
	case c.Units > 0 && c.Duration > 0:
		parts = append(parts, fmt.Sprintf("%d units or %s", c.Units, c.Duration))
	case c.Units > 0:
		parts = append(parts, fmt.Sprintf("%d units", c.Units))
	default:
		parts = append(parts, fmt.Sprint(c.Duration))
	}
	switch {
	case c.WarmupAuto:
		parts[len(parts)-1] += fmt.Sprintf(" after an auto warm-up (%s at most)", c.Warmup)
	case c.Warmup > 0:
		parts[len(parts)-1] += fmt.Sprintf(" after %s warm-up", c.Warmup)
	}
	if c.Rate > 0 {
		parts = append(parts, fmt.Sprintf("open loop %s/s", Rate(c.Rate)))
	}
	parts = append(parts, fmt.Sprintf("seed %d", c.Seed))
	return strings.Join(parts, " · ")
}

// sizingLine says the page size and the engine's cache as read back, and
// whether the OS page cache was dropped before the run.
func sizingLine(r *result.Result) string {
	var parts []string
	if n := r.Engine.PageSize; n > 0 {
		parts = append(parts, "page "+Bytes(float64(n)))
	}
	if n := r.Engine.CacheBytes; n > 0 {
		parts = append(parts, "cache "+Bytes(float64(n)))
	}
	if len(parts) > 0 {
		parts[len(parts)-1] += " (read back)"
	}
	if sv := r.Server; sv != nil && sv.MemoryLimit > 0 {
		m := "server memory " + Bytes(float64(sv.MemoryLimit)) + " (cgroup limit, page cache included)"
		if sv.OOMKills > 0 {
			m += fmt.Sprintf(", %d OOM kills", sv.OOMKills)
		}
		parts = append(parts, m)
	}
	if pc := r.Environment.PageCache; pc != "" {
		parts = append(parts, "OS page cache "+pc)
	}
	return strings.Join(parts, " · ")
}

// DatasetLine says how big the data was after the load and, with
// --dataset, what was asked and how close the load came.
func DatasetLine(r *result.Result) string {
	d := r.Dataset
	if d.Bytes == 0 && d.Target == nil {
		return ""
	}
	from := map[string]string{"engine": "the engine's own figure", "files": "its files"}[d.BytesFrom]
	line := ""
	if d.Bytes > 0 {
		line = fmt.Sprintf("%s after the load (%s)", Bytes(float64(d.Bytes)), from)
	}
	if t := d.Target; t != nil {
		ask := fmt.Sprintf("--dataset %s of the %s (%s) = %s: %d %s of ~%d bytes (%d of them the engine's overhead, estimated)",
			t.Asked, t.Of, Bytes(float64(t.BaseBytes)), Bytes(float64(t.Bytes)), t.Items, t.Unit, t.ItemBytes, t.Overhead)
		if t.Achieved > 0 {
			ask += fmt.Sprintf("; %s, ×%.2f of the size asked", line, t.Achieved)
		}
		return ask
	}
	return line
}

// CacheLine is the engine's cache hit ratio over the measure phase, from its
// own counters; "" where it counts none.
func CacheLine(s result.Summary) string {
	if s.CacheHitPct == nil {
		return ""
	}
	return fmt.Sprintf("%s of %d page lookups in the measure phase (the engine's counters)", HitPct(*s.CacheHitPct), s.CacheLookups)
}

// HitPct formats a hit ratio: "99.2 %", "100 %" only when no lookup missed.
func HitPct(p float64) string {
	if p < 100 && p >= 99.95 {
		return ">99.9 %"
	}
	return strconv.FormatFloat(p, 'f', 1, 64) + " %"
}

// storageCell is where a group of runs kept its data, as a matrix shows it
// beside the numbers: the file system, its device and the flush ceiling.
func storageCell(runs []*result.Result) string {
	if len(runs) == 0 {
		return "—"
	}
	r := runs[0]
	d := r.Environment.DataDir
	s := d.FS
	if s == "" {
		return "—"
	}
	if d.Device != "" {
		s += " on " + d.Device
	}
	switch du := r.Durability; {
	case du == nil:
	case du.Ceiling > 0:
		s += ", ceiling " + Rate(du.Ceiling) + " flushes/s"
	case d.FS == "tmpfs" || d.FS == "ramfs":
		s += ", in memory: no flush ceiling"
	}
	return s
}

func deviceLine(d result.Device) string {
	s := d.Path
	if d.FS != "" {
		s += " (" + d.FS
		if d.Device != "" {
			s += " on " + d.Device
		}
		if d.Rotational != nil {
			if *d.Rotational {
				s += ", rotational"
			} else {
				s += ", solid state"
			}
		}
		if d.WriteCache != "" {
			s += ", write cache " + d.WriteCache
		}
		s += ")"
	}
	return s
}

func operations(b *strings.Builder, m *result.Phase) {
	unitKinds(b, m)
	operationTable(b, m)
}

// operationTable prints the operations inside units.
func operationTable(b *strings.Builder, m *result.Phase) {
	rows := 0
	for _, op := range m.Ops {
		if op.Count > 0 {
			rows++
		}
	}
	if rows == 0 {
		return
	}
	width := len("operation")
	failed := false // a column of errors only when an operation had some
	for _, op := range m.Ops {
		width = max(width, len(op.Name))
		failed = failed || op.Failed > 0
	}
	fmt.Fprintln(b)
	fmt.Fprintf(b, "  %-*s %10s %9s %9s %9s %9s", width, "operation", "count", "p50", "p95", "p99", "max")
	if failed {
		fmt.Fprintf(b, " %8s", "errors")
	}
	fmt.Fprintln(b)
	for _, op := range m.Ops {
		if op.Count == 0 && op.Failed == 0 {
			continue
		}
		fmt.Fprintf(b, "  %-*s %10d %9s %9s %9s %9s", width, op.Name, op.Count, Us(op.P50Us), Us(op.P95Us), Us(op.P99Us), Us(op.MaxUs))
		if failed {
			fmt.Fprintf(b, " %8d", op.Failed)
		}
		fmt.Fprintln(b)
	}
}

// unitKinds prints each kind of unit, when there are several: how many
// succeeded, found nothing to do (a column only when some did) and failed,
// and their latency.
func unitKinds(b *strings.Builder, m *result.Phase) {
	if len(m.Units) < 2 {
		return
	}
	width := len("unit")
	for _, u := range m.Units {
		width = max(width, len(u.Name))
	}
	nothing := func(string) string { return "" }
	if m.Nothing > 0 {
		nothing = func(v string) string { return fmt.Sprintf(" %8s", v) }
	}
	fmt.Fprintln(b)
	fmt.Fprintf(b, "  %-*s %10s%s %8s %9s %9s %9s %9s\n", width, "unit", "ok", nothing("nothing"), "failed", "p50", "p95", "p99", "max")
	for _, u := range m.Units {
		fmt.Fprintf(b, "  %-*s %10d%s %8d %9s %9s %9s %9s\n", width, u.Name, u.Count, nothing(strconv.FormatInt(u.Nothing, 10)), u.Failed, Us(u.P50Us), Us(u.P95Us), Us(u.P99Us), Us(u.MaxUs))
	}
}

func failures(b *strings.Builder, m *result.Phase) {
	causeTable(b, "failed units by cause (after retries)", m.Failures)
	causeTable(b, "retried errors by cause", m.Retried)
	causeTable(b, "units that found nothing to do, by reason", m.NothingBy)
}

func causeTable(b *strings.Builder, title string, list []result.Failure) {
	if len(list) == 0 {
		return
	}
	fmt.Fprintf(b, "\n  %s\n", title)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, f := range list {
		sample := ""
		if len(f.Samples) > 0 {
			sample = f.Samples[0]
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\n", f.Class, f.Kind, f.Code, f.Count, sample)
	}
	_ = tw.Flush()
}

func counters(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, " · ")
}

// walLine is the seed's log-growth observation: WAL bytes per unit and the
// growth per hour at the measured rate.
func walLine(r *result.Result) string {
	s := r.Summary
	if s.LogBytesPerUnit == 0 {
		return ""
	}
	return fmt.Sprintf("%s of WAL per %s, %s an hour at this rate", Bytes(s.LogBytesPerUnit), r.Config.Unit, Bytes(s.LogBytesPerHour))
}

// Bytes formats a byte count for people: 512 B, 13.3 KiB, 4.0 GiB.
func Bytes(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

// HarnessLine says what dbgauge itself used in the measure phase:
// "dbgauge used 0.42 cores (38.1 µs of CPU per transaction) and 91 MiB resident at most (61 MiB anonymous) (62 KiB per client besides, 1000 clients), GOMAXPROCS 2, GOGC 50".
func HarnessLine(h *result.Harness, unit string) string {
	if unit == "" {
		unit = "unit"
	}
	who := "dbgauge"
	if h.InProcess {
		who = "dbgauge with the engine inside it"
	}
	mem := fmt.Sprintf("%s resident at most (%s anonymous)", Bytes(float64(h.RSSPeakBytes)), Bytes(float64(h.AnonPeakBytes)))
	if h.EngineBytes > 0 {
		mem += fmt.Sprintf(", of which the engine's own %s", Bytes(float64(h.EngineBytes)))
	}
	line := fmt.Sprintf("%s used %.2f cores (%.1f µs of CPU per %s) and %s (%s per client besides, %d clients), GOMAXPROCS %d, GOGC %d",
		who, h.Cores, h.CPUPerUnitUs, unit, mem, Bytes(float64(h.RSSPerClientBytes)), h.Clients, h.GoMaxProcs, h.GOGC)
	if h.Placed {
		line += ", on CPUs " + h.CPUs + " (--cpus)"
	}
	if h.Note != "" {
		line += " (" + h.Note + ")"
	}
	if w := h.Worker; w != nil {
		line += fmt.Sprintf("; its worker processes used %.2f cores (%.1f µs of CPU per request, %.1f µs per %s, %d requests)",
			w.Cores, w.CPUPerRequestUs, w.CPUPerUnitUs, unit, w.Requests)
	}
	return line
}

// figures prints the workload's own figures (TPC-C's tpmC, NOPM…), a
// verdict marked where the workload's standard sets a limit.
func figures(b *strings.Builder, fs []result.Figure) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintln(b)
	width := 0
	for _, f := range fs {
		width = max(width, len(f.Name))
	}
	for _, f := range fs {
		mark := " "
		if f.Pass != nil {
			mark = "✓"
			if !*f.Pass {
				mark = "✗"
			}
		}
		if f.NA != "" { // no value to align: the reason instead
			fmt.Fprintf(b, "  %s %-*s %10s %s\n", mark, width, f.Name, "", f.Said())
			continue
		}
		fmt.Fprintf(b, "  %s %-*s %10s %-15s %s\n", mark, width, f.Name, Rate(f.Value), f.Unit, f.Said())
	}
}

// AboveLine says how many latencies of a phase were over the histograms'
// bound, counted at it ("" when none was): the percentiles they reach are
// at least the bound, not the latency.
func AboveLine(m *result.Phase, unit string) string {
	var ops, bound int64
	for _, o := range m.Ops {
		ops += o.Above
		bound = max(bound, o.BoundUs)
	}
	if m.All.Above == 0 && ops == 0 {
		return ""
	}
	bound = max(bound, m.All.BoundUs)
	what := fmt.Sprintf("%d %s(s)", m.All.Above, unit)
	if ops > 0 {
		what += fmt.Sprintf(" and %d operation(s)", ops)
	}
	return fmt.Sprintf("%s took longer than %s, the latency histograms' bound: each is counted at it, so the percentiles that reach it are at least that", what, time.Duration(bound)*time.Microsecond)
}

// upgraded says which upgrade the run's server went through just before it
// (dbgauge upgrade's run on the new version).
func upgraded(b io.Writer, u *result.Upgraded) {
	if u != nil {
		fmt.Fprintf(b, "\n  upgraded   from %s by %s just before the run: window %.2f s; %s (%s)\n", u.From, u.Method, u.WindowSeconds, u.Verified, u.Record)
	}
}
