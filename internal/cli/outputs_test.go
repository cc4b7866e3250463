package cli

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
)

// syncBuffer is a bytes.Buffer safe for a run writing and a test reading.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// scrape reads url with Prometheus's own text-format parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the endpoint's text does not parse: %v", err)
	}
	return fams
}

// sample returns the value of the metric of family name whose labels are
// all of want (a counter, gauge, or a histogram's count), and whether there is one.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) (*dto.Metric, bool) {
	f := fams[name]
	if f == nil {
		return nil, false
	}
next:
	for _, m := range f.Metric {
		for k, v := range want {
			found := false
			for _, l := range m.Label {
				found = found || l.GetName() == k && l.GetValue() == v
			}
			if !found {
				continue next
			}
		}
		return m, true
	}
	return nil, false
}

// TestMetricsEndpoint: --metrics-addr serves the run while it goes,
// scraped with Prometheus's own text parser: the phase, the units by
// outcome, the latency histograms; at the end (--metrics-linger) its
// counters and histogram are result.json's. Asked for OpenMetrics, it
// answers OpenMetrics.
func TestMetricsEndpoint(t *testing.T) {
	dir := t.TempDir()
	var out, errs syncBuffer
	done, sig := make(chan int), make(chan os.Signal, 1)
	go func() {
		done <- Main(Env{Args: []string{"run", "insert", "-T", "3s", "--warmup", "1s", "-P", "0", "--ceiling", "off", "--results", dir,
			"--metrics-addr", "127.0.0.1:0", "--metrics-linger", "20s"}, Stdout: &out, Stderr: &errs, Signals: sig})
	}()
	addr := regexp.MustCompile(`OpenMetrics on (http://\S+/metrics)`)
	var url string
	for deadline := time.Now().Add(20 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(errs.String()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatalf("no endpoint said:\n%s", errs.String())
	}
	phase := func(fams map[string]*dto.MetricFamily, name string) bool {
		m, ok := sample(fams, "dbgauge_phase", map[string]string{"phase": name})
		return ok && m.GetGauge().GetValue() == 1
	}
	var live, final map[string]*dto.MetricFamily
	for deadline := time.Now().Add(60 * time.Second); final == nil && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		fams := scrape(t, url)
		switch {
		case phase(fams, "measure"):
			live = fams
		case phase(fams, "done"):
			final = fams
		}
	}
	if live == nil || final == nil {
		t.Fatalf("scraped the measure phase: %v, the end: %v\n%s", live != nil, final != nil, errs.String())
	}
	if m, ok := sample(live, "dbgauge_units_total", map[string]string{"phase": "measure", "outcome": "ok"}); !ok || m.GetCounter().GetValue() <= 0 {
		t.Errorf("during the measure phase, no ok units: %v", m)
	}
	if m, ok := sample(live, "dbgauge_latency_seconds", map[string]string{"phase": "measure", "kind": "all"}); !ok || m.GetHistogram().GetSampleCount() == 0 {
		t.Errorf("during the measure phase, no latency histogram: %v", m)
	}

	r := onlyResult(t, dir)
	for _, p := range r.Phases {
		for outcome, want := range map[string]int64{"ok": p.OK, "failed": p.Failed, "nothing": p.Nothing} {
			m, ok := sample(final, "dbgauge_units_total", map[string]string{"phase": p.Name, "outcome": outcome})
			if !ok || int64(m.GetCounter().GetValue()) != want {
				t.Errorf("%s %s: served %v, result.json %d", p.Name, outcome, m, want)
			}
		}
		m, ok := sample(final, "dbgauge_latency_seconds", map[string]string{"phase": p.Name, "kind": "all"})
		if !ok {
			t.Fatalf("%s: no latency histogram", p.Name)
		}
		h := m.GetHistogram()
		if int64(h.GetSampleCount()) != p.All.Count {
			t.Errorf("%s: histogram of %d units, result.json %d", p.Name, h.GetSampleCount(), p.All.Count)
		}
		for _, b := range h.Bucket {
			if b.GetUpperBound() >= float64(p.All.MaxUs)/1e6 && int64(b.GetCumulativeCount()) != p.All.Count {
				t.Errorf("%s: bucket %v above the maximum %d µs holds fewer than all", p.Name, b, p.All.MaxUs)
			}
		}
	}
	if _, ok := sample(final, "dbgauge_run_info", map[string]string{"workload": "insert", "result": r.ID}); !ok {
		t.Error("no dbgauge_run_info of the run")
	}

	req, _ := http.NewRequest("GET", url, nil)
	// What Prometheus asks for when it scrapes.
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/openmetrics-text") || !bytes.HasSuffix(body, []byte("# EOF\n")) {
		t.Errorf("asked for OpenMetrics, got %s:\n%.300s", resp.Header.Get("Content-Type"), body)
	}
	sig <- os.Interrupt // ends the linger; the run had completed
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
}

