package placement

import (
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	for in, want := range map[string]Set{"0": {0}, "0-3": {0, 1, 2, 3}, "3,1,1-2": {1, 2, 3}, "0, 4-5": {0, 4, 5}} {
		got, err := ParseList(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "3-1", "-1", "1-", "0,,1", "5000"} {
		if got, err := ParseList(in); err == nil {
			t.Errorf("ParseList(%q) = %v, want an error", in, got)
		}
	}
	if s := (Set{0, 1, 2, 5, 7, 8}).String(); s != "0-2,5,7-8" {
		t.Errorf("String: %q", s)
	}
}

func TestParse(t *testing.T) {
	allowed, err := Allowed(0)
	if err != nil {
		t.Fatal(err)
	}
	first, last := allowed[0], allowed[len(allowed)-1]
	sp, err := Parse("server=" + Set{first}.String() + ",harness=" + Set{last}.String())
	if err != nil || !slices.Equal(sp.Server, Set{first}) || !slices.Equal(sp.Harness, Set{last}) {
		t.Fatalf("Parse: %+v, %v", sp, err)
	}
	// A list's own commas continue it.
	if len(allowed) >= 2 {
		v := "server=" + Set{allowed[0]}.String() + "," + Set{allowed[1]}.String()
		if sp, err := Parse(v); err != nil || len(sp.Server) != 2 || sp.Harness != nil {
			t.Errorf("Parse(%q) = %+v, %v", v, sp, err)
		}
	}
	for _, bad := range []string{"0", "cpu=0", "server=0,server=1", "harness=x", "server=1023"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}

// A server started on a CPU inherits it from its first instruction, and so
// do the processes it starts; the starting thread gets its own back.
func TestStartOnCPUs(t *testing.T) {
	allowed, err := Allowed(0)
	if err != nil {
		t.Fatal(err)
	}
	on := Set{allowed[len(allowed)-1]}
	// The shell starts a child, which prints the CPUs it may run on.
	cmd := exec.Command("sh", "-c", "sh -c 'grep Cpus_allowed_list /proc/self/status'")
	var out strings.Builder
	cmd.Stdout = &out
	if err := Start(cmd, on); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out.String()), "Cpus_allowed_list:")); got != on.String() {
		t.Errorf("the grandchild may run on %q, want %q", got, on)
	}
	everyThreadOn(t, allowed)
}

// everyThreadOn fails unless every thread of this process may run on s.
func everyThreadOn(t *testing.T, s Set) {
	t.Helper()
	tids, err := threads()
	if err != nil {
		t.Fatal(err)
	}
	for _, tid := range tids {
		if got, err := Allowed(tid); err == nil && !slices.Equal(got, s) {
			t.Errorf("thread %d may run on %v, want %v", tid, got, s)
		}
	}
}

// PinSelf keeps every thread on the set, those started later too.
func TestPinSelf(t *testing.T) {
	allowed, err := Allowed(0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := PinSelf(allowed); err != nil {
			t.Fatal(err)
		}
	}()
	on := Set{allowed[0]}
	got, err := PinSelf(on)
	if err != nil || !slices.Equal(got, on) {
		t.Fatalf("PinSelf(%v) = %v, %v", on, got, err)
	}
	// Threads started from now on inherit it.
	done := make(chan struct{})
	for range 4 {
		go func() {
			runtime.LockOSThread() // each its own thread, ended with the goroutine
			<-done
		}()
	}
	everyThreadOn(t, on)
	close(done)
}
