// Package placement puts processes on CPUs when the user asks for it
// (--cpus server=LIST,harness=LIST), the way taskset does: through the
// kernel's CPU affinity (sched_setaffinity), on dbgauge's own threads or on
// a server process as it is started, and reads back where they may run.
// Nothing here runs unless asked: by default the kernel places everything.
package placement

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// maxCPUs is how many CPUs an affinity mask holds: unix.CPUSet is the
// kernel's CPU_SETSIZE, 1024 bits.
const maxCPUs = 1024

// Set is a list of CPU numbers, ascending, without repeats; nil places
// nothing.
type Set []int

// String writes s as a CPU list, as Linux writes one ("0-3,6").
func (s Set) String() string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ParseList reads a CPU list: numbers and ranges, separated by commas
// ("0", "0-3", "0,2,4-5").
func ParseList(s string) (Set, error) {
	var out Set
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= maxCPUs {
			return nil, fmt.Errorf("%q is not a CPU list (numbers and ranges such as 0,2-3)", s)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Spec is what --cpus asks for: the CPUs of a managed server and of
// dbgauge's own process; either may be nil.
type Spec struct {
	Server  Set
	Harness Set
}

// Parse reads --cpus's value, "server=LIST,harness=LIST" with either part
// alone; a LIST's own commas continue it ("server=0,2,harness=1" gives the
// server 0 and 2). Every CPU must be one this process may run on.
func Parse(v string) (Spec, error) {
	lists := map[string][]string{}
	key := ""
	for _, part := range strings.Split(v, ",") {
		if k, val, ok := strings.Cut(part, "="); ok {
			key, part = strings.TrimSpace(k), val
			if key != "server" && key != "harness" {
				return Spec{}, fmt.Errorf("%q in %q is neither server= nor harness=", k, v)
			}
			if _, seen := lists[key]; seen {
				return Spec{}, fmt.Errorf("%s= is given twice in %q", key, v)
			}
		} else if key == "" {
			return Spec{}, fmt.Errorf("%q does not start with server= or harness=", v)
		}
		lists[key] = append(lists[key], part)
	}
	allowed, err := Allowed(0)
	if err != nil {
		return Spec{}, err
	}
	var sp Spec
	for key, dst := range map[string]*Set{"server": &sp.Server, "harness": &sp.Harness} {
		if lists[key] == nil {
			continue
		}
		if *dst, err = ParseList(strings.Join(lists[key], ",")); err != nil {
			return Spec{}, fmt.Errorf("%s=: %w", key, err)
		}
		for _, c := range *dst {
			if !slices.Contains(allowed, c) {
				return Spec{}, fmt.Errorf("CPU %d is not one dbgauge may run on here (%s)", c, allowed)
			}
		}
	}
	return sp, nil
}

func (s Set) cpuSet() *unix.CPUSet {
	var cs unix.CPUSet
	for _, c := range s {
		cs.Set(c)
	}
	return &cs
}

func fromCPUSet(cs *unix.CPUSet) Set {
	var out Set
	for c := 0; c < maxCPUs && len(out) < cs.Count(); c++ {
		if cs.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// Allowed reads back the CPUs thread or process tid may run on (0: the
// calling thread).
func Allowed(tid int) (Set, error) {
	var cs unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &cs); err != nil {
		return nil, fmt.Errorf("read the CPU affinity of %d: %w", tid, err)
	}
	return fromCPUSet(&cs), nil
}

// PinSelf keeps every thread of this process on s, and so every thread it
// starts later (a new thread inherits its creator's affinity), and returns
// the CPUs the process's threads may run on, read back: the union of them
// all, which is s when every thread took it.
func PinSelf(s Set) (Set, error) {
	cs := s.cpuSet()
	done := map[int]bool{}
	// Threads may be started while the list is read: read it until a pass
	// finds none new.
	for {
		tids, err := threads()
		if err != nil {
			return nil, err
		}
		fresh := 0
		for _, t := range tids {
			if done[t] {
				continue
			}
			fresh++
			if err := unix.SchedSetaffinity(t, cs); err != nil && err != unix.ESRCH {
				return nil, fmt.Errorf("keep dbgauge's thread %d on CPUs %s: %w", t, s, err)
			}
			done[t] = true
		}
		if fresh == 0 {
			break
		}
	}
	return Self()
}

// Self reads back the CPUs this process's threads may run on: the union of
// every thread's.
func Self() (Set, error) {
	tids, err := threads()
	if err != nil {
		return nil, err
	}
	var all Set
	for _, t := range tids {
		s, err := Allowed(t)
		if err != nil {
			continue // the thread has exited
		}
		all = append(all, s...)
	}
	slices.Sort(all)
	return slices.Compact(all), nil
}

func threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("list dbgauge's threads: %w", err)
	}
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if t, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, t)
		}
	}
	return out, nil
}

// Start starts cmd with its process, and every process it starts, kept on
// s (nothing placed when s is nil). The child is forked from a thread that
// holds s for that moment, so it inherits the affinity from its first
// instruction and no process it starts early escapes it; the thread gets
// its own affinity back afterwards.
func Start(cmd *exec.Cmd, s Set) error {
	if len(s) == 0 {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		if err := unix.SchedGetaffinity(0, &old); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("read the CPU affinity of dbgauge's thread: %w", err)
			return
		}
		if err := unix.SchedSetaffinity(0, s.cpuSet()); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("keep %s on CPUs %s: %w", cmd.Path, s, err)
			return
		}
		err := cmd.Start()
		if rerr := unix.SchedSetaffinity(0, &old); rerr != nil {
			// The goroutine ends locked, and so the thread with it, rather
			// than hand a thread on the server's CPUs back to the runtime.
			errc <- errors.Join(err, fmt.Errorf("restore the CPU affinity of dbgauge's thread: %w", rerr))
			return
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	return <-errc
}
