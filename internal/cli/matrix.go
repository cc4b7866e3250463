package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/catalog"
	"github.com/dbgauge/dbgauge/internal/htmlreport"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/redact"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// given returns the knobs the user set, in the order of the command line.
func given(fs *pflag.FlagSet, args []string) []matrix.Knob {
	var out []matrix.Knob
	fs.Visit(func(f *pflag.Flag) {
		if sa, ok := f.Value.(pflag.SliceValue); ok {
			out = append(out, matrix.Knob{Name: f.Name, Value: strings.Join(sa.GetSlice(), "\n")})
			return
		}
		out = append(out, matrix.Knob{Name: f.Name, Value: f.Value.String()})
	})
	pos := func(name string) int {
		short := ""
		if f := fs.Lookup(name); f != nil && f.Shorthand != "" {
			short = "-" + f.Shorthand
		}
		for i, a := range args {
			if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") || short != "" && strings.HasPrefix(a, short) {
				return i
			}
		}
		return len(args)
	}
	slices.SortStableFunc(out, func(a, b matrix.Knob) int { return pos(a.Name) - pos(b.Name) })
	return out
}

// single says whether a knob can never be an axis.
func single(spec workload.Spec) func(string) bool {
	specs := map[string]knob.Spec{}
	for _, k := range slices.Concat(runKnobs(spec), outputKnobs) {
		specs[k.Name] = k
	}
	return func(name string) bool { return !specs[name].Axis() }
}

// planMatrix validates a matrix, then makes its folder: every cell's plan is checked before any
// runs, so bad input in the last cell is said now, not in an hour.
func planMatrix(env *Env, spec workload.Spec, values *knob.Values, knobs []matrix.Knob) (*result.Matrix, string, error) {
	repeat, err := values.Int("repeat", 1, 10_000)
	if err != nil {
		return nil, "", err
	}
	shuffle, err := values.Bool("shuffle")
	if err != nil {
		return nil, "", err
	}
	reuse, err := values.Bool("reuse-data")
	if err != nil {
		return nil, "", err
	}
	keep, err := values.Bool("keep-data")
	if err != nil {
		return nil, "", err
	}
	var cellKnobs []matrix.Knob
	for _, k := range knobs {
		if !slices.Contains(session.MatrixKnobs, k.Name) && k.Name != "results" {
			cellKnobs = append(cellKnobs, k)
		}
	}
	fixed, axes := matrix.Split(cellKnobs, single(spec))
	root := values.Get("results")
	id := time.Now().Format("20060102-150405") + "-matrix-" + spec.Name
	m := matrix.New(id, spec.Name, spec.Metric(), redact.Args(append([]string{"dbgauge"}, env.Args...)),
		fixed, axes, int(repeat), shuffle, uint64(time.Now().UnixNano()))
	m.ReuseData = reuse
	// Every cell is checked as it would run alone, before anything is
	// written; --reuse-data's file is in a folder of the matrix's own.
	if err := validateCells(spec, m); err != nil {
		return nil, "", err
	}
	db := values.Get("db")
	bspec, _ := catalog.Backend(db)
	if reuse && (slices.ContainsFunc(axes, func(a result.Axis) bool { return a.Knob == "db" }) || db != bspec.Throwaway || bspec.Ext == "") {
		return nil, "", knob.Bad("drop --reuse-data, or give one embedded --db by name ("+strings.Join(embedded(), ", ")+")",
			"--reuse-data shares one embedded database file among the cells; it cannot with --db %s", redact.DSN(db))
	}
	// The matrix's folder, made now that every cell is valid: a name of
	// its own, though another matrix began in the same second.
	w, err := result.CreateNew(root, id)
	if err != nil {
		return nil, "", knob.Bad("pass --results DIR with a folder you can write", "cannot create the matrix's folder in %s: %v", root, err)
	}
	dir := w.Dir()
	m.ID = filepath.Base(dir)
	dataDir, _ := filepath.Abs(filepath.Join(dir, "data"))
	if reuse {
		m.Args = append(m.Args, "--db="+db+":"+filepath.Join(dataDir, db+bspec.Ext))
	} else if !keep && !values.IsSet("data-dir") && allEmbedded(db, axes) {
		// Each cell's fresh database in a folder of the cell's own under
		// the matrix's data/, removed after the cell (--data-dir's way):
		// a matrix keeps its results, not a copy of the data per cell.
		m.Args = append(m.Args, "--data-dir="+dataDir)
	}
	return m, dir, nil
}

// allEmbedded says whether every cell's --db (db, or the values of a db
// axis) is an embedded engine's fresh file, named alone ("sqlite").
func allEmbedded(db string, axes []result.Axis) bool {
	dbs := []string{db}
	for _, a := range axes {
		if a.Knob == "db" {
			dbs = a.Values
		}
	}
	for _, db := range dbs {
		if b, ok := catalog.Backend(db); !ok || db != b.Throwaway || b.Ext == "" {
			return false
		}
	}
	return true
}

