// Package child is the one way dbgauge starts itself again: a process
// `EXE child ROLE` that reads a typed Spec from its file descriptor 3.
// A matrix runs each cell so, the crash controller each run it kills, and a
// FUSE test disk is served so, in a process of its own. Nothing of a child's
// command line travels through the environment.
//
// The parent calls Start; the child, entered through `dbgauge child ROLE`
// (cli's hidden command), calls Read. A test binary is started as the child
// instead of dbgauge, so every TestMain whose tests start children calls
// Enter first and, when it returns true, acts as the child and exits.
package child

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"
)

// Role is what a child is started for: the word after `child`.
type Role string

const (
	// RoleRun runs `dbgauge run WORKLOAD flags…` as a matrix's cell or a
	// crash cycle's run (Spec.Run).
	RoleRun Role = "run"
	// RolePowerLoss serves a FUSE test disk until its user unmounts it
	// (Spec.Disk).
	RolePowerLoss Role = "powerloss"
)

// Spec is what a child is told, as JSON on its fd 3. Exactly the payload
// of its role is set.
type Spec struct {
	Role Role  `json:"role"`
	Run  *Run  `json:"run,omitempty"`
	Disk *Disk `json:"disk,omitempty"`
}

// Run is a run's command line and what the process that started it tells it.
type Run struct {
	Args     []string `json:"args"`                // after `dbgauge run`: WORKLOAD flags…
	ResultID string   `json:"result_id,omitempty"` // its folder inside --results; "" names one
	// Cell is its place in a matrix ("3/24"), "" when it is not a cell;
	// After is the time the matrix needs once this cell is done. Both are
	// for its progress line.
	Cell  string        `json:"cell,omitempty"`
	After time.Duration `json:"after,omitempty"`
	// Ledger is the crash controller's pipe: the run tells it every commit.
	Ledger *File `json:"ledger,omitempty"`
}

// Disk is a FUSE test disk to serve: a pass-through of Backing mounted at
// Mnt, asked and answered on the socket Control.
type Disk struct {
	Backing string `json:"backing"`
	Mnt     string `json:"mnt"`
	Control *File  `json:"control"`
}

// File is an open file handed to a child beside its spec: Pass names the
// parent's end, Start gives it a descriptor number, and the child opens
// it by that number.
type File struct {
	FD     int `json:"fd"`
	parent *os.File
}

// Pass hands f to the child. Start closes f in this process once the child
// holds it (the child then holds the only copy: a pipe's reader sees EOF
// when the child dies).
func Pass(f *os.File) *File { return &File{parent: f} }

// Open returns the file in the child; call it once.
func (f *File) Open(name string) *os.File { return os.NewFile(uintptr(f.FD), name) }

// specFD is where a child reads its spec; the files passed follow it.
const specFD = 3

// entered records that this program called Enter.
var entered atomic.Bool

// Enter is the first call of every TestMain whose tests start children
// (matrices, crash runs, test disks), since the child is then the test
// binary itself, started as `TESTBINARY child ROLE`:
//
//	if child.Enter(os.Args) {
//		os.Exit(… act as the child named by os.Args[2] …)
//	}
//
// It reports whether args are a child's, and lets Start start this test
// binary from now on. dbgauge itself needs no call: its command tree
// answers `child ROLE`.
func Enter(args []string) bool {
	entered.Store(true)
	return len(args) > 2 && args[1] == "child"
}

// Start starts cmd, made by exec.Command(EXE) or exec.CommandContext, as
// `EXE child ROLE`, with spec on its fd 3 and the files spec passes after
// it. The caller sets cmd's output and process attributes, not its Args or
// ExtraFiles. The files passed are closed in this process, whether or not
// the child started.
func Start(cmd *exec.Cmd, spec Spec) error {
	files := spec.files()
	defer func() {
		for _, f := range files {
			f.parent.Close()
		}
	}()
	if testing.Testing() && !entered.Load() {
		// Its child would run every test again instead of the role.
		return errors.New("child: this test binary cannot be started as a child: call child.Enter first in TestMain")
	}
	if len(cmd.ExtraFiles) > 0 || len(cmd.Args) != 1 {
		return errors.New("child: Start sets the child's arguments and extra files")
	}
	cmd.ExtraFiles = make([]*os.File, 1, 1+len(files))
	for _, f := range files {
		f.FD = specFD + len(cmd.ExtraFiles)
		cmd.ExtraFiles = append(cmd.ExtraFiles, f.parent)
	}
	b, err := json.Marshal(spec)
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("child: the spec's pipe: %w", err)
	}
	cmd.ExtraFiles[0] = r
	cmd.Args = append(cmd.Args, "child", string(spec.Role))
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return err
	}
	// Written while the child reads: a spec may be longer than a pipe holds.
	// A child that died unread makes the write fail, which it does not need.
	go func() {
		_, _ = w.Write(b)
		w.Close()
	}()
	return nil
}

// files returns the files spec passes, in the order of their descriptors.
func (s Spec) files() []*File {
	var fs []*File
	if s.Run != nil && s.Run.Ledger != nil {
		fs = append(fs, s.Run.Ledger)
	}
	if s.Disk != nil && s.Disk.Control != nil {
		fs = append(fs, s.Disk.Control)
	}
	return fs
}

// Read returns the spec of this process, a child started in role, from
// its fd 3. Call it once.
func Read(role Role) (Spec, error) {
	f := os.NewFile(specFD, "child-spec")
	b, err := io.ReadAll(f)
	f.Close()
	var spec Spec
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	switch {
	case err != nil:
		return spec, fmt.Errorf("child %s: its spec on fd %d: %w (only dbgauge starts its children)", role, specFD, err)
	case spec.Role != role:
		return spec, fmt.Errorf("child %s: its spec on fd %d is for %q", role, specFD, spec.Role)
	case role == RoleRun && spec.Run == nil,
		role == RolePowerLoss && (spec.Disk == nil || spec.Disk.Control == nil):
		return spec, fmt.Errorf("child %s: its spec on fd %d has no %s part", role, specFD, role)
	}
	return spec, nil
}
