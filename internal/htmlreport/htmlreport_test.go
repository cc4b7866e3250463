package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/analysis"
	"github.com/dbgauge/dbgauge/internal/htmlreport"
	"github.com/dbgauge/dbgauge/internal/htmlreport/browsertest"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/stats"
	"github.com/dbgauge/dbgauge/internal/testenv"
	"github.com/dbgauge/dbgauge/internal/workload/insert"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// keep keeps the pages and their screenshots: go test ./internal/htmlreport -screenshots DIR.
var keep = flag.String("screenshots", "", "keep the pages and their screenshots in `DIR`")

// screenshots is where the pages and their screenshots go: -screenshots DIR,
// or a temporary folder.
func screenshots(t *testing.T) string {
	t.Helper()
	dir := *keep
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func render(t *testing.T, p htmlreport.Page) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := htmlreport.Write(&b, p); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.Bytes()
}

// browse writes page to DIR/name.html, opens it in Chromium, saves
// DIR/name.png and checks that every chart drew with no error and no request.
func browse(t *testing.T, name string, page []byte) {
	t.Helper()
	if _, err := browsertest.Chromium(); err != nil {
		testenv.Need(t, err)
	}
	dir := screenshots(t)
	path := filepath.Join(dir, name+".html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	want := bytes.Count(page, []byte(`data-chart="`))
	if want == 0 {
		t.Fatalf("%s: no chart container", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	png := filepath.Join(dir, name+".png")
	seen, err := browsertest.Check(ctx, path, png)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(seen.ConsoleErrors) > 0 {
		t.Errorf("%s: console errors: %q", name, seen.ConsoleErrors)
	}
	if len(seen.Exceptions) > 0 {
		t.Errorf("%s: exceptions: %q", name, seen.Exceptions)
	}
	if len(seen.Requests)+len(seen.Files) > 0 {
		t.Errorf("%s: network requests %q, files %q: the page is not self-contained", name, seen.Requests, seen.Files)
	}
	if !seen.Drawn || seen.Charts != want {
		t.Errorf("%s: drawn %v, %d charts of %d", name, seen.Drawn, seen.Charts, want)
	}
	if seen.Painted != want {
		t.Errorf("%s: %d chart canvases hold pixels, want %d", name, seen.Painted, want)
	}
	t.Logf("%s: %d charts drawn; page %s, screenshot %s", name, seen.Charts, path, png)
}

var (
	externalRef = regexp.MustCompile(`(?i)<script[^>]*\ssrc\s*=|<link[^>]*\shref\s*=|<(img|iframe|source|video|audio|embed|object)\b[^>]*\s(src|data)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|@import`)
	echartsHead = regexp.MustCompile(`^<script>\s*/\*\s*\* Licensed to the Apache Software Foundation`)
	// echartsClean holds the ECharts blocks already found free of outside
	// references: every page embeds the same one, and a regexp over its
	// megabyte takes a second under the race detector.
	echartsClean sync.Map
)

// splitECharts returns the page's embedded ECharts (from its <script> with
// Apache's licence header to the next </script>) and the page without it.
func splitECharts(page []byte) (block, rest []byte, ok bool) {
	for off := 0; ; {
		i := bytes.Index(page[off:], []byte("<script>"))
		if i < 0 {
			return nil, page, false
		}
		i += off
		if echartsHead.Match(page[i:min(len(page), i+200)]) {
			j := bytes.Index(page[i:], []byte("</script>"))
			if j < 0 {
				return nil, page, false
			}
			end := i + j + len("</script>")
			return page[i:end], append(append([]byte{}, page[:i]...), page[end:]...), true
		}
		off = i + 1
	}
}

// selfContained fails unless page loads nothing: no <script src>, no <link
// href>, and no http(s) URL anywhere outside the embedded ECharts. No
// reference can straddle the block's edges (it opens with <script> and ends
// with </script>), so the block and the rest are checked apart, the block
// once.
func selfContained(t *testing.T, name string, page []byte) {
	t.Helper()
	block, rest, ok := splitECharts(page)
	if !ok {
		t.Fatalf("%s: the embedded ECharts is missing", name)
	}
	if m := externalRef.Find(rest); m != nil {
		t.Errorf("%s: refers to an outside resource: %s", name, m)
	}
	if _, seen := echartsClean.Load(string(block)); !seen {
		if m := externalRef.Find(block); m != nil {
			t.Errorf("%s: the embedded ECharts refers to an outside resource: %s", name, m)
		} else {
			echartsClean.Store(string(block), true)
		}
	}
	for _, scheme := range []string{"http://", "https://", "//cdn", "src=\"//"} {
		if i := bytes.Index(rest, []byte(scheme)); i >= 0 {
			t.Errorf("%s: %q outside ECharts: …%s…", name, scheme, rest[max(0, i-60):min(len(rest), i+60)])
		}
	}
}

func TestRunPage(t *testing.T) {
	res := workloadtest.Run(t, insert.Spec, map[string]string{
		"units": "0", "duration": "4s", "warmup": "2s", "clients": "2",
		"require": "units/s>=10\np99<=2000ms",
	})
	page := render(t, htmlreport.Page{Run: res})
	selfContained(t, "run", page)
	for _, want := range []string{"insert on sqlite", res.Engine.Version, "Throughput and latency per second", "Latency distribution", "Settings as read back"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the run page lacks %q", want)
		}
	}
	browse(t, "run", page)

	// The same run with failures and retries, so that their chart shows.
	bad := withFailures(t, res)
	page = render(t, htmlreport.Page{Run: bad, Title: "insert on sqlite, with failures"})
	selfContained(t, "run-failures", page)
	if !bytes.Contains(page, []byte("database is locked")) {
		t.Error("the failures table lacks its sample")
	}
	browse(t, "run-failures", page)
}

// withFailures copies res and adds failures and retries to it.
func withFailures(t *testing.T, res *result.Result) *result.Result {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	out := &result.Result{}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	for i := range out.Series {
		out.Series[i].Failed = int64(i%2 + i%3)
		out.Series[i].Retries = int64(5 * (i % 4))
		// By class: the chart stacks one line per class.
		out.Series[i].FailedBy = map[string]int64{"retryable": int64(i % 2), "rollback": int64(i % 3)}
		out.Series[i].RetriedBy = map[string]int64{"retryable": int64(5 * (i % 4))}
	}
	m := out.Phase("measure")
	m.Failures = append(m.Failures, result.Failure{Class: "retryable", Kind: "busy", Code: "SQLITE_BUSY", Count: 4,
		Samples: []string{"database is locked (5) <script>alert(1)</script>", "database is locked (5)"}})
	m.Retried = append(m.Retried, result.Failure{Class: "retryable", Kind: "busy", Code: "SQLITE_BUSY", Count: 37,
		Samples: []string{"database is locked (5)"}})
	out.Summary.Failed, out.Summary.Retries, out.Summary.ErrorsPct = 4, 37, 0.02
	out.Status, out.Reason = result.Interrupted, "stop file appeared"
	return out
}

// summarize is a stand-in for stats.Summarize (being written elsewhere).
func summarize(xs []float64) stats.Summary {
	n := float64(len(xs))
	s := stats.Summary{N: len(xs)}
	for _, x := range xs {
		s.Mean += x / n
	}
	if len(xs) < 2 {
		s.Lo, s.Hi = s.Mean, s.Mean
		return s
	}
	for _, x := range xs {
		s.SD += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(s.SD / (n - 1))
	t := map[int]float64{2: 12.706, 3: 4.303, 4: 3.182, 5: 2.776}[len(xs)]
	half := t * s.SD / math.Sqrt(n)
	s.Lo, s.Hi = s.Mean-half, s.Mean+half
	s.CV = s.SD / s.Mean
	s.Noisy = s.CV > stats.NoisyCV
	return s
}

// diff is a stand-in for stats.Welch: the ratio with a delta-method interval.
func diff(a, b stats.Summary, higherBetter bool) (stats.Diff, string) {
	r := b.Mean / a.Mean
	se := r * math.Sqrt(sq(a.SD/a.Mean)/float64(a.N)+sq(b.SD/b.Mean)/float64(b.N))
	d := stats.Diff{Ratio: r, Lo: r - 2.5*se, Hi: r + 2.5*se, P: 0.5, Method: "welch"}
	d.Significant = d.Lo > 1 || d.Hi < 1
	if d.Significant {
		d.P = 0.01
	}
	switch {
	case !d.Significant:
		return d, "not significant"
	case (r > 1) == higherBetter:
		return d, "faster"
	}
	return d, "slower"
}

func sq(x float64) float64 { return x * x }

func identity(s stats.Summary) stats.Diff {
	return stats.Diff{Ratio: 1, Lo: 1, Hi: 1, P: 1, Method: "identity"}
}

var (
	rateMetric = analysis.Metric{Key: "rate", Label: "inserts/s", HigherBetter: true}
	p50Metric  = analysis.Metric{Key: "p50_us", Label: "p50", Unit: "µs"}
	p99Metric  = analysis.Metric{Key: "p99_us", Label: "p99", Unit: "µs"}
)

// model is a made-up engine: the rate and latencies of a combination, with
// a little noise per repeat.
func model(v map[string]string, rep int) (rate, p50, p99 float64) {
	rate = 180
	if v["durability"] == "off" {
		rate = 2400
	}
	if v["commit"] == "every:10" {
		rate *= 3.1
	}
	if c := v["clients"]; c != "" {
		n := map[string]float64{"1": 1, "4": 3.4, "16": 3.9}[c]
		if v["durability"] == "off" {
			n = map[string]float64{"1": 1, "4": 2.2, "16": 2.25}[c]
		}
		rate *= n
	}
	noise := []float64{1, 0.97, 1.04, 0.99}[rep%4]
	if v["durability"] == "off" && v["commit"] == "every:10" {
		noise = []float64{1, 0.82, 1.19, 0.9}[rep%4] // a noisy cell
	}
	rate *= noise
	clients := 1.0
	if c := v["clients"]; c != "" {
		clients = map[string]float64{"1": 1, "4": 4, "16": 16}[c]
	}
	p50 = clients * 1e6 / rate * 0.9
	p99 = p50 * (3 + float64(rep%3)*0.2)
	return rate, p50, p99
}

type axis struct {
	knob   string
	values []string
}

// fakeMatrix builds an analysed matrix over axes with repeat runs per cell,
// leaving out the cells in skip ("key#repeat").
func fakeMatrix(axes []axis, repeat int, skip map[string]bool) *analysis.Matrix {
	ix := &result.Matrix{Schema: result.MatrixSchema, ID: "20260101-120000-matrix", Status: result.Completed, Workload: "insert",
		Metric: "inserts/s", Repeat: repeat, Args: []string{"--duration", "10s"},
		Started: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	for _, a := range axes {
		ix.Axes = append(ix.Axes, result.Axis{Knob: a.knob, Values: a.values})
	}
	m := &analysis.Matrix{Dir: "results/matrix-1", Index: ix, Metrics: []analysis.Metric{rateMetric, p50Metric, p99Metric}}
	combos := []map[string]string{{}}
	for _, a := range axes {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range a.values {
				n := map[string]string{a.knob: v}
				for k, x := range c {
					n[k] = x
				}
				next = append(next, n)
			}
		}
		combos = next
	}
	key := func(v map[string]string, leave string) string {
		var parts []string
		for _, a := range axes {
			if a.knob != leave {
				parts = append(parts, a.knob+"="+v[a.knob])
			}
		}
		return strings.Join(parts, " ")
	}
	groups := map[string]*analysis.Group{}
	for i, v := range combos {
		g := &analysis.Group{Key: key(v, ""), Values: v, Stats: map[string]stats.Summary{}}
		var rates, p50s, p99s []float64
		for r := 1; r <= repeat; r++ {
			dir := fmt.Sprintf("%03d-r%d", i+1, r)
			cell := result.Cell{ID: dir, Key: g.Key, Values: v, Repeat: r, Dir: dir, Status: result.Completed, Seconds: 12}
			if skip[fmt.Sprintf("%s#%d", g.Key, r)] {
				cell.Status, cell.Reason = result.Failed, "engine refused --set cache_size=-1"
				m.Missing++
				ix.Cells = append(ix.Cells, cell)
				continue
			}
			rate, p50, p99 := model(v, r)
			cell.Rate = rate
			ix.Cells = append(ix.Cells, cell)
			rates, p50s, p99s = append(rates, rate), append(p50s, p50), append(p99s, p99)
			g.Dirs = append(g.Dirs, dir)
			g.Runs = append(g.Runs, &result.Result{ID: dir, Status: result.Completed, Config: result.Config{Workload: "insert"}})
		}
		g.Stats["rate"], g.Stats["p50_us"], g.Stats["p99_us"] = summarize(rates), summarize(p50s), summarize(p99s)
		m.Groups = append(m.Groups, g)
		groups[g.Key] = g
	}
	for _, a := range axes {
		e := analysis.Effect{Knob: a.knob, Values: a.values}
		seen := map[string]bool{}
		for _, v := range combos {
			others := key(v, a.knob)
			if seen[others] {
				continue
			}
			seen[others] = true
			row := analysis.EffectRow{Others: others}
			for j, x := range a.values {
				w := map[string]string{}
				for k, y := range v {
					w[k] = y
				}
				w[a.knob] = x
				s := groups[key(w, "")].Stats["rate"]
				row.Stats = append(row.Stats, s)
				if j == 0 {
					row.Diffs = append(row.Diffs, identity(s))
				} else {
					d, _ := diff(row.Stats[0], s, true)
					row.Diffs = append(row.Diffs, d)
				}
			}
			e.Rows = append(e.Rows, row)
		}
		m.Effects = append(m.Effects, e)
	}
	for _, a := range axes {
		if a.knob != "clients" {
			continue
		}
		sc := &analysis.Scaling{}
		for _, c := range a.values {
			var n int
			fmt.Sscan(c, &n)
			sc.Clients = append(sc.Clients, n)
		}
		for _, e := range m.Effects {
			if e.Knob != "clients" {
				continue
			}
			for _, row := range e.Rows {
				l := analysis.ScalingLine{Others: row.Others, Rate: row.Stats}
				best := 0.0
				for _, s := range row.Stats {
					best = math.Max(best, s.Mean)
				}
				for k, s := range row.Stats {
					if l.Plateau == 0 && s.Mean >= 0.95*best {
						l.Plateau = sc.Clients[k]
					}
				}
				for _, c := range a.values {
					w := map[string]string{}
					for _, o := range strings.Fields(row.Others) {
						kv := strings.SplitN(o, "=", 2)
						w[kv[0]] = kv[1]
					}
					w["clients"] = c
					l.P99 = append(l.P99, groups[key(w, "")].Stats["p99_us"])
				}
				sc.Lines = append(sc.Lines, l)
			}
		}
		m.Scaling = sc
	}
	return m
}

func TestMatrixPage(t *testing.T) {
	m := fakeMatrix([]axis{{"durability", []string{"sync", "off"}}, {"commit", []string{"op", "every:10"}}}, 3,
		map[string]bool{"durability=off commit=op#3": true})
	m.Failures = []analysis.Failure{{Cell: "003-r2", Key: "durability=off commit=op", Dir: "003-r2",
		Checks: []result.Check{{Name: "G2-item (write skew)", Detail: "3, e.g. T12 read key 4 as [1 2] then T15 appended 3 to it"}}}}
	page := render(t, htmlreport.Page{Matrix: m})
	selfContained(t, "matrix", page)
	for _, want := range []string{"Effect of durability", "Effect of commit", "r1</a>", `href="001-r1/report.html"`, "noisy", "1 cell missing",
		"Failed checks and requirements", `href="003-r2/report.html"`, "G2-item (write skew)", "3, e.g. T12 read key 4", "1 cell failed a check or a requirement"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the matrix page lacks %q", want)
		}
	}
	browse(t, "matrix", page)

	s := fakeMatrix([]axis{{"durability", []string{"sync", "off"}}, {"clients", []string{"1", "4", "16"}}}, 3, nil)
	page = render(t, htmlreport.Page{Matrix: s, Title: "insert: scaling with clients"})
	selfContained(t, "matrix-scaling", page)
	if !bytes.Contains(page, []byte("Scaling with clients")) || !bytes.Contains(page, []byte("plateau")) {
		t.Error("the scaling section is missing")
	}
	browse(t, "matrix-scaling", page)
}

func fakeComparison() *analysis.Comparison {
	c := &analysis.Comparison{Labels: []string{"main", "wal-tuning", "bigger-cache"}, Metric: "inserts/s"}
	keys := []string{"durability=sync commit=op", "durability=off commit=op", "durability=sync commit=every:10"}
	factor := [][]float64{{1, 1.32, 0.99}, {1, 1.01, 1.08}, {1, 0.84, 1.0}}
	for i, k := range keys {
		for _, m := range []analysis.Metric{rateMetric, p99Metric} {
			row := analysis.CompareRow{Key: k, Metric: m}
			for j, f := range factor[i] {
				var xs []float64
				for r := 1; r <= 3; r++ {
					rate, _, p99 := model(map[string]string{"durability": strings.Fields(k)[0][len("durability="):]}, r+j)
					if m.Key == "rate" {
						xs = append(xs, rate*f)
					} else {
						xs = append(xs, p99/f)
					}
				}
				s := summarize(xs)
				row.Stats = append(row.Stats, s)
				if j == 0 {
					row.Diffs, row.Verdict = append(row.Diffs, identity(s)), append(row.Verdict, "")
					continue
				}
				d, v := diff(row.Stats[0], s, m.HigherBetter)
				row.Diffs, row.Verdict = append(row.Diffs, d), append(row.Verdict, v)
			}
			c.Rows = append(c.Rows, row)
		}
	}
	return c
}

func TestComparePage(t *testing.T) {
	c := fakeComparison()
	page := render(t, htmlreport.Page{Compare: c})
	selfContained(t, "compare", page)
	for _, want := range []string{"main vs wal-tuning vs bigger-cache", "wal-tuning ÷ main", "faster", "not significant"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the comparison page lacks %q", want)
		}
	}
	browse(t, "compare", page)

	two := &analysis.Comparison{Labels: c.Labels[:2], Metric: c.Metric}
	for _, r := range c.Rows {
		r.Stats, r.Diffs, r.Verdict = r.Stats[:2], r.Diffs[:2], r.Verdict[:2]
		two.Rows = append(two.Rows, r)
	}
	page = render(t, htmlreport.Page{Compare: two})
	selfContained(t, "compare-two", page)
	browse(t, "compare-two", page)
}

func TestWriteWantsExactlyOnePage(t *testing.T) {
	var b bytes.Buffer
	if err := htmlreport.Write(&b, htmlreport.Page{}); err == nil {
		t.Error("an empty page was written")
	}
	if err := htmlreport.Write(&b, htmlreport.Page{Run: &result.Result{}, Compare: &analysis.Comparison{}}); err == nil {
		t.Error("a page with a run and a comparison was written")
	}
}

// TestPure: the same input gives the same bytes, and an empty result still
// renders a page.
func TestPure(t *testing.T) {
	for name, p := range map[string]htmlreport.Page{
		"matrix":   {Matrix: fakeMatrix([]axis{{"durability", []string{"sync", "off"}}, {"clients", []string{"1", "4", "16"}}}, 3, nil)},
		"compare":  {Compare: fakeComparison()},
		"empty":    {Run: &result.Result{}},
		"no rows":  {Compare: &analysis.Comparison{}},
		"bare":     {Matrix: &analysis.Matrix{}},
		"one axis": {Matrix: fakeMatrix([]axis{{"durability", []string{"sync", "lazy", "off"}}}, 2, nil)},
	} {
		a, b := render(t, p), render(t, p)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two renderings differ", name)
		}
		selfContained(t, name, a)
	}
}

func TestEscapes(t *testing.T) {
	r := &result.Result{Status: result.Failed, Reason: `<img src=x onerror=alert(1)>`,
		Config: result.Config{Workload: "</script><script>alert(1)</script>", Knobs: result.Knobs{"x": `"><b>`}}}
	page := render(t, htmlreport.Page{Run: r})
	for _, bad := range []string{"<img src=x", "</script><script>alert", `"><b>`} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("%q is not escaped", bad)
		}
	}
}

