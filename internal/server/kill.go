package server

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
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
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		p, err1 := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		pp, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			children[pp] = append(children[pp], p)
		}
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
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
