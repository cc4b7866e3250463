package server

import (
	"bufio"
	"os/exec"
	"testing"
	"time"
)

// TestTreeCPU: a process tree's CPU counts its live children and, once they
// have exited and been reaped, keeps their time (in the parent's).
func TestTreeCPU(t *testing.T) {
	// A child burns CPU until its own clock reads 0.4 s of CPU (40 ticks
	// of /proc/PID/stat's utime+stime, read with the shell's builtins: no
	// process of its own), however long a busy machine makes that take;
	// the shell reaps it and waits.
	const burn = 40 * clockTick
	child := `echo go; while :; do read -r l < /proc/$$/stat; set -- $l; [ $((${14} + ${15})) -ge 40 ] && break; done`
	cmd := exec.Command("sh", "-c", `sh -c '`+child+`' & wait; echo done; sleep 30`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "go" { // the child runs
		t.Fatalf("the child did not start: %q %v", lines.Text(), lines.Err())
	}
	during, n, err := TreeCPU(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("%d processes while the child runs, want at least 2", n)
	}
	if !lines.Scan() || lines.Text() != "done" { // the child was reaped
		t.Fatalf("the shell did not reap the child: %q %v", lines.Text(), lines.Err())
	}
	after, n, err := TreeCPU(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("during %s, after %s (%d processes)", during, after, n)
	if after < burn || after < during {
		t.Errorf("the tree used %s by the end (%s while the child ran), want at least the child's own %s", after, during, burn)
	}
	if _, _, err := TreeCPU(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
}

// TestTreeCPUDown: the walk down the children lists finds the tree the
// whole of /proc shows, two levels deep, with the same CPU.
func TestTreeCPUDown(t *testing.T) {
	if !childrenLists() {
		t.Skip("this kernel keeps no children lists (CONFIG_PROC_CHILDREN): TreeCPU reads the whole of /proc")
	}
	cmd := exec.Command("sh", "-c", `sleep 30 & sh -c 'sleep 30 & wait' & echo go; wait`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = KillTree(cmd.Process.Pid); _ = cmd.Wait() }()
	if lines := bufio.NewScanner(out); !lines.Scan() || lines.Text() != "go" {
		t.Fatalf("the tree did not start: %q", lines.Text())
	}
	pid := cmd.Process.Pid
	// Each process of the tree started, then sleeps: both readings agree.
	for deadline := time.Now().Add(10 * time.Second); len(procTable().below(pid)) < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the tree below %d has %d processes after 10 s, want 3", pid, len(procTable().below(pid)))
		}
	}
	down, n, ok, err := treeCPUDown(pid)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	tab := procTable()
	var ticks int64
	for _, p := range append(tab.below(pid), pid) {
		pr := tab[p]
		ticks += pr.utime + pr.stime + pr.cutime + pr.cstime
	}
	if n != 4 || down != time.Duration(ticks)*clockTick {
		t.Errorf("the walk found %d processes and %s, /proc holds 4 and %s", n, down, time.Duration(ticks)*clockTick)
	}
}
