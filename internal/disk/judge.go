package disk

import (
	"fmt"
	"os"
	"strings"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Physical limits the findings rest on.
const (
	// maxPlatterFlushes: a 15,000 rpm platter turns 250 times a second, and a
	// synchronous rewrite of one block waits for a turn. No spinning disk
	// without a cache makes more.
	maxPlatterFlushes = 250
	// disagreement is how far apart two methods that should cost the same
	// may be before it is reported (the seed's O_SYNC vs fsync on Cygwin).
	disagreement = 3.0
	// freeFlush: a flushing method this close to writing without a flush
	// means the flush reaches nothing that takes time.
	freeFlush = 0.5
)

// volatileFS are file systems that live in memory: a flush there stores nothing.
var volatileFS = map[string]bool{"tmpfs": true, "ramfs": true, "devtmpfs": true}

// Volatile reports whether the folder's file system lives in memory.
func Volatile(d result.Device) bool { return volatileFS[d.FS] }

// Virtual returns the hypervisor when this machine is a virtual one, read
// from the CPU's hypervisor flag and the firmware's vendor strings.
func Virtual() string {
	vendor := strings.TrimSpace(readFile("/sys/class/dmi/id/sys_vendor"))
	product := strings.TrimSpace(readFile("/sys/class/dmi/id/product_name"))
	for _, s := range []string{vendor, product} {
		for _, hv := range []string{"QEMU", "KVM", "VMware", "VirtualBox", "Xen", "Microsoft Corporation", "Amazon EC2", "Google", "Firecracker", "Cloud Hypervisor", "DigitalOcean", "OpenStack"} {
			if strings.Contains(s, hv) {
				return strings.TrimSpace(vendor + " " + product)
			}
		}
	}
	for _, line := range strings.Split(readFile("/proc/cpuinfo"), "\n") {
		if strings.HasPrefix(line, "flags") && strings.Contains(line+" ", " hypervisor ") {
			if vendor != "" {
				return "a hypervisor (" + vendor + ")"
			}
			return "a hypervisor"
		}
	}
	return ""
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// Ceiling returns the highest rate of a cell whose method flushes, and that
// cell's method and block size.
func Ceiling(cells []result.DiskCell) (rate float64, method string, block int) {
	for _, c := range cells {
		if Method(c.Method).Flushes() && c.Error == "" && c.Rate > rate {
			rate, method, block = c.Rate, c.Method, c.Block
		}
	}
	return rate, method, block
}

// Judge turns the device's facts and the probe's rates into plain words.
func Judge(d result.Device, virtual string, cells []result.DiskCell) []result.Finding {
	var out []result.Finding
	warn := func(format string, args ...any) {
		out = append(out, result.Finding{Level: "warning", Text: fmt.Sprintf(format, args...)})
	}
	info := func(format string, args ...any) {
		out = append(out, result.Finding{Level: "info", Text: fmt.Sprintf(format, args...)})
	}
	ceiling, method, block := Ceiling(cells)

	if Volatile(d) {
		warn("%s is on %s, which lives in memory: a flush there stores nothing, so no durability is measured", d.Path, d.FS)
		return out
	}
	if virtual != "" {
		warn("this machine is virtual (%s): its disk belongs to the host, so durability across a power loss of the host cannot be verified from inside: the rates are what the virtual disk acknowledges", virtual)
	}
	if d.Rotational != nil && *d.Rotational && ceiling > maxPlatterFlushes {
		warn("%s says it spins, yet acknowledged %.0f flushes/s (%s, %s blocks); a platter makes at most ~%d: a write cache acknowledges writes before they are stored (a virtual disk, a controller's cache or the drive's own)",
			d.Device, ceiling, method, sizeName(block), maxPlatterFlushes)
	}
	if d.Rotational != nil && !*d.Rotational && ceiling > 0 {
		info("%s is solid state: %.0f flushes/s is plausible with a power-loss-protected cache, and speed alone cannot tell such a cache from one that lies", d.Device, ceiling)
	}
	switch d.WriteCache {
	case "write through":
		info("the kernel treats %s as having no volatile write cache (write through) and sends it no cache flushes: if the device does have one, nothing is durable", d.Device)
	case "write back":
		info("the kernel sends cache flushes to %s (write cache: write back); whether the device honours them is what the rates tell", d.Device)
	}
	for _, pair := range [][2]Method{{OSync, Fsync}, {ODsync, Fdatasync}} {
		for _, a := range cells {
			if Method(a.Method) != pair[0] || a.Rate == 0 || a.Error != "" {
				continue
			}
			for _, b := range cells {
				if Method(b.Method) != pair[1] || b.Pattern != a.Pattern || b.Block != a.Block || b.Rate == 0 || b.Error != "" {
					continue
				}
				if r := a.Rate / b.Rate; r > disagreement || r < 1/disagreement {
					warn("%s and %s disagree by %.1f× (%.0f/s against %.0f/s, %s, %s blocks): one of them does not reach stable storage (the SAP DB commit test found O_SYNC ignored this way)",
						pair[0], pair[1], max(r, 1/r), a.Rate, b.Rate, a.Pattern, sizeName(a.Block))
				}
			}
		}
	}
	for _, f := range cells {
		if Method(f.Method) != Fdatasync || f.Error != "" {
			continue
		}
		for _, n := range cells {
			if Method(n.Method) == None && n.Pattern == f.Pattern && n.Block == f.Block && n.Rate > 0 && f.Rate >= freeFlush*n.Rate {
				warn("fdatasync costs next to nothing here (%.0f/s against %.0f/s without it, %s blocks): the flush reaches nothing that takes time, so writes are not being made durable",
					f.Rate, n.Rate, sizeName(f.Block))
			}
		}
	}
	return out
}

func sizeName(b int) string {
	switch {
	case b >= 1<<20 && b%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", b>>20)
	case b >= 1024 && b%1024 == 0:
		return fmt.Sprintf("%d KiB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}
