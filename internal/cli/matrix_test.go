package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/child"
	"github.com/dbgauge/dbgauge/internal/htmlreport"
	"github.com/dbgauge/dbgauge/internal/htmlreport/browsertest"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/testenv"
)

// matrixDir returns the one matrix folder under root.
func matrixDir(t *testing.T, root string) string {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(root, "*-matrix-*"))
	if len(dirs) != 1 {
		t.Fatalf("want one matrix folder in %s, got %v", root, dirs)
	}
	return dirs[0]
}

// TestMatrixRepeats runs a 2×2 matrix twice over on SQLite, each cell in its
// own process, and checks the index, the groups with their intervals, each
// knob's effect and the reports.
func TestMatrixRepeats(t *testing.T) {
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "--units", "400", "--durability", "sync,off",
		"--prepare", "once,each", "--repeat", "2", "--ceiling", "off", "--results", root)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	dir := matrixDir(t, root)
	m, err := matrix.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 8 || m.Status != result.Completed || len(m.Axes) != 2 || m.Axes[0].Knob != "durability" {
		t.Fatalf("index: %d cells, status %s, axes %+v", len(m.Cells), m.Status, m.Axes)
	}
	seen := map[string]bool{}
	for _, c := range m.Cells {
		r, err := result.Load(filepath.Join(dir, c.Dir))
		if err != nil {
			t.Fatal(err)
		}
		if r.Config.Durability != c.Values["durability"] || r.Config.Prepare != c.Values["prepare"] || r.Summary.OK != 400 {
			t.Errorf("cell %s ran %s/%s with %d ok", c.ID, r.Config.Durability, r.Config.Prepare, r.Summary.OK)
		}
		if seen[r.Engine.Path] {
			t.Errorf("cell %s reused the database %s", c.ID, r.Engine.Path)
		}
		seen[r.Engine.Path] = true
		if _, err := os.Stat(r.Engine.Path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("cell %s left its database %s behind (%v)", c.ID, r.Engine.Path, err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "data")); len(left) > 0 {
		t.Errorf("the matrix's data folder keeps %d entries after the cells", len(left))
	}
	a, err := analysis.LoadMatrix(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Groups) != 4 || a.Missing != 0 {
		t.Fatalf("%d groups, %d missing", len(a.Groups), a.Missing)
	}
	for _, g := range a.Groups {
		s := g.Stats["rate"]
		if s.N != 2 || !(s.Lo <= s.Mean && s.Mean <= s.Hi) || s.Mean <= 0 {
			t.Errorf("group %s: %+v", g.Key, s)
		}
	}
	if e := a.Effects[0]; e.Knob != "durability" || len(e.Rows) != 2 || e.Rows[0].Diffs[1].Method != "welch" {
		t.Errorf("durability effect: %+v", e)
	}
	for _, want := range []string{"durability=sync prepare=once", "durability: against durability=sync", "report.html"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{filepath.Join(dir, ReportFile), filepath.Join(dir, m.Cells[0].Dir, ReportFile)} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(errs, "cell 8/8") {
		t.Errorf("no progress per cell:\n%s", errs)
	}
	// The matrix folder holds ECharts once; every page loads it from there.
	shared := filepath.Join(dir, htmlreport.EChartsFile)
	if fi, err := os.Stat(shared); err != nil || fi.Size() < 1_000_000 {
		t.Fatalf("the matrix's %s: %v", htmlreport.EChartsFile, err)
	}
	var total int64
	_ = filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			total += fi.Size()
		}
		return err
	})
	for _, c := range m.Cells {
		page, err := os.ReadFile(filepath.Join(dir, c.Dir, ReportFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 400<<10 || !bytes.Contains(page, []byte(`<script src="../../echarts.min.js"></script>`)) || bytes.Contains(page, []byte("Licensed to the Apache")) {
			t.Errorf("cell %s: a page of %d KiB that does not load the matrix's ECharts", c.ID, len(page)>>10)
		}
	}
	t.Logf("the matrix folder: %d cells, %.1f MiB in all", len(m.Cells), float64(total)/(1<<20))
	browse(t, filepath.Join(dir, ReportFile), "matrix", shared)
	browse(t, filepath.Join(dir, m.Cells[0].Dir, ReportFile), "cell", shared)
}

// screenshots keeps the screenshots of browse: go test ./internal/cli -screenshots DIR.
var screenshots = flag.String("screenshots", "", "keep the reports' screenshots in `DIR`")

// browse opens a report in headless Chromium: no console error, no
// exception, no network request, every chart drawn. The screenshot goes to
// -screenshots DIR when given.
func browse(t *testing.T, page, name string, files ...string) {
	t.Helper()
	if _, err := browsertest.Chromium(); err != nil {
		testenv.Need(t, err) // .ci/run installs chromium: in CI this never skips
	}
	shots := *screenshots
	if shots == "" {
		shots = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	seen, err := browsertest.Check(ctx, page, filepath.Join(shots, name+".png"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(seen.ConsoleErrors)+len(seen.Exceptions)+len(seen.Requests) > 0 {
		t.Errorf("%s: console errors %q, exceptions %q, requests %q", name, seen.ConsoleErrors, seen.Exceptions, seen.Requests)
	}
	var want []string
	for _, f := range files {
		abs, _ := filepath.Abs(f)
		want = append(want, (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String())
	}
	if !slices.Equal(seen.Files, want) {
		t.Errorf("%s: loaded the files %q, want %q", name, seen.Files, want)
	}
	if !seen.Drawn || seen.Charts < 1 || seen.Painted != seen.Charts {
		t.Errorf("%s: drawn %v, %d charts, %d painted", name, seen.Drawn, seen.Charts, seen.Painted)
	}
}

// TestMatrixBadCell says which cell is wrong before anything runs.
func TestMatrixBadCell(t *testing.T) {
	root := t.TempDir()
	code, _, errs := runCLI(t, nil, "run", "insert", "--durability", "sync,fast", "--results", root)
	if code != ExitUsage || !strings.Contains(errs, "durability=fast") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if dirs, _ := filepath.Glob(filepath.Join(root, "*")); len(dirs) != 0 {
		t.Errorf("bad input left %v", dirs)
	}
}

// TestMatrixResume kills a matrix halfway (kill -9 of the matrix process,
// whose cell is then told to stop by the kernel) and resumes it: only the
// cells without a completed result run again.
func TestMatrixResume(t *testing.T) {
	inParallel(t)
	if testing.Short() {
		t.Skip("runs 6 cells")
	}
	root := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The matrix in a process of its own, this binary as dbgauge runs it.
	cmd := exec.Command(exe)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := child.Start(cmd, child.Spec{Role: child.RoleRun, Run: &child.Run{Args: []string{"insert", "--duration", "1s", "--warmup", "0",
		"--durability", "off,lazy,sync", "--text-bytes", "10,100", "--ceiling", "off", "--results", root}}}); err != nil {
		t.Fatal(err)
	}
	var dir string
	var before *result.Matrix
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("the matrix did not complete two cells in 60 s")
		}
		time.Sleep(100 * time.Millisecond)
		dirs, _ := filepath.Glob(filepath.Join(root, "*-matrix-*"))
		if len(dirs) != 1 {
			continue
		}
		dir = dirs[0]
		m, err := matrix.Load(dir)
		if err != nil || len(m.Cells)-len(matrix.Pending(m)) < 2 {
			continue
		}
		time.Sleep(300 * time.Millisecond) // into the third cell
		_ = cmd.Process.Kill()             // kill -9 of the matrix only
		_ = cmd.Wait()
		break
	}
	time.Sleep(2 * time.Second) // the orphaned cell stops on SIGINT and saves its result
	before, err = matrix.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]time.Time{}
	for _, c := range before.Cells {
		if c.Status == result.Completed {
			r, err := result.Load(filepath.Join(dir, c.Dir))
			if err != nil {
				t.Fatal(err)
			}
			done[c.ID] = r.Started
		}
	}
	missing := len(before.Cells) - len(done)
	if len(done) < 2 || missing < 1 {
		t.Fatalf("before resume: %d done, %d missing", len(done), missing)
	}

	code, out, errs := runCLI(t, nil, "run", "insert", "--resume", dir)
	if code != ExitOK {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "cell "+strconv.Itoa(missing)+"/"+strconv.Itoa(missing)) || strings.Contains(errs, "/"+strconv.Itoa(len(before.Cells))+":") {
		t.Errorf("resume ran other than the %d missing cells:\n%s", missing, errs)
	}
	after, err := matrix.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != result.Completed || len(matrix.Pending(after)) != 0 {
		t.Fatalf("after resume: %s, %d pending", after.Status, len(matrix.Pending(after)))
	}
	for id, started := range done {
		r, err := result.Load(filepath.Join(dir, "cells", id))
		if err != nil || !r.Started.Equal(started) {
			t.Errorf("cell %s, completed before the kill, ran again (%v)", id, err)
		}
	}
}

// TestMatrixReuseData lets the cells share one embedded database file.
func TestMatrixReuseData(t *testing.T) {
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", "insert", "--units", "100", "--durability", "sync,off", "--reuse-data", "--ceiling", "off", "--results", root, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	dir := matrixDir(t, root)
	// --json: the matrix's analysis on stdout, and nothing else.
	var a struct {
		Dir    string `json:"dir"`
		Report string `json:"report"`
		Groups []struct {
			Key  string   `json:"key"`
			Dirs []string `json:"dirs"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.Dir != dir || len(a.Groups) != 2 || a.Groups[0].Key != "durability=sync" || a.Report != filepath.Join(dir, ReportFile) {
		t.Errorf("--json of a matrix: %v, %+v:\n%.500s", err, a, out)
	}
	var paths []string
	for _, c := range []string{"001-r1", "002-r1"} {
		r, err := result.Load(filepath.Join(dir, "cells", c))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, r.Engine.Path)
	}
	if paths[0] != paths[1] || !strings.HasPrefix(paths[0], filepath.Join(dir, "data")) {
		t.Errorf("database files %q", paths)
	}
	code, _, errs = runCLI(t, nil, "run", "insert", "--db", "sqlite,bbolt", "--reuse-data", "--results", root)
	if code != ExitUsage || !strings.Contains(errs, "--reuse-data") {
		t.Errorf("reuse over a db axis: exit %d %s", code, errs)
	}
}

// browseDir is a folder whose every report.html TestBrowseFolder opens.
var browseDir = flag.String("browse", "", "open every report.html under `DIR` in Chromium (TestBrowseFolder)")

// TestBrowseFolder opens every page of a result or matrix folder given with
// -browse DIR, as browse does (with -screenshots DIR, keeping each page's
// screenshot): for a folder made by hand, e.g. a long matrix.
func TestBrowseFolder(t *testing.T) {
	if *browseDir == "" {
		return // a tool for a folder made by hand, not a test of the suite's: nothing to open
	}
	shared := filepath.Join(*browseDir, htmlreport.EChartsFile)
	_ = filepath.Walk(*browseDir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.Name() != ReportFile {
			return err
		}
		rel, _ := filepath.Rel(*browseDir, filepath.Dir(path))
		name := strings.ReplaceAll(rel, string(filepath.Separator), "-")
		if rel == "." {
			name = "top"
		}
		var files []string
		if _, err := os.Stat(shared); err == nil {
			files = []string{shared}
		}
		browse(t, path, name, files...)
		t.Logf("%s: opened", rel)
		return nil
	})
}

// TestMatrixNamesFailedChecks: a matrix whose cells fail a consistency
// check names each failed check of each cell with what it found, in its
// summary, in its last line (exit 1) and in report.html, not only "1 cell
// failed a consistency check" with the figure left in the cell's result.
func TestMatrixNamesFailedChecks(t *testing.T) {
	root := t.TempDir()
	code, out, errs := runCLI(t, nil, "run", filepath.Join("testdata", "checked.toml"), "--durability", "sync,off",
		"--units", "20", "--ceiling", "off", "--results", root)
	if code != ExitUnmet {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitUnmet, out, errs)
	}
	for _, want := range []string{"failed checks and requirements", "001-r1  durability=sync  ✗ ten_rows: values 5, 10", "002-r1  durability=off   ✗ ten_rows: values 5, 10"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	last := "exit 1: 2 cells failed a check or a requirement: 001-r1 (durability=sync): ten_rows values 5, 10; 002-r1 (durability=off): ten_rows values 5, 10"
	if lastLine(out) != last {
		t.Errorf("last line %q, want %q", lastLine(out), last)
	}
	page, err := os.ReadFile(filepath.Join(matrixDir(t, root), ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Failed checks and requirements", "ten_rows", "values 5, 10", "2 cells failed a check or a requirement"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestMatrixExit: a cell that failed a check is exit 1 even when another
// cell did not complete (the finding stands, and both are said); cells that
// did not complete alone are 3; every cell completed and held is 0.
func TestMatrixExit(t *testing.T) {
	a := &analysis.Matrix{Failures: []analysis.Failure{{Cell: "001-r1", Key: "isolation=read-committed",
		Checks: []result.Check{{Name: "G2-item (write skew)", Detail: "3, e.g. T12 read key 4 as [1 2] then T15 appended 3 to it"}}}}}
	cells := func(cs ...result.Cell) *result.Matrix {
		return &result.Matrix{Workload: "append", Status: result.Completed, Cells: cs}
	}
	unmet := result.Cell{ID: "001-r1", Key: "isolation=read-committed", Status: result.Completed, Unmet: true}
	failed := result.Cell{ID: "002-r1", Key: "isolation=serializable", Status: result.Failed, Reason: "server died"}
	ok := result.Cell{ID: "002-r1", Key: "isolation=serializable", Status: result.Completed}
	for _, c := range []struct {
		m    *result.Matrix
		code int
		why  string
	}{
		{cells(unmet, failed), ExitUnmet, "1 cell failed a check or a requirement: 001-r1 (isolation=read-committed): G2-item (write skew) 3, e.g. T12 read key 4 as [1 2] then T1…; " +
			"besides, 1 of 2 cells did not complete (dbgauge run append --resume DIR runs them again): 002-r1 (isolation=serializable): server died"},
		{cells(ok, failed), ExitFailed, "1 of 2 cells did not complete (dbgauge run append --resume DIR runs them again): 002-r1 (isolation=serializable): server died"},
		{cells(ok, ok), ExitOK, "all 2 cells completed; every check holds, every requirement met"},
	} {
		code, why := matrixExit(c.m, a, nil, false, "DIR")
		if code != c.code || why != c.why {
			t.Errorf("exit %d %q, want %d %q", code, why, c.code, c.why)
		}
	}
}
