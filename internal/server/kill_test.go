package server

import (
	"bufio"
	"os/exec"
	"testing"
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