// ownsData says whether the matrix's cells keep their data in its data/
// folder (--reuse-data's shared file, or each cell's removed after it);
// not so when the user's own --data-dir holds them.
func ownsData(m *result.Matrix, dir string) bool {
	own, _ := filepath.Abs(filepath.Join(dir, "data"))
	return m.ReuseData || slices.Contains(m.Args, "--data-dir="+own)
}

// validateCells builds every distinct cell's plan, which writes nothing.
func validateCells(spec workload.Spec, m *result.Matrix) error {
	seen := map[string]bool{}
	for _, c := range m.Cells {
		if seen[c.Key] {
			continue
		}
		seen[c.Key] = true
		fs := pflag.NewFlagSet("cell", pflag.ContinueOnError)
		bind(fs, runKnobs(spec))
		bind(fs, outputKnobs)
		if err := fs.Parse(matrix.CellFlags(m, c)); err != nil {
			return knob.Bad("see dbgauge run "+spec.Name+" --help", "cell %s: %v", c.Key, err)
		}
		values := session.NewValues(spec)
		setValues(fs, values)
		if _, err := session.NewPlan(session.Request{Workload: spec, Values: values}); err != nil {
			var bad *knob.Error
			if errors.As(err, &bad) && len(m.Axes) > 0 {
				return knob.Bad(bad.Hint, "in the cell %s: %s", c.Key, bad.What)
			}
			return err
		}
	}
	return nil
}

// runMatrix runs a new matrix, or resumes one.
func runMatrix(ctx context.Context, env *Env, cancel context.CancelFunc, spec workload.Spec, values *knob.Values, knobs []matrix.Knob, out output) error {
	var m *result.Matrix
	var dir string
	if dir = values.Get("resume"); dir != "" {
		var err error
		if m, err = matrix.Load(dir); err != nil {
			return knob.Bad("give the folder of an interrupted matrix (it holds matrix.json)", "--resume %s: %v", dir, err)
		}
		if m.Workload != spec.Name {
			return knob.Bad("resume it with dbgauge run "+m.Workload+" --resume "+dir, "%s is a matrix of %s, not %s", dir, m.Workload, spec.Name)
		}
		for _, k := range knobs {
			if k.Name != "resume" {
				return knob.Bad("give --resume alone: the matrix keeps its own knobs", "--%s with --resume", k.Name)
			}
		}
		for _, a := range m.Args {
			if strings.Contains(a, redact.Mask) {
				return knob.Bad("resume with a DSN without a password (use PGPASSWORD or ~/.pgpass)",
					"the matrix's %s had a password, which dbgauge did not keep", strings.SplitN(a, "=", 2)[0])
			}
		}
		if err := validateCells(spec, m); err != nil {
			return err
		}
	} else {
		var err error
		if m, dir, err = planMatrix(env, spec, values, knobs); err != nil {
			return err
		}
		sub := "cells"
		if ownsData(m, dir) {
			sub = "data" // and cells, below
		}
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return knob.Bad("pass --results DIR with a folder you can write", "cannot create %s: %v", dir, err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "cells"), 0o755); err != nil {
			return knob.Bad("pass --results DIR with a folder you can write", "cannot create %s: %v", dir, err)
		}
		if err := matrix.Save(dir, m); err != nil {
			return err
		}
	}
	if err := htmlreport.WriteECharts(dir); err != nil { // the one copy every page of the matrix loads
		return fmt.Errorf("write %s: %w", htmlreport.EChartsFile, err)
	}
	exe := env.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("find the dbgauge binary to run the cells with: %w", err)
		}
	}
	pending := len(matrix.Pending(m))
	note := &progress{env: env, out: out}
	note.Note(fmt.Sprintf("matrix %s, %s, %d to run, in %s", m.Workload, matrix.Size(m), pending, dir))
	stop, interrupted, release := watchSignals(env, cancel, func() {
		note.Note("stopping: the cell in flight finishes its units (interrupt again to abandon them); --resume finishes the matrix")
	})
	defer release()
	r := &matrix.Runner{Dir: dir, Exe: exe, Stderr: env.Stderr, Obs: &matrixProgress{p: note}, PerCell: perCell(values)}
	runErr := r.Run(ctx, m, stop)
	if errors.Is(runErr, matrix.ErrBadCell) {
		return knob.Bad("fix the knob and run the matrix again", "%v", runErr)
	}
	a, err := analysis.LoadMatrix(dir)
	if err != nil {
		return err
	}
	html, herr := writeMatrixReport(a)
	summary := report.Matrix
	if out.json {
		summary = report.MatrixJSON
	}
	if err := summary(env.Stdout, a, html); err != nil {
		return err
	}
	code, why := matrixExit(m, a, errors.Join(runErr, herr), interrupted(), dir)
	if out.json { // stdout is the JSON: the reason goes to stderr
		if code == ExitOK {
			return nil
		}
		return exitError{code, why}
	}
	return sayExit(env.Stdout, code, why)
}

