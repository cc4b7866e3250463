// Package hostinfo reads the facts about this machine that a reader needs to
// trust a number: CPU, memory, kernel, operating system.
package hostinfo

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
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
