package backend

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// TestCheckFiles: a run that needs more descriptors than the soft limit is
// refused with the number to ask for.
func TestCheckFiles(t *testing.T) {
	var lim syscall.Rlimit
	testenv.Need(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	low := lim
	low.Cur = 300
	testenv.Need(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low))
	defer syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	if err := CheckFiles(100, 2); err != nil {
		t.Errorf("264 descriptors under a limit of 300: %v", err)
	}
	err := CheckFiles(1000, 2)
	var bad *knob.Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "2064 open files") || !strings.Contains(bad.Hint, "ulimit -n 2064") {
		t.Errorf("2,064 descriptors under a limit of 300: %v", err)
	}
}

// TestConnectionsLeft: the clients and dbgauge's own connections must fit in
// what the server has left.
func TestConnectionsLeft(t *testing.T) {
	if err := ConnectionsLeft(90, 2, 100, 5, 3, "max_connections"); err != nil {
		t.Errorf("92 of 92 left: %v", err)
	}
	err := ConnectionsLeft(91, 2, 100, 5, 3, "max_connections")
	if err == nil || !strings.Contains(err.Error(), "92 connections left") || !strings.Contains(err.Error(), "needs 93") {
		t.Errorf("93 of 92 left: %v", err)
	}
}
