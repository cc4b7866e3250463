package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbgauge/dbgauge/internal/result"
)

var methodNames = map[string]string{
	"fdatasync": "write, fdatasync",
	"fsync":     "write, fsync",
	"odsync":    "O_DSYNC write",
	"osync":     "O_SYNC write",
	"none":      "write, no flush",
}

var patternNames = map[string]string{
	"rewrite": "rewriting one block at a fixed offset (a log writer's seek, write, flush)",
	"append":  "appending (the file grows: its size is flushed too)",
}

// DiskHeader writes what is known of the device before the probe's rates.
func DiskHeader(out io.Writer, r *result.Result) {
	d := r.Disk
	fmt.Fprintf(out, "dbgauge disk: %s\n", deviceLine(d.Device))
	if d.Device.MountOptions != "" {
		fmt.Fprintf(out, "  mounted %s with %s\n", d.Device.MountPoint, d.Device.MountOptions)
	}
	if d.Virtual != "" {
		fmt.Fprintf(out, "  virtual machine: %s\n", d.Virtual)
	}
	per := fmt.Sprint(r.Config.Duration)
	if r.Config.Units > 0 {
		per = fmt.Sprintf("%d operations", r.Config.Units)
	}
	fmt.Fprintf(out, "  %s per test\n", per)
}

// DiskCell writes one line of the probe's table, like pg_test_fsync's; the
// pattern's heading comes before its first cell.
func DiskCell(out io.Writer, r *result.Result, c result.DiskCell) {
	first := true
	for _, prev := range r.Disk.Cells {
		if prev.Pattern == c.Pattern && prev != c {
			first = false
		}
		if prev == c {
			break
		}
	}
	if first {
		fmt.Fprintf(out, "\n  %s:\n", patternNames[c.Pattern])
	}
	name := methodNames[c.Method]
	if c.Direct && c.Method != "none" {
		name += ", O_DIRECT"
	}
	if c.Error != "" {
		fmt.Fprintf(out, "    %-7s %-24s %s\n", sizeLabel(c.Block), name, c.Error)
		return
	}
	fmt.Fprintf(out, "    %-7s %-24s %10.0f ops/s  p50 %8s  p99 %8s  max %8s\n", sizeLabel(c.Block), name, c.Rate,
		Us(c.Latency.P50Us), Us(c.Latency.P99Us), Us(c.Latency.MaxUs))
}

// DiskFooter writes the ceiling and the findings in plain words.
func DiskFooter(out io.Writer, r *result.Result, dir string) {
	d := r.Disk
	fmt.Fprintln(out)
	if d.Ceiling > 0 {
		fmt.Fprintf(out, "  ceiling: %.0f durable writes per second, at best, in this folder\n", d.Ceiling)
	}
	for _, f := range d.Findings {
		mark := "·"
		if f.Level == "warning" {
			mark = "!"
		}
		fmt.Fprintf(out, "  %s %s\n", mark, f.Text)
	}
	fmt.Fprintf(out, "  result  %s\n", dir)
}

func sizeLabel(b int) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", b>>20)
	case b >= 1024 && b%1024 == 0:
		return fmt.Sprintf("%dKiB", b>>10)
	}
	return fmt.Sprintf("%dB", b)
}

// durabilityLine is the run summary's line on physical durability.
func durabilityLine(d *result.Durability) string {
	if d == nil {
		return ""
	}
	s := d.Verdict + ": " + d.Detail
	if d.Ceiling > 0 {
		src := "measured " + strings.Replace(d.ProbedAt, "T", " ", 1)
		if d.Cached {
			src = "cached from " + strings.Replace(d.ProbedAt, "T", " ", 1)
		}
		s += fmt.Sprintf(" (ceiling by %s, %s)", d.Method, src)
	}
	return s
}
