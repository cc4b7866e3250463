package hostinfo

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Collect returns the host's facts. What it cannot read is named in
// Environment.Problems, never guessed.
func Collect() result.Environment {
	e := result.Environment{
		Arch: runtime.GOARCH, Cores: runtime.NumCPU(), Go: runtime.Version(), Dbgauge: Version(),
	}
	var err error
	if e.Hostname, err = os.Hostname(); err != nil {
		e.Problems = append(e.Problems, "hostname: "+err.Error())
	}
	e.OS = runtime.GOOS
	if v := keyed("/etc/os-release", "PRETTY_NAME", "="); v != "" {
		e.OS = strings.Trim(v, `"`)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = runtime.GOOS + " " + strings.TrimSpace(string(b))
	} else {
		e.Kernel = runtime.GOOS
	}
	if e.CPU = keyed("/proc/cpuinfo", "model name", ":"); e.CPU == "" {
		e.Problems = append(e.Problems, "cpu model: not in /proc/cpuinfo")
	}
	if kb := keyed("/proc/meminfo", "MemTotal", ":"); kb != "" {
		n, _ := strconv.ParseUint(strings.Fields(kb)[0], 10, 64)
		e.MemoryB = n * 1024
	} else {
		e.Problems = append(e.Problems, "memory: not in /proc/meminfo")
	}
	return e
}

// keyed returns the value of the first line "key SEP value" of a file.
func keyed(path, key, sep string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), sep)
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Build is how this dbgauge was built: what `dbgauge version` prints.
type Build struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`      // the VCS revision, in full
	Time     string `json:"commit_time,omitempty"` // the revision's time
	Modified bool   `json:"modified,omitempty"`    // built from a tree with changes not committed
	Go       string `json:"go"`
	Platform string `json:"platform"` // GOOS/GOARCH
	Cgo      bool   `json:"cgo"`
}

// ReadBuild returns how this binary was built, from its build information.
func ReadBuild() Build {
	b := Build{Version: Version(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		case "CGO_ENABLED":
			b.Cgo = s.Value == "1"
		}
	}
	return b
}

// Version returns dbgauge's version: the module version, or the VCS revision
// of a development build, or "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel-" + rev
}

// CPUTicks is one CPU's time since boot, in clock ticks, from /proc/stat.
type CPUTicks struct {
	Busy  uint64 // user, nice, system, irq, softirq and steal
	Total uint64 // the above, idle and iowait
}

// CPUTimes reads every online CPU's ticks from /proc/stat, by CPU number.
func CPUTimes() (map[int]CPUTicks, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil, err
	}
	out := map[int]CPUTicks{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || !strings.HasPrefix(f[0], "cpu") || f[0] == "cpu" {
			continue
		}
		n, err := strconv.Atoi(f[0][3:])
		if err != nil {
			continue
		}
		var t CPUTicks
		// user nice system idle iowait irq softirq steal (guest time is in user).
		for i, v := range f[1:min(len(f), 9)] {
			x, _ := strconv.ParseUint(v, 10, 64)
			t.Total += x
			if i != 3 && i != 4 {
				t.Busy += x
			}
		}
		out[n] = t
	}
	if len(out) == 0 {
		return nil, errors.New("no CPU lines in /proc/stat")
	}
	return out, nil
}

// BusyCores returns how many of the CPUs in cpus (every CPU when cpus is
// nil) were kept busy between two readings: 1 is one CPU busy all the time.
func BusyCores(before, after map[int]CPUTicks, cpus []int) float64 {
	var busy float64
	for n, a := range after {
		if cpus != nil && !slices.Contains(cpus, n) {
			continue
		}
		b, ok := before[n]
		if !ok || a.Total <= b.Total {
			continue
		}
		busy += float64(a.Busy-b.Busy) / float64(a.Total-b.Total)
	}
	return busy
}

// Disk is a block device's counters since the machine started
// (/proc/diskstats; iostats.rst in the kernel's documentation): whatever
// reached the device, any process's.
type Disk struct {
	Reads, Writes           int64 // requests completed
	ReadBytes, WrittenBytes int64 // sectors of 512 bytes, whatever the device's own size
	BusyMs, WeightedMs      int64 // time with a request in flight; and × the requests in flight (queue)
}

// DiskStats reads the counters of the block device dev ("vda",
// "nvme0n1p2", as the data folder's Device names it).
func DiskStats(dev string) (Disk, error) {
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		return Disk{}, err
	}
	return diskStats(string(b), dev)
}

// diskStats is DiskStats on /proc/diskstats' text.
func diskStats(text, dev string) (Disk, error) {
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 14 || f[2] != dev {
			continue
		}
		// major minor name, then: reads merged sectors ms, writes merged
		// sectors ms, in flight, busy ms, weighted ms …
		var v [14]int64
		for _, i := range []int{3, 5, 7, 9, 12, 13} {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				return Disk{}, fmt.Errorf("/proc/diskstats: %s's field %d is %q", dev, i+1, f[i])
			}
			v[i] = n
		}
		return Disk{Reads: v[3], ReadBytes: 512 * v[5], Writes: v[7], WrittenBytes: 512 * v[9], BusyMs: v[12], WeightedMs: v[13]}, nil
	}
	return Disk{}, fmt.Errorf("/proc/diskstats has no device %q", dev)
}
