package cli

import (
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/dbgauge/dbgauge/internal/child"
)

// TestMain keeps the flush-ceiling cache of these tests apart from the user's.
func TestMain(m *testing.M) {
	// The children dbgauge starts of itself (a matrix's cells, a crash's
	// runs, the test disks of --power-loss) are this binary, started as
	// `TESTBINARY child ROLE`: it then is dbgauge, as main runs it.
	if child.Enter(os.Args) {
		sig := make(chan os.Signal, 2)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		os.Exit(Main(Env{Args: os.Args[1:], Stdout: os.Stdout, Stderr: os.Stderr, Signals: sig}))
	}
	dir, err := os.MkdirTemp("", "dbgauge-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir) // the children's too
	defer os.RemoveAll(dir)
	m.Run() // since Go 1.15 its status is the test binary's
}
