//go:build !linux || !(amd64 || arm64)

package evloop

import (
	"errors"
)

// Supported says whether loops run on this platform.
const Supported = false

type sys struct{ events []event }

type event struct{ Pad int32 }

// newLoop makes a loop; elsewhere than Linux on amd64 or arm64, there are none.
func newLoop() (*Loop, error) { return nil, errors.New("evloop: only on Linux, amd64 or arm64") }

// processCPU cannot say where a process runs here.
func processCPU(int) (int, bool) { return 0, false }

func (s *sys) close()                {}
func (l *Loop) add(*Reg) error       { return errors.New("evloop: only on Linux") }
func (l *Loop) del(*Reg)             {}
func (l *Loop) wait(int) (int, bool) { return 0, false }
func (l *Loop) poke()                {}

// CPUs lists the CPUs this process may run on: unknown here.
func CPUs() []int { return nil }

// pinThread cannot pin here.
func pinThread(int) func() { return nil }

// getg is never asked here: no loop runs.
func getg() uintptr { return 0 }