// TestMatrixDataPage draws throughput and p99 against data size, the cache
// marked and the hit ratios as labels (a --dataset axis).
func TestMatrixDataPage(t *testing.T) {
	m := fakeMatrix([]axis{{"dataset", []string{"0.25x", "1x", "4x"}}}, 1, nil)
	const cache = 32 << 20
	hit := func(p float64) *float64 { return &p }
	m.Data = &analysis.DataCurve{Knob: "dataset", Lines: []analysis.DataLine{{Cache: cache, Knee: 2, Points: []analysis.DataPoint{
		{Value: "0.25x", Bytes: 8 << 20, Rate: summarize([]float64{41000}), P99: summarize([]float64{450}), HitPct: hit(100)},
		{Value: "1x", Bytes: 33 << 20, Rate: summarize([]float64{38000}), P99: summarize([]float64{520}), HitPct: hit(97.4)},
		{Value: "4x", Bytes: 131 << 20, Rate: summarize([]float64{16500}), P99: summarize([]float64{2900}), HitPct: hit(61.2)},
	}}}}
	page := render(t, htmlreport.Page{Matrix: m, Title: "kv: data size against the cache"})
	selfContained(t, "matrix-data", page)
	for _, want := range []string{"Throughput against data size", "cache 32.0 MiB", "hits 97.4 %", "knee", "fn:bytes"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the data-size section lacks %q", want)
		}
	}
	browse(t, "matrix-data", page)
}

