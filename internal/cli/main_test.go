package cli

import (
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/dbgauge/dbgauge/internal/testdisk"
)

// asMainEnv makes the test binary behave as dbgauge: a matrix runs its cells
// with the binary it is, which in tests is this one.
const asMainEnv = "DBGAUGE_TEST_AS_MAIN"

// TestMain keeps the flush-ceiling cache of these tests apart from the user's.
func TestMain(m *testing.M) {
	// crash --power-loss serves its test disks from this binary, started again.
	if code, ok := testdisk.Serve(); ok {
		os.Exit(code)
	}
	if os.Getenv(asMainEnv) == "1" {
		sig := make(chan os.Signal, 2)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		os.Exit(Main(Env{Args: os.Args[1:], Stdout: os.Stdout, Stderr: os.Stderr, Signals: sig}))
	}
	dir, err := os.MkdirTemp("", "dbgauge-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	os.Setenv(asMainEnv, "1") // for the cells of matrices
	defer os.RemoveAll(dir)
	m.Run() // since Go 1.15 its status is the test binary's
}
