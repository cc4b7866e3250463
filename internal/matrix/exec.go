package matrix

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dbgauge/dbgauge/internal/child"
	"github.com/dbgauge/dbgauge/internal/result"
)

// Observer follows a matrix. Its methods are called from one goroutine.
type Observer interface {
	// CellStarts is called before cell i runs: n of total, with the
	// estimated time left (0 when nothing is known yet).
	CellStarts(m *result.Matrix, i, n, total int, eta time.Duration)
	// CellEnds is called after it ran; res is nil when it left no result.
	CellEnds(m *result.Matrix, i int, res *result.Result)
}

// Runner runs the cells of a matrix, each as a child process (child.Start):
// `Exe child run`, told the cell's command line (`run WORKLOAD flags…`),
// its result folder and its place in the matrix.
type Runner struct {
	Dir    string    // the matrix folder
	Exe    string    // the dbgauge binary
	Stderr io.Writer // the cells' live progress
	Obs    Observer
	// PerCell is the expected wall time of a cell before one has run.
	PerCell time.Duration
}

// ErrBadCell is returned when a cell refused its input (exit 2): every cell
// would, so the matrix stops.
var ErrBadCell = errors.New("a cell refused its input")

// Run runs every pending cell of m in order. Closing stop ends the matrix
// after the cell in flight, which is asked to stop cleanly; canceling ctx
// asks it to abandon its units. It returns when the matrix is done or
// stopped, with m's status set and its index saved.
func (r *Runner) Run(ctx context.Context, m *result.Matrix, stop <-chan struct{}) error {
	pending := Pending(m)
	var spent time.Duration
	ran := 0
	for n, i := range pending {
		select {
		case <-stop:
			return r.finish(m, result.Interrupted)
		default:
		}
		eta := r.PerCell * time.Duration(len(pending)-n)
		if ran > 0 {
			eta = spent / time.Duration(ran) * time.Duration(len(pending)-n)
		}
		r.Obs.CellStarts(m, i, n+1, len(pending), eta)
		after := eta - eta/time.Duration(len(pending)-n) // the time left once this cell is done
		t := time.Now()
		res, code, err := r.cell(ctx, m, i, stop, fmt.Sprintf("%d/%d", n+1, len(pending)), after)
		spent += time.Since(t)
		ran++
		c := &m.Cells[i]
		c.Seconds = time.Since(t).Seconds()
		switch {
		case res != nil && res.Status == result.Completed && code == 3:
			// The run completed but not all it was asked to do (a --failover
			// that did not happen): the cell did not complete, as its exit says.
			c.Status, c.Reason, c.Rate = result.Failed, "exit status 3: "+LastLine(filepath.Join(r.Dir, "cells", c.ID+".log")), res.Summary.Rate
		case res != nil:
			c.Status, c.Reason, c.Rate, c.Unmet = res.Status, res.Reason, res.Summary.Rate, code == 1
		case err != nil:
			c.Status, c.Reason = result.Failed, err.Error()
		default:
			c.Status, c.Reason = result.Failed, fmt.Sprintf("exit status %d, no result", code)
		}
		if serr := Save(r.Dir, m); serr != nil {
			return serr
		}
		r.Obs.CellEnds(m, i, res)
		if code == 2 {
			return fmt.Errorf("%w: cell %s (%s): %s", ErrBadCell, c.ID, c.Key, c.Reason)
		}
		if c.Status == result.Interrupted || code == 130 {
			return r.finish(m, result.Interrupted)
		}
	}
	status := result.Completed
	if len(Pending(m)) > 0 {
		status = result.Failed
	}
	return r.finish(m, status)
}

func (r *Runner) finish(m *result.Matrix, s result.Status) error {
	m.Status = s
	return Save(r.Dir, m)
}

// cell runs cell i in a process of its own and reads its result.
func (r *Runner) cell(ctx context.Context, m *result.Matrix, i int, stop <-chan struct{}, pos string, after time.Duration) (*result.Result, int, error) {
	c := m.Cells[i]
	dir := filepath.Join(r.Dir, c.Dir)
	if _, err := os.Stat(dir); err == nil {
		// An earlier attempt that did not complete: kept aside, not lost.
		aside := filepath.Join(r.Dir, "aborted", fmt.Sprintf("%s-%s", c.ID, time.Now().Format("150405.000")))
		if err := os.MkdirAll(filepath.Dir(aside), 0o755); err != nil {
			return nil, 0, err
		}
		if err := os.Rename(dir, aside); err != nil {
			return nil, 0, err
		}
	}
	out, err := os.Create(filepath.Join(r.Dir, "cells", c.ID+".log"))
	if err != nil {
		return nil, 0, err
	}
	defer out.Close()
	args := append([]string{m.Workload}, CellFlags(m, c)...)
	args = append(args, "--results="+filepath.Join(r.Dir, "cells"))
	cmd := exec.Command(r.Exe)
	cmd.Stdout, cmd.Stderr = out, io.MultiWriter(out, r.Stderr)
	// Its own process group: the terminal's Ctrl-C reaches the matrix, which
	// passes it on once; and if the matrix dies, the cell is told to stop.
	cmd.SysProcAttr = procAttr()
	spec := child.Spec{Role: child.RoleRun, Run: &child.Run{Args: args, ResultID: c.ID, Cell: pos, After: after.Round(time.Second)}}
	if err := child.Start(cmd, spec); err != nil {
		return nil, 0, fmt.Errorf("start %s: %w", r.Exe, err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-stop:
			_ = cmd.Process.Signal(syscall.SIGINT)
		case <-done:
			return
		}
		select {
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGINT)
		case <-done:
		}
	}()
	werr := cmd.Wait()
	close(done)
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil {
		return nil, 0, werr
	}
	res, lerr := result.Load(dir)
	if lerr != nil {
		reason := LastLine(filepath.Join(r.Dir, "cells", c.ID+".log"))
		if reason == "" {
			reason = lerr.Error()
		}
		return nil, code, errors.New(reason)
	}
	return res, code, nil
}

// LastLine returns the last non-empty line of a child run's log, its error
// (without the "dbgauge: " prefix).
func LastLine(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(strings.TrimPrefix(lines[len(lines)-1], "dbgauge: "))
}
