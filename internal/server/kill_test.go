package server

import (
	"os/exec"
	"testing"
	"time"
)

// TestTreeCPU: a process tree's CPU counts its live children and, once they
// have exited and been reaped, keeps their time (in the parent's).
func TestTreeCPU(t *testing.T) {
	// A child burns CPU for about half a second, is reaped by the shell,
	// and the shell waits.
	cmd := exec.Command("sh", "-c", `sh -c 'end=$(($(date +%s%N) + 500000000)); while [ $(date +%s%N) -lt $end ]; do :; done' & wait; echo done; sleep 30`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	time.Sleep(200 * time.Millisecond)
	during, n, err := TreeCPU(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 {
		t.Errorf("%d processes while the child runs, want at least 2", n)
	}
	if _, err := out.Read(make([]byte, 5)); err != nil { // "done": the child was reaped
		t.Fatal(err)
	}
	after, n, err := TreeCPU(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("during %s, after %s (%d processes)", during, after, n)
	if after < 300*time.Millisecond || after < during {
		t.Errorf("the tree used %s by the end (%s while the child ran), want the child's ~0.5 s", after, during)
	}
	if _, _, err := TreeCPU(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
}