// TestRunPageNothing: units that found nothing to do have their card, their
// line beside the throughput, and their column in the phases and unit kinds.
func TestRunPageNothing(t *testing.T) {
	start := time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)
	res := &result.Result{
		Schema: result.Schema, ID: "oltp-emul-empty", Status: result.Completed,
		Config:  result.Config{Workload: "oltp-emul", Unit: "action", UnitRate: "actions/s", Backend: "sqlite", DB: "sqlite", Clients: 2},
		Engine:  result.Engine{Name: "sqlite", Version: "3.54.1"},
		Summary: result.Summary{Metric: "actions/s", Rate: 0, OK: 0, Nothing: 5400, Seconds: 3, ChecksOK: true},
		Phases: []result.Phase{{Name: "measure", Start: start, End: start.Add(3 * time.Second), Seconds: 3, Nothing: 5400,
			All: result.Latency{Name: "all"}, Units: []result.Latency{{Name: "reserve", Nothing: 3000}, {Name: "sale", Nothing: 2400}}}},
	}
	for i := 1; i <= 3; i++ {
		res.Series = append(res.Series, result.Second{T: float64(i), Dt: 1, Phase: "measure", Nothing: 1800})
	}
	page := render(t, htmlreport.Page{Run: res})
	selfContained(t, "run-nothing", page)
	for _, want := range []string{"nothing to do", "found no work: not in the throughput", `"name":"nothing to do"`, ">5400<", ">3000<", ">2400<"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the run page lacks %q", want)
		}
	}
	browse(t, "run-nothing", page)
}

