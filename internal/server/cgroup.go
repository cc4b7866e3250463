package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// CgroupHint is what to do when no memory cgroup can be made (--server-memory).
const CgroupHint = "needs root and a writable memory cgroup (/sys/fs/cgroup/memory): run as root"

// Cgroup is a memory cgroup of a managed server's own (--server-memory): the
// server's processes, and the page cache their reads and writes bring in,
// are charged to it, and the kernel reclaims that cache at its limit.
type Cgroup struct {
	Path  string // its folder, e.g. /sys/fs/cgroup/memory/…/dbgauge-1234-54321
	V2    bool   // cgroup v2 (memory.max) rather than v1 (memory.limit_in_bytes)
	Limit int64  // the limit read back from the kernel (rounded to pages)
	kills int64  // OOM kills counted when it was removed
	gone  bool
}

// memoryParent finds the memory cgroup dbgauge itself is in: the v1
// hierarchy at /sys/fs/cgroup/memory, else the v2 one (/sys/fs/cgroup or
// /sys/fs/cgroup/unified) when it has the memory controller.
func memoryParent() (dir string, v2 bool, err error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false, err
	}
	var v1Path, v2Path string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			v2Path = f[2]
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "memory" {
				v1Path = f[2]
			}
		}
	}
	if v1Path != "" {
		dir := filepath.Join("/sys/fs/cgroup/memory", v1Path)
		if _, err := os.Stat(filepath.Join(dir, "memory.limit_in_bytes")); err == nil {
			return dir, false, nil
		}
		return "", false, fmt.Errorf("no memory cgroup at %s", dir)
	}
	if v2Path != "" {
		for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
			c, err := os.ReadFile(filepath.Join(root, "cgroup.controllers"))
			if err == nil && hasWord(string(c), "memory") {
				return filepath.Join(root, v2Path), true, nil
			}
		}
	}
	return "", false, errors.New("no memory cgroup controller is mounted (/sys/fs/cgroup/memory, or cgroup v2 with memory)")
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// CheckMemoryCgroup says why dbgauge could not put a server in a memory
// cgroup of its own, or nil when it can: it must run as root, and the
// memory cgroup it is in must be writable.
func CheckMemoryCgroup() error {
	if os.Geteuid() != 0 {
		return errors.New("dbgauge does not run as root")
	}
	dir, _, err := memoryParent()
	if err != nil {
		return err
	}
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return fmt.Errorf("the memory cgroup %s is not writable: %w", dir, err)
	}
	return nil
}

// NewCgroup makes a memory cgroup named name under dbgauge's own, with limit
// bytes (its page cache included, no swap where the kernel lets it be said),
// and reads the limit back. Refusals are bad input (*knob.Error).
func NewCgroup(name string, limit int64) (*Cgroup, error) {
	if err := CheckMemoryCgroup(); err != nil {
		return nil, knob.Bad(CgroupHint, "--server-memory: %v", err)
	}
	parent, v2, err := memoryParent()
	if err != nil {
		return nil, err
	}
	c := &Cgroup{Path: filepath.Join(parent, name), V2: v2}
	if v2 {
		// A child has memory.max only when its parent hands the controller
		// down (the root cgroup, or one without processes of its own).
		if b, _ := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control")); !hasWord(string(b), "memory") {
			if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+memory"), 0); err != nil {
				return nil, knob.Bad(CgroupHint, "--server-memory: cannot enable the memory controller below %s: %v", parent, err)
			}
		}
	}
	if err := os.Mkdir(c.Path, 0o755); err != nil {
		return nil, knob.Bad(CgroupHint, "--server-memory: cannot make the cgroup %s: %v", c.Path, err)
	}
	file := "memory.limit_in_bytes"
	if v2 {
		file = "memory.max"
		_ = os.WriteFile(filepath.Join(c.Path, "memory.swap.max"), []byte("0"), 0)
	}
	if err := os.WriteFile(filepath.Join(c.Path, file), []byte(strconv.FormatInt(limit, 10)), 0); err != nil {
		_ = c.Remove()
		return nil, fmt.Errorf("--server-memory: write %s: %w", filepath.Join(c.Path, file), err)
	}
	b, err := os.ReadFile(filepath.Join(c.Path, file))
	if err == nil {
		c.Limit, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	if err != nil {
		_ = c.Remove()
		return nil, fmt.Errorf("--server-memory: read back %s: %w", file, err)
	}
	return c, nil
}

// Add moves process pid, and every process it has started so far, into the
// cgroup; processes they fork later are born in it.
func (c *Cgroup) Add(pid int) error {
	if c == nil {
		return nil
	}
	procs := filepath.Join(c.Path, "cgroup.procs")
	if err := os.WriteFile(procs, []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("move the server (pid %d) into its memory cgroup: %w", pid, err)
	}
	for _, k := range descendants(pid) {
		_ = os.WriteFile(procs, []byte(strconv.Itoa(k)), 0) // it may have exited
	}
	return nil
}

// OOMKills returns how many of the cgroup's processes the kernel killed for
// want of memory (memory.oom_control's or memory.events' oom_kill).
func (c *Cgroup) OOMKills() int64 {
	if c == nil {
		return 0
	}
	if c.gone {
		return c.kills
	}
	file := "memory.oom_control"
	if c.V2 {
		file = "memory.events"
	}
	b, _ := os.ReadFile(filepath.Join(c.Path, file))
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "oom_kill" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// Note says what a death may owe to the limit.
func (c *Cgroup) Note() string {
	if c == nil {
		return ""
	}
	n := fmt.Sprintf("the server's memory limit (--server-memory, cgroup %s) is %s", c.Path, knob.FormatSize(c.Limit))
	if k := c.OOMKills(); k > 0 {
		n += fmt.Sprintf(", and the kernel OOM-killed %d of its processes", k)
	}
	return n
}

// Remove removes the cgroup once the server has stopped, retrying for a few
// seconds while its last processes exit.
func (c *Cgroup) Remove() error {
	if c == nil || c.gone {
		return nil
	}
	c.kills = c.OOMKills()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Rmdir(c.Path)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			c.gone = true
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("remove the memory cgroup %s: %w", c.Path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
