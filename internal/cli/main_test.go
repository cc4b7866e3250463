package cli

import (
	"os"
	"testing"
)

// TestMain keeps the flush-ceiling cache of these tests apart from the user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dbgauge-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	defer os.RemoveAll(dir)
	m.Run() // since Go 1.15 its status is the test binary's
}
