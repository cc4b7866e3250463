package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/htmlreport"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/matrix"
	"github.com/dbgauge/dbgauge/internal/report"
	"github.com/dbgauge/dbgauge/internal/result"
)

// ReportFile is the name of the HTML report inside a result or matrix folder.
const ReportFile = "report.html"

// writeHTML renders p into path atomically.
func writeHTML(path string, p htmlreport.Page) error {
	var b bytes.Buffer
	if err := htmlreport.Write(&b, p); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeRunReport writes report.html into a result folder. echarts, when
// set, is the shared ECharts file relative to the folder (a matrix's cell);
// else the page embeds it.
func writeRunReport(dir string, r *result.Result, echarts string) (string, error) {
	path := filepath.Join(dir, ReportFile)
	return path, writeHTML(path, htmlreport.Page{Title: r.Config.Workload + " on " + r.Config.Backend + " — " + r.ID, Run: r, ECharts: echarts})
}

// writeMatrixReport writes report.html into a matrix folder, and into each
// cell's result folder it links to; every page loads the one ECharts file
// of the matrix folder, which it writes too.
func writeMatrixReport(m *analysis.Matrix) (string, error) {
	if err := htmlreport.WriteECharts(m.Dir); err != nil {
		return "", err
	}
	for _, g := range m.Groups {
		for i, r := range g.Runs {
			if _, err := writeRunReport(filepath.Join(m.Dir, g.Dirs[i]), r, sharedECharts(g.Dirs[i])); err != nil {
				return "", err
			}
		}
	}
	path := filepath.Join(m.Dir, ReportFile)
	return path, writeHTML(path, htmlreport.Page{Title: "matrix of " + m.Index.Workload + " — " + m.Index.ID, Matrix: m, ECharts: htmlreport.EChartsFile})
}

// sharedECharts is the matrix folder's ECharts file as seen from the
// folder rel inside it ("cells/003" → "../../echarts.min.js").
func sharedECharts(rel string) string {
	up := strings.Repeat("../", len(strings.Split(filepath.ToSlash(filepath.Clean(rel)), "/")))
	return up + htmlreport.EChartsFile
}

func newReportCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "report FOLDER",
		Short: "rebuild report.html of a result, matrix or crash folder from its result files",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			dir := args[0]
			if b, err := os.ReadFile(filepath.Join(dir, result.CrashFile)); err == nil {
				var rec result.Crash
				if err := json.Unmarshal(b, &rec); err != nil || rec.Schema != result.CrashSchema {
					return knob.Bad("give a crash folder written by this dbgauge", "%s: not a %s record (%v)", dir, result.CrashSchema, err)
				}
				path := filepath.Join(dir, ReportFile)
				if err := writeHTML(path, htmlreport.Page{Crash: &rec}); err != nil {
					return err
				}
				fmt.Fprintln(env.Stdout, path)
				return nil
			}
			if _, err := os.Stat(filepath.Join(dir, matrix.IndexFile)); err == nil {
				m, err := analysis.LoadMatrix(dir)
				if err != nil {
					return knob.Bad("give a matrix folder written by dbgauge", "%v", err)
				}
				path, err := writeMatrixReport(m)
				if err != nil {
					return err
				}
				return report.Matrix(env.Stdout, m, path)
			}
			r, err := result.Load(dir)
			if err != nil {
				return knob.Bad("give a result folder (it holds result.json) or a matrix folder (matrix.json)", "%s: %v", dir, err)
			}
			path, err := writeRunReport(dir, r, "")
			if err != nil {
				return err
			}
			fmt.Fprintln(env.Stdout, path)
			return nil
		},
	}
}

func newCompareCmd(env *Env) *cobra.Command {
	var failIfSlower, html string
	cmd := &cobra.Command{
		Use:   "compare A B [C…]",
		Short: "set results or matrices side by side: ratios, 95 % intervals, faster, slower or not significant",
		Long: `compare matches the cells of two or more result or matrix folders by their knob
values (two single runs are matched whatever their knobs) and says, per metric,
how each compares with the first: the ratio, its 95 % interval and a verdict.
With repeats the test is Welch's t over the runs; with one run each, a block
bootstrap over the per-second samples, which cannot see the noise between runs:
it calls nothing inside ±5 % a difference.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			limit := -1.0
			if failIfSlower != "" {
				v, err := strconv.ParseFloat(strings.TrimSuffix(failIfSlower, "%"), 64)
				if err != nil || v < 0 || v >= 100 {
					return knob.Bad("give a percentage, e.g. --fail-if-slower 5%", "--fail-if-slower %q is not a percentage", failIfSlower)
				}
				limit = v / 100
			}
			var inputs []*analysis.Input
			for _, a := range args {
				in, err := analysis.LoadInput(a)
				if err != nil {
					return knob.Bad("give result folders (result.json) or matrix folders (matrix.json)", "%s: %v", a, err)
				}
				inputs = append(inputs, in)
			}
			c, err := analysis.Compare(inputs, 1)
			if errors.Is(err, analysis.ErrNoMatch) {
				return knob.Bad("compare matrices over the same knob values, or single runs", "%v", err)
			}
			if err != nil {
				return err
			}
			if err := report.Compare(env.Stdout, c); err != nil {
				return err
			}
			if html != "" {
				if err := writeHTML(html, htmlreport.Page{Title: "compare " + strings.Join(c.Labels, " · "), Compare: c}); err != nil {
					return err
				}
				fmt.Fprintln(env.Stdout, "\n  report  "+html)
			}
			if limit >= 0 {
				for _, r := range c.Rows {
					if r.Metric.Key != "rate" {
						continue
					}
					for i, d := range r.Diffs[1:] {
						if r.Verdict[i+1] == "slower" && d.Ratio < 1-limit {
							return exitError{ExitUnmet, fmt.Sprintf("%s is %.1f %% slower than %s (%s)", c.Labels[i+1], 100*(1-d.Ratio), c.Labels[0], keyOr(r.Key))}
						}
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&failIfSlower, "fail-if-slower", "", "exit 1 when an input's throughput is significantly lower than the first's by more than `PERCENT`, e.g. 5%")
	cmd.Flags().StringVar(&html, "html", "", "also write the comparison as a self-contained HTML `FILE`")
	return cmd
}

func keyOr(k string) string {
	if k == "" {
		return "the run"
	}
	return k
}
