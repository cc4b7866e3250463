package server

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
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
func TreeCPU(pid int) (time.Duration, int, error) {
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