// TestPerMinuteFigure: a workload's figure with unit kinds (TPC-C's tpmC)
// is drawn per whole minute of the measure phase from the series' per-kind
// counts; the last 30 s, no whole minute, are left out and said so.
func TestPerMinuteFigure(t *testing.T) {
	start := time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)
	pass := true
	res := &result.Result{
		Schema: result.Schema, ID: "tpcc-minutes", Status: result.Completed,
		Config: result.Config{Workload: "tpcc", Unit: "transaction", UnitRate: "transactions/s", Backend: "sqlite", DB: "sqlite", Clients: 2},
		Engine: result.Engine{Name: "sqlite", Version: "3.54.1"},
		Summary: result.Summary{Metric: "transactions/s", Rate: 3, OK: 450, Seconds: 150, ChecksOK: true, Figures: []result.Figure{
			{Name: "tpmC", Value: 61.2, Unit: "New-Orders/min", Detail: "every New-Order", Kinds: []string{"new-order", "new-order-rollback"}},
			{Name: "efficiency", Value: 476, Unit: "%", Kinds: []string{"new-order", "new-order-rollback"}, Of: 12.86},
			{Name: "payment p90", Value: 1.5, Unit: "ms", Pass: &pass}}},
		Phases: []result.Phase{{Name: "measure", Start: start, End: start.Add(150 * time.Second), Seconds: 150, OK: 450,
			All: result.Latency{Name: "all", Count: 450}, Units: []result.Latency{{Name: "new-order", Count: 150}, {Name: "new-order-rollback", Count: 3}, {Name: "payment", Count: 297}}}},
	}
	for i := 1; i <= 150; i++ {
		// Minute 1: 1 New-Order a second; minute 2: 2 (one rolled back every other second).
		no := []int64{1, 0, 2}
		if i > 60 {
			no = []int64{1 + int64(i%2), int64(1 - i%2), 2}
		}
		res.Series = append(res.Series, result.Second{T: float64(i), Dt: 1, Phase: "measure", OK: 3, Units: no})
	}
	page := render(t, htmlreport.Page{Run: res})
	selfContained(t, "run-per-minute", page)
	for _, want := range []string{"tpmC per minute", `"data":[60,120]`, "The last 30 s, less than a minute, are not drawn", "New-Orders/min"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the run page lacks %q", want)
		}
	}
	if bytes.Contains(page, []byte(`"data":[60,120,`)) || bytes.Contains(page, []byte(`"3"`)) {
		t.Error("the partial third minute is drawn")
	}
	if bytes.Contains(page, []byte("tpmC and efficiency per minute")) {
		t.Error("a share of a ceiling (efficiency) is drawn as New-Orders per minute")
	}
	// Without --wait the efficiency has no value: its card says n/a and why.
	res.Summary.Figures[1] = result.Figure{Name: "efficiency", Unit: "%", NA: "no keying or think times (--wait)"}
	page = render(t, htmlreport.Page{Run: res})
	if !bytes.Contains(page, []byte("n/a")) || !bytes.Contains(page, []byte("no keying or think times (--wait)")) {
		t.Error("the efficiency without --wait does not say n/a and why")
	}
}

