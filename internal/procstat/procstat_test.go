package procstat

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A command name with spaces and parentheses does not shift the fields.
func TestSplit(t *testing.T) {
	// Fields 3 to 41 of proc(5): state S, ppid 7, utime 5, processor 3.
	rest := make([]string, 39)
	for i := range rest {
		rest[i] = "0"
	}
	rest[State], rest[PPID], rest[UTime], rest[Processor] = "S", "7", "5", "3"
	f, err := Split("42 (a) b (c) " + strings.Join(rest, " ") + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if f[State] != "S" || f[PPID] != "7" || f[UTime] != "5" || f[Processor] != "3" {
		t.Errorf("state %s ppid %s utime %s processor %s: want S 7 5 3", f[State], f[PPID], f[UTime], f[Processor])
	}
	if _, err := Split("no name here"); err == nil {
		t.Error("a line without a command name was split")
	}
}

// This process's own lines: its parent and a CPU in /proc/PID/stat, whose
// state is the main thread's (asleep or running, whatever the test does);
// running in the line of the thread that reads it.
func TestFieldsOfSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	f, err := Fields(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if f[PPID] != strconv.Itoa(os.Getppid()) || !strings.Contains("RSDI", f[State]) {
		t.Errorf("state %s ppid %s: want R, S, D or I, and %d", f[State], f[PPID], os.Getppid())
	}
	if cpu, err := strconv.Atoi(f[Processor]); err != nil || cpu < 0 {
		t.Errorf("processor %q", f[Processor])
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(syscall.Gettid()) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	if f, err = Split(string(b)); err != nil {
		t.Fatal(err)
	}
	if f[State] != "R" || f[PPID] != strconv.Itoa(os.Getppid()) {
		t.Errorf("this thread's line: state %s ppid %s: want R %d", f[State], f[PPID], os.Getppid())
	}
}
