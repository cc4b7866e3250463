package child

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestMain acts as a child when started as one: it writes the Run it was
// given back into its ledger, so that the parent sees what crossed.
func TestMain(m *testing.M) {
	if Enter(os.Args) {
		os.Exit(echo(Role(os.Args[2]))) //nolint:forbidigo // a child ends here, never running the tests
	}
	m.Run()
}

func echo(role Role) int {
	spec, err := Read(role)
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	f := spec.Run.Ledger.Open("ledger")
	defer f.Close()
	if json.NewEncoder(f).Encode(spec.Run) != nil {
		return 1
	}
	return 0
}

// startSelf starts this test binary as a child in role, with run and a
// pipe's write end as its ledger; it returns the child, the pipe's read end
// and the child's stderr.
func startSelf(t *testing.T, role Role, run *Run) (*exec.Cmd, *os.File, *strings.Builder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd := exec.Command(exe)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	run.Ledger = Pass(w)
	spec := Spec{Role: role, Run: run}
	if err := Start(cmd, spec); err != nil {
		t.Fatal(err)
	}
	if want := []string{exe, "child", string(role)}; !reflect.DeepEqual(cmd.Args, want) {
		t.Errorf("args %q, want %q", cmd.Args, want)
	}
	return cmd, r, &stderr
}

// TestRoundTrip: a Run's fields and its ledger pipe reach the child.
func TestRoundTrip(t *testing.T) {
	args := []string{"insert", "--clients=2", strings.Repeat("x", 200_000)} // more than a pipe holds
	cmd, r, stderr := startSelf(t, RoleRun, &Run{Args: args, ResultID: "c3", Cell: "3/24", After: 90 * time.Second})
	b, err := io.ReadAll(r) // EOF: Start closed our copy of the write end
	if werr := cmd.Wait(); werr != nil {
		t.Fatalf("child: %v: %s", werr, stderr.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	var got Run
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %q", err, b)
	}
	if !reflect.DeepEqual(got.Args, args) || got.ResultID != "c3" || got.Cell != "3/24" || got.After != 90*time.Second || got.Ledger.FD != 4 {
		t.Errorf("the child got %+v", got)
	}
}

// TestWrongRole: a child reads only a spec of its own role.
func TestWrongRole(t *testing.T) {
	// Started as `child powerloss`, given a run's payload.
	cmd, _, stderr := startSelf(t, RolePowerLoss, &Run{})
	err := cmd.Wait()
	if err == nil || !strings.Contains(stderr.String(), "child powerloss: its spec on fd 3 has no powerloss part") {
		t.Errorf("exit %v, stderr %q", err, stderr.String())
	}
}

// TestStartNeedsEnter: a test binary whose TestMain never called Enter is not
// started as a child, since it would run all its tests again. The files
// passed are closed all the same.
func TestStartNeedsEnter(t *testing.T) {
	entered.Store(false)
	defer entered.Store(true)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = Start(exec.Command("/bin/true"), Spec{Role: RoleRun, Run: &Run{Ledger: Pass(w)}})
	if err == nil || !strings.Contains(err.Error(), "call child.Enter first") {
		t.Fatalf("Start without Enter: %v", err)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("the file passed is still open")
	}
}