// TestRunPageP: a workload whose headline is per minute (OLTP-EMUL's P)
// gets each whole minute's units per minute as bars and P since the phase
// began as a line, and its units in detail with failures by group and
// nothing to do by reason.
func TestRunPageP(t *testing.T) {
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	res := &result.Result{
		Schema: result.Schema, ID: "oltp-emul-p", Status: result.Completed,
		Config:  result.Config{Workload: "oltp-emul", Unit: "unit", UnitRate: "units/s", Backend: "sqlite", DB: "sqlite", Clients: 2},
		Engine:  result.Engine{Name: "sqlite", Version: "3.54.1"},
		Summary: result.Summary{Metric: "units/s", Rate: 1.5, OK: 225, Failed: 3, Nothing: 4, Seconds: 150, PerMinute: 90, ChecksOK: true},
		Phases: []result.Phase{{Name: "measure", Start: start, End: start.Add(150 * time.Second), Seconds: 150, OK: 225, Failed: 3, Nothing: 4,
			All:           result.Latency{Name: "all", Count: 225},
			Units:         []result.Latency{{Name: "sp_client_order", Count: 200, Failed: 3, MeanUs: 1500, MaxUs: 9000}, {Name: "sp_customer_reserve", Count: 25, Nothing: 4}},
			UnitsFailedBy: map[string]map[string]int64{"sp_client_order": {"lock": 2, "check": 1}},
			NothingBy:     []result.Failure{{Class: "expected", Kind: "nothing", Code: "ex_cant_find_row_for_qdistr", Count: 4, Samples: []string{"no units"}}},
		}},
	}
	for i := 1; i <= 150; i++ {
		ok := int64(1) // minute 1: 60, minute 2: 120, then 45 in 30 s
		if i > 60 {
			ok = 2
		}
		if i > 120 {
			ok = 1
		}
		res.Series = append(res.Series, result.Second{T: float64(i), Dt: 1, Phase: "measure", OK: ok})
	}
	page := render(t, htmlreport.Page{Run: res})
	selfContained(t, "run-p", page)
	for _, want := range []string{"P minute by minute", `"data":[60,120]`, `"data":[60,90]`, "30 s in minutes a phase did not fill",
		"Units in detail", "ex_cant_find_row_for_qdistr", "not ok %"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the run page lacks %q", want)
		}
	}
}

