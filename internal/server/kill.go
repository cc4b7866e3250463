package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/procstat"
)

// KillTree kills a server as a crash would: its main process pid and every
// process descended from it, at once, with SIGKILL. A kill of the main
// process's group is not enough: PostgreSQL's children each lead a session
// of their own (setsid, so that the postmaster can signal theirs), and they
// would live on for a moment, attached to the shared memory a restart
// needs. The main process is stopped first, so that it starts no more. It
// returns the descendants it killed.
func KillTree(pid int) ([]int, error) {
	_ = syscall.Kill(pid, syscall.SIGSTOP)
	kids := descendants(pid)
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		err = syscall.Kill(pid, syscall.SIGKILL)
	}
	for _, k := range kids {
		_ = syscall.Kill(k, syscall.SIGKILL)
	}
	return kids, err
}

// StopTree stops a server as a stall would (a VM paused, a disk that hangs
// every process): its main process pid first, so that it forks no more,
// then every process descended from it, with SIGSTOP. The function returned
// lets them all go on (SIGCONT), the main process last; call it once.
func StopTree(pid int) (resume func(), err error) {
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return func() {}, fmt.Errorf("stop the server (pid %d): %w", pid, err)
	}
	kids := descendants(pid)
	for _, k := range kids {
		_ = syscall.Kill(k, syscall.SIGSTOP)
	}
	return func() {
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGCONT)
		}
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}, nil
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	return procTable().below(pid)
}

// proc is a process's line in /proc/PID/stat: its parent and its CPU times
// in clock ticks, its own and its reaped children's.
type proc struct {
	ppid                         int
	utime, stime, cutime, cstime int64
}

type procs map[int]proc

// procTable reads every process's stat line.
func procTable() procs {
	t := procs{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		p, err := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		if err != nil {
			continue
		}
		f, err := procstat.Fields(p)
		if err != nil || len(f) < procstat.UTime+4 {
			continue
		}
		pp, err := strconv.Atoi(f[procstat.PPID])
		if err != nil {
			continue
		}
		pr := proc{ppid: pp}
		for j, dst := range []*int64{&pr.utime, &pr.stime, &pr.cutime, &pr.cstime} {
			*dst, _ = strconv.ParseInt(f[procstat.UTime+j], 10, 64)
		}
		t[p] = pr
	}
	return t
}

// below lists the processes below pid.
func (t procs) below(pid int) []int {
	children := map[int][]int{}
	for p, pr := range t {
		children[pr.ppid] = append(children[pr.ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// clockTick is the unit of /proc's CPU times: USER_HZ, 100 on Linux.
const clockTick = 10 * time.Millisecond

// TreeCPU returns the CPU time (user and system) that process pid and every
// process below it have used so far, those that exited and were reaped
// included (their time is in their parent's), and how many processes the
// tree has now. A server's backends come and go: the difference of two
// readings is what the server used in between.
//
// It walks down from pid through each thread's list of children
// (/proc/PID/task/TID/children), reading the tree's own stat lines only: it
// is read every second of a run, and the whole of /proc (what KillTree
// reads, to miss none) is every process of the machine. Where the kernel
// keeps no such list, it reads the whole of /proc instead.
func TreeCPU(pid int) (time.Duration, int, error) {
	if d, n, ok, err := treeCPUDown(pid); ok {
		return d, n, err
	}
	t := procTable()
	main, ok := t[pid]
	if !ok {
		return 0, 0, fmt.Errorf("no process %d", pid)
	}
	kids := t.below(pid)
	ticks := main.utime + main.stime + main.cutime + main.cstime
	for _, k := range kids {
		pr := t[k]
		ticks += pr.utime + pr.stime + pr.cutime + pr.cstime
	}
	return time.Duration(ticks) * clockTick, 1 + len(kids), nil
}

// childrenLists says whether the kernel keeps each thread's list of
// children (CONFIG_PROC_CHILDREN), read once.
var childrenLists = sync.OnceValue(func() bool {
	self := strconv.Itoa(os.Getpid())
	_, err := os.Stat("/proc/" + self + "/task/" + self + "/children")
	return err == nil
})

// treeCPUDown is TreeCPU by the children lists; ok is false where the
// kernel keeps none.
func treeCPUDown(pid int) (time.Duration, int, bool, error) {
	if !childrenLists() {
		return 0, 0, false, nil
	}
	var ticks int64
	n := 0
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		f, err := procstat.Fields(p)
		if err != nil || len(f) < procstat.UTime+4 {
			if p == pid {
				return 0, 0, true, fmt.Errorf("no process %d", pid)
			}
			continue // it exited since its parent listed it
		}
		for j := range 4 {
			v, _ := strconv.ParseInt(f[procstat.UTime+j], 10, 64)
			ticks += v
		}
		n++
		dir := "/proc/" + strconv.Itoa(p) + "/task/"
		tasks, _ := os.ReadDir(dir)
		for _, task := range tasks {
			b, _ := os.ReadFile(dir + task.Name() + "/children")
			for _, c := range strings.Fields(string(b)) {
				if k, err := strconv.Atoi(c); err == nil {
					queue = append(queue, k)
				}
			}
		}
	}
	return time.Duration(ticks) * clockTick, n, true, nil
}

// Gone waits until none of pids runs any more (a zombie waiting for its
// new parent to reap it counts as gone), up to limit.
func Gone(pids []int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for _, p := range pids {
		for alive(p) {
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return true
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	f, err := procstat.Fields(pid)
	return err == nil && (len(f) == 0 || f[procstat.State] != "Z")
}
