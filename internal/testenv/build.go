package testenv

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Build compiles the main package pkg (a path as go build takes it, e.g.
// "../cmd/dbgauge") into t's temporary folder and returns the executable,
// built with -race when the tests have it: the build then reuses the
// packages the test build compiled, instead of compiling every dependency
// again without it (90 s on a cold cache).
func Build(t testing.TB, pkg string) string {
	t.Helper()
	abs, err := filepath.Abs(pkg)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(abs))
	args := []string{"build", "-o", bin, "-ldflags=-w"} // no DWARF: half the link's CPU, and only a debugger reads it
	if raceBuild {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, pkg)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}