// TestEventsListed: the Events table lists ten events of a kind and counts
// the rest in one row, so that a pebble run's flush every second does not
// make a page of rows; kinds with fewer are listed whole.
func TestEventsListed(t *testing.T) {
	res := workloadtest.Run(t, insert.Spec, map[string]string{"units": "20"})
	for i := range 15 {
		res.Events = append(res.Events, result.Event{T: float64(i) / 10, Kind: result.EventFlush, Detail: fmt.Sprintf("flush number %d", i)})
	}
	res.Events = append(res.Events, result.Event{T: 1, Kind: result.EventCheckpoint, Detail: "the only checkpoint"})
	page := render(t, htmlreport.Page{Run: res})
	for _, want := range []string{"flush number 9", "the only checkpoint", "and 5 more (every one is in result.json"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the Events table lacks %q", want)
		}
	}
	if bytes.Contains(page, []byte("flush number 10")) {
		t.Error("the Events table lists an eleventh flush")
	}
}

// TestEventLinesMerge: events within a hundredth of the run's length of
// the first draw one line named for each kind once; one further off draws
// its own.
func TestEventLinesMerge(t *testing.T) {
	res := workloadtest.Run(t, insert.Spec, map[string]string{"units": "0", "duration": "2s"})
	end := res.Series[len(res.Series)-1].T
	res.Events = append(res.Events,
		result.Event{T: end / 2, Kind: result.EventCheckpoint},
		result.Event{T: end/2 + end/200, Kind: result.EventAutovacuum},
		result.Event{T: end/2 + end/200, Kind: result.EventAutovacuum},
		result.Event{T: end/2 + end/150, Kind: result.EventAutoanalyze},
		result.Event{T: end * 0.9, Kind: result.EventCheckpoint})
	page := render(t, htmlreport.Page{Run: res})
	if !bytes.Contains(page, []byte(`"name":"checkpoint · autovacuum · autoanalyze"`)) {
		t.Error("the three events in a hundredth of the run are not one line named for each kind")
	}
	if !bytes.Contains(page, []byte(`"name":"checkpoint","xAxis"`)) {
		t.Error("the checkpoint far from the others has no line of its own")
	}
}

