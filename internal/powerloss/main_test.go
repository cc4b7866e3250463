package powerloss

import (
	"os"
	"testing"

	"github.com/dbgauge/dbgauge/internal/child"
)

// TestMain serves the test disks this binary mounts: Mount starts it again
// as their server, `TESTBINARY child powerloss`.
func TestMain(m *testing.M) {
	if child.Enter(os.Args) {
		os.Exit(Serve(os.Stderr)) //nolint:forbidigo // a test disk's server ends here, never running the tests
	}
	m.Run() // since Go 1.15 its status is the test binary's
}