// matrixExit decides a matrix's exit status (dbgauge run and cluster with a
// list) and says why: 1 when a cell failed a check or a requirement, each
// named with what it found, whatever else happened; 3 when a cell did not
// complete, or the matrix itself failed; 0 when every cell completed and
// held.
func matrixExit(m *result.Matrix, a *analysis.Matrix, err error, interrupted bool, dir string) (int, string) {
	if interrupted || m.Status == result.Interrupted {
		return ExitInterrupted, "interrupted: dbgauge run " + m.Workload + " --resume " + dir + " finishes the matrix"
	}
	short := ""
	if p := matrix.Pending(m); len(p) > 0 {
		c := m.Cells[p[0]]
		short = fmt.Sprintf("%d of %s did not complete (dbgauge run %s --resume %s runs them again): %s (%s): %s",
			len(p), nOf(len(m.Cells), "cell"), m.Workload, dir, c.ID, keyOr(c.Key), c.Reason)
	}
	if err != nil {
		short = strings.TrimPrefix(short+"; ", "; ") + fmt.Sprintf("%v (what was measured is in %s)", err, dir)
	}
	found := map[string]analysis.Failure{}
	for _, f := range a.Failures {
		found[f.Cell] = f
	}
	var unmet []string
	for _, c := range m.Cells {
		if !c.Unmet {
			continue
		}
		what := []string{"see its result"}
		if f, ok := found[c.ID]; ok {
			what = what[:0]
			for _, ch := range f.Checks {
				what = append(what, ch.Name+" "+report.Cut(ch.Detail, 40))
			}
			for _, v := range f.Verdicts {
				what = append(what, "--require "+v.Require+" measured "+report.Measured(v))
			}
		}
		unmet = append(unmet, fmt.Sprintf("%s (%s): %s", c.ID, keyOr(c.Key), strings.Join(what, ", ")))
	}
	switch {
	case len(unmet) > 0:
		why := nOf(len(unmet), "cell") + " failed a check or a requirement: " + strings.Join(unmet, "; ")
		if short != "" {
			why += "; besides, " + short
		}
		return ExitUnmet, why
	case short != "":
		return ExitFailed, short
	}
	all := fmt.Sprintf("all %d cells", len(m.Cells))
	if len(m.Cells) == 1 {
		all = "the one cell"
	}
	return ExitOK, all + " completed; every check holds, every requirement met"
}

// perCell guesses a cell's wall time before one has run: a capacity
// search's, its probe and eight steps (a typical search's).
func perCell(v *knob.Values) time.Duration {
	w, _, _ := session.ParseWarmup(v.Get("warmup")) // with auto, its cap
	d, _ := v.Duration("duration")
	if len(v.List("slo")) > 0 {
		if !v.IsSet("warmup") {
			w = session.CapacityWarmup
		}
		step, _ := v.Duration("step")
		d = 8 * step
	}
	return w + d + 2*time.Second
}

// matrixProgress prints a line before each cell, with the time left.
type matrixProgress struct{ p *progress }

func (p *matrixProgress) CellStarts(m *result.Matrix, i, n, total int, eta time.Duration) {
	c := m.Cells[i]
	left := ""
	if eta >= time.Second {
		left = ", about " + eta.Round(time.Second).String() + " left"
	}
	rep := ""
	if m.Repeat > 1 {
		rep = fmt.Sprintf(" (repeat %d of %d)", c.Repeat, m.Repeat)
	}
	p.p.Note(fmt.Sprintf("cell %d/%d: %s%s%s", n, total, c.Key, rep, left))
}

func (p *matrixProgress) CellEnds(m *result.Matrix, i int, res *result.Result) {
	c := m.Cells[i]
	if res == nil || res.Status == result.Failed {
		p.p.Note(fmt.Sprintf("cell %s %s: %s", c.ID, c.Status, c.Reason))
		return
	}
	if res.Capacity != nil {
		p.p.Note(fmt.Sprintf("cell %s %s: capacity %s", c.ID, res.Status, report.CapacityLine(res.Capacity, res.Config.UnitRate)))
		return
	}
	p.p.Note(fmt.Sprintf("cell %s %s: %s %s, p99 %s", c.ID, res.Status, report.Rate(res.Summary.Rate), res.Summary.Metric, report.Us(res.Summary.P99Us)))
}

// embedded lists the embedded engines, whose fresh database is a file (or a
// folder) of their own: what --reuse-data can share.
func embedded() []string {
	return catalog.Throwaways(func(b backend.Spec) bool { return b.Ext != "" })
}