// TestCapacityPage: a capacity search's page draws its steps' latencies
// and achieved rate against the offered rate, with the goal and the knee,
// tabulates the steps, and draws the series' offered rate beside the
// units done.
func TestCapacityPage(t *testing.T) {
	start := time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)
	res := &result.Result{
		Schema: result.Schema, ID: "tpcb-capacity", Status: result.Completed,
		Config:  result.Config{Workload: "tpcb", Unit: "transaction", UnitRate: "transactions/s", Backend: "postgres", DB: "postgres:managed", Clients: 16, SLO: []string{"p99<20ms"}, Arrivals: "uniform"},
		Engine:  result.Engine{Name: "postgres", Version: "15.14"},
		Summary: result.Summary{Metric: "transactions/s", Rate: 1200, OK: 96000, Seconds: 80, ChecksOK: true},
		Phases: []result.Phase{{Name: "measure", Start: start, End: start.Add(80 * time.Second), Seconds: 80, OK: 96000, Offered: 1250,
			All: result.Latency{Name: "all", Count: 96000, P50Us: 3000, P99Us: 40000}}},
		Capacity: &result.Capacity{SLO: []string{"p99<20ms"}, Arrivals: "uniform", StepSeconds: 20, SettleSeconds: 5, Resolution: 0.05, ProbeRate: 2000,
			Knee: 1406, Broke: 1500, Found: true, Why: "1406/s held and 1500/s broke, within 5 %"},
	}
	for i, s := range []struct {
		rate, p99 float64
		held      bool
	}{{1000, 8, true}, {1500, 45, false}, {1250, 12, true}, {1375, 16, true}, {1406, 19, true}} {
		st := result.CapacityStep{N: i + 1, Rate: s.rate, Offered: s.rate, Achieved: s.rate * 0.999, Seconds: 15, OK: int64(s.rate * 15), Held: s.held,
			Latency: result.Latency{Count: int64(s.rate * 15), P50Us: 2500, P99Us: int64(s.p99 * 1000), P999Us: int64(s.p99 * 1500)}}
		if !s.held {
			st.Broke = []string{"p99<20ms: measured 45.00 ms"}
		}
		res.Capacity.Steps = append(res.Capacity.Steps, st)
	}
	for i := 1; i <= 80; i++ {
		rate := res.Capacity.Steps[min((i-1)/20, 4)].Rate
		res.Series = append(res.Series, result.Second{T: float64(i), Dt: 1, Phase: "measure", OK: int64(rate), Offered: rate, P50Us: 2500, P99Us: 12000})
	}
	page := render(t, htmlreport.Page{Run: res})
	selfContained(t, "run-capacity", page)
	for _, want := range []string{"Capacity: 1406 transactions/s meets p99&lt;20ms", "capacity 1406/s", `"name":"offered"`, "broke: p99&lt;20ms: measured 45.00 ms", "Steps, in the order they ran", "p99 at capacity"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the capacity page lacks %q", want)
		}
	}
	browse(t, "run-capacity", page)
}
