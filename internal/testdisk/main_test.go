package testdisk

import (
	"os"
	"testing"
)

// TestMain serves the test disks this binary mounts: Mount starts it again
// as their server.
func TestMain(m *testing.M) {
	if code, ok := Serve(); ok {
		os.Exit(code) //nolint:forbidigo // a test disk's server ends here, never running the tests
	}
	m.Run() // since Go 1.15 its status is the test binary's
}