// validResult fails the test unless the result.json in dir validates
// against docs/result.schema.json.
func validResult(t *testing.T, dir string) {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile("../../docs/result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, result.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inst, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s does not validate against docs/result.schema.json: %v", f.Name(), err)
	}
}

// TestOutputFiles: series.csv is result.json's series, a row a point;
// latency.hlog, read back by hdrhistogram-go's log reader, holds as many
// units per phase as result.json, and the same maximum; and result.json
// validates against its JSON Schema, as one with errors, retries and a
// longer --interval does.
func TestOutputFiles(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runCLI(t, nil, "run", "insert", "-T", "2s", "--warmup", "1s", "-P", "0", "--ceiling", "off", "--results", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := onlyResult(t, dir)
	rdir := filepath.Join(dir, r.ID)
	validResult(t, rdir)
	other := t.TempDir()
	code, _, errs = runCLI(t, nil, "run", "kv", "--records", "200", "--mix", "read=50,update=50", "-c", "4", "-T", "2s", "--warmup", "0", "--interval", "2s",
		"--require", "p99<=1h", "--backup", "at=1s", "--ceiling", "off", "--results", other)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	validResult(t, filepath.Join(other, onlyResult(t, other).ID))

	f, err := os.Open(filepath.Join(rdir, session.SeriesFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var rows []string
	for sc.Scan() {
		rows = append(rows, sc.Text())
	}
	if len(rows) != len(r.Series)+1 || !strings.HasPrefix(rows[0], "t,dt,phase,partial,ok,rate,failed,") {
		t.Fatalf("series.csv has %d rows for %d points:\n%s", len(rows), len(r.Series), strings.Join(rows, "\n"))
	}
	for i, pt := range r.Series {
		cells := strings.Split(rows[i+1], ",")
		if cells[2] != pt.Phase || cells[4] != strconv.FormatInt(pt.OK, 10) {
			t.Errorf("row %d %q, point %+v", i+1, rows[i+1], pt)
		}
	}

	hf, err := os.Open(filepath.Join(rdir, session.LatencyLogFile))
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	lr := hdrhistogram.NewHistogramLogReader(hf)
	got := map[string]*hdrhistogram.Histogram{}
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if got[h.Tag()] == nil {
			got[h.Tag()] = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		}
		got[h.Tag()].Merge(h)
	}
	if len(got) != len(r.Phases) {
		t.Fatalf("latency.hlog has the phases %v, result.json %d", keys(got), len(r.Phases))
	}
	for _, p := range r.Phases {
		h := got[p.Name]
		if h == nil || h.TotalCount() != p.All.Count || h.Max() != p.All.MaxUs || h.ValueAtQuantile(99) != p.All.P99Us {
			t.Errorf("%s: latency.hlog %v units, max %v; result.json %d, max %d", p.Name, count(h), maxOf(h), p.All.Count, p.All.MaxUs)
		}
	}
}

func keys(m map[string]*hdrhistogram.Histogram) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func count(h *hdrhistogram.Histogram) int64 {
	if h == nil {
		return -1
	}
	return h.TotalCount()
}

func maxOf(h *hdrhistogram.Histogram) int64 {
	if h == nil {
		return -1
	}
	return h.Max()
}
