package merge

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// shardResult is shard i of n as a run writes it: c clients, a measure
// phase of 3 seconds whose units took the latencies lat (µs), its series,
// its checks; status completed.
func shardResult(i, n int, lat []int64) *result.Result {
	h := metrics.NewHistogram()
	for _, v := range lat {
		if err := h.RecordValue(v); err != nil {
			panic(err)
		}
	}
	all := metrics.Summarize("all", h, true)
	unit := metrics.Summarize("get", h, true)
	ok := int64(len(lat))
	start := t0.Add(time.Duration(i) * time.Millisecond) // they began within a few ms
	at := t0
	ended := start.Add(3 * time.Second)
	r := &result.Result{
		Schema: result.Schema, ID: fmt.Sprintf("shard-%d", i), Status: result.Completed,
		Started: start.Add(-time.Second), Ended: &ended,
		Config: result.Config{Workload: "kv", UnitRate: "records/s", Backend: "postgres", DB: "postgres://u:xxxxx@10.0.0.1/db",
			Clients: 2, Duration: result.Duration(3 * time.Second), Seed: 42, Interval: result.Duration(time.Second),
			Require: []string{"p99<=1ms"},
			Knobs:   result.Knobs{"clients": float64(2), "shard": fmt.Sprintf("%d/%d", i, n), "results": fmt.Sprintf("/m%d", i)}},
		Environment: result.Environment{Hostname: fmt.Sprintf("load%d", i)},
		Shard:       &result.Shard{Index: i, Count: n, FirstClient: 2 * i, RunClients: 2 * n, StartAt: &at, Clock: &result.Clock{Measured: true, OffsetUs: int64(-i * 1000)}},
		Phases: []result.Phase{{Name: "measure", Start: start, End: ended, Seconds: 3, OK: ok, Failed: int64(i), Rate: float64(ok) / 3,
			All: all, Units: []result.Latency{unit}, Failures: []result.Failure{{Class: "busy", Kind: "get", Count: int64(i), Samples: []string{"busy"}}}}},
		Checks: []result.Check{{Name: "records_match", OK: true}},
	}
	for s := 1; s <= 3; s++ {
		r.Series = append(r.Series, result.Second{T: float64(s), Dt: 1, Phase: "measure", OK: ok / 3, MaxUs: int64(100 * (i + 1))})
	}
	return r
}

func someLatencies(seed uint64, n int) []int64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]int64, n)
	for i := range out {
		out[i] = 50 + rng.Int64N(5000)
	}
	return out
}

func shards(rs ...*result.Result) []Shard {
	out := make([]Shard, len(rs))
	for i, r := range rs {
		out[i] = Shard{Dir: fmt.Sprintf("run/shard-%d", r.Shard.Index), Res: r}
	}
	return out
}

// TestMergeIsLossless: the merged unit count is the sum of the shards',
// and the merged histogram is the merge of theirs, every count.
func TestMergeIsLossless(t *testing.T) {
	var rs []*result.Result
	var every []int64
	for i := range 4 {
		lat := someLatencies(uint64(i), 300+100*i)
		every = append(every, lat...)
		rs = append(rs, shardResult(i, 4, lat))
	}
	out, err := Merge(shards(rs...), Options{ID: "merged"})
	if err != nil {
		t.Fatal(err)
	}
	m := out.Phase("measure")
	var sumOK, sumFailed int64
	for _, r := range rs {
		sumOK += r.Phases[0].OK
		sumFailed += r.Phases[0].Failed
	}
	if m.OK != sumOK || m.Failed != sumFailed || out.Summary.OK != sumOK || int64(len(every)) != sumOK {
		t.Fatalf("merged ok %d failed %d (summary %d); the shards' sum %d, %d", m.OK, m.Failed, out.Summary.OK, sumOK, sumFailed)
	}
	if out.Config.Clients != 8 || out.Merged.Partial || len(out.Merged.Shards) != 4 {
		t.Fatalf("clients %d, partial %v, %d shards; want 8, false, 4", out.Config.Clients, out.Merged.Partial, len(out.Merged.Shards))
	}
	// One histogram of every latency, as one process would have recorded them.
	whole := metrics.NewHistogram()
	for _, v := range every {
		_ = whole.RecordValue(v)
	}
	got, err := metrics.Decode(m.All)
	if err != nil {
		t.Fatal(err)
	}
	gb, wb := got.Distribution(), whole.Distribution()
	if len(gb) != len(wb) {
		t.Fatalf("%d buckets merged, %d in the whole", len(gb), len(wb))
	}
	for i := range gb {
		if gb[i] != wb[i] {
			t.Fatalf("bucket %d: merged %+v, whole %+v", i, gb[i], wb[i])
		}
	}
	if m.All.P99Us != whole.ValueAtQuantile(99) || m.Units[0].Count != sumOK {
		t.Fatalf("p99 %d, want %d; get count %d, want %d", m.All.P99Us, whole.ValueAtQuantile(99), m.Units[0].Count, sumOK)
	}
	if f := m.Failures; len(f) != 1 || f[0].Count != sumFailed {
		t.Fatalf("failures %+v; want one cause counting %d", f, sumFailed)
	}
	// The series: 3 seconds, each the sum of the shards'; the shards'
	// clocks 1 ms apart each way cancel out by the server's clock.
	if len(out.Series) != 3 {
		t.Fatalf("%d seconds merged, want 3: %+v", len(out.Series), out.Series)
	}
	for k, sec := range out.Series {
		var want int64
		for _, r := range rs {
			want += r.Series[k].OK
		}
		if sec.OK != want || sec.T != float64(k+1) {
			t.Fatalf("second %d: t %g ok %d; want t %d, ok %d (the shards' sum)", k, sec.T, sec.OK, k+1, want)
		}
	}
	if out.Series[2].MaxUs != 400 {
		t.Fatalf("second 3's max %d µs, want the largest shard's, 400", out.Series[2].MaxUs)
	}
	if len(out.Verdicts) != 1 || out.Summary.Pass == nil || *out.Summary.Pass != (whole.ValueAtQuantile(99) <= 1000) {
		t.Fatalf("verdicts %+v: p99<=1ms not judged on the whole", out.Verdicts)
	}
	if out.Merged.StartSpreadSeconds > 1e-6 || !out.Merged.ClockCorrected {
		t.Fatalf("start spread %g s (corrected %v); the offsets make it 0", out.Merged.StartSpreadSeconds, out.Merged.ClockCorrected)
	}
	if _, there := out.Config.Knobs["shard"]; there {
		t.Fatal("the merged config keeps --shard")
	}
	if out.Merged.Apart != "" {
		t.Fatalf("shards that began together are said apart: %q", out.Merged.Apart)
	}
}

// TestLateShard: a shard whose measure phase began well after the others'
// (it was not ready at --start-at) makes the merged result say so.
func TestLateShard(t *testing.T) {
	var rs []*result.Result
	for i := range 3 {
		rs = append(rs, shardResult(i, 3, someLatencies(uint64(i), 100)))
	}
	late := rs[2].Phases[0]
	late.Start = late.Start.Add(400 * time.Millisecond) // 13 % of its 3 s
	late.End = late.End.Add(400 * time.Millisecond)
	rs[2].Phases[0] = late
	rs[2].Shard.LateSeconds = 0.4
	out, err := Merge(shards(rs...), Options{ID: "merged"})
	if err != nil {
		t.Fatal(err)
	}
	if s := out.Merged.StartSpreadSeconds; s < 0.39 || s > 0.41 {
		t.Fatalf("start spread %g s, want 0.4", s)
	}
	if a := out.Merged.Apart; !strings.Contains(a, "began 0.400 s apart, 13.3 %") || !strings.Contains(a, "--start-at") {
		t.Fatalf("a shard 0.4 s late in a 3 s phase is said %q", a)
	}
}

// TestKilledShard: a shard that died mid-run is named, and the rest are
// merged only with Partial, into a result marked partial.
func TestKilledShard(t *testing.T) {
	rs := []*result.Result{shardResult(0, 3, someLatencies(1, 100)), shardResult(1, 3, someLatencies(2, 100)), shardResult(2, 3, someLatencies(3, 100))}
	rs[1].Status, rs[1].Ended, rs[1].Phases = result.Running, nil, nil // kill -9 before its measure phase was written
	_, err := Merge(shards(rs...), Options{ID: "merged"})
	var bad *knob.Error
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "shard 1 (run/shard-1) incomplete") || !strings.Contains(err.Error(), "--partial") {
		t.Fatalf("merge without --partial: %v; want bad input naming shard 1 and --partial", err)
	}
	out, err := Merge(shards(rs...), Options{ID: "merged", Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Merged.Partial || len(out.Merged.Shards) != 2 || out.Summary.OK != 200 || out.Config.Clients != 4 || !strings.HasPrefix(out.Reason, "partial") {
		t.Fatalf("partial %v, %d shards, ok %d, clients %d, reason %q; want true, 2, 200, 4, partial…",
			out.Merged.Partial, len(out.Merged.Shards), out.Summary.OK, out.Config.Clients, out.Reason)
	}
	// A shard not given at all is named too.
	_, err = Merge(shards(rs[0], rs[2]), Options{ID: "merged"})
	if err == nil || !strings.Contains(err.Error(), "shard 1 of 3 missing") {
		t.Fatalf("merge of shards 0 and 2 of 3: %v; want shard 1 named missing", err)
	}
}

// TestRefusesOtherRuns: shards of different configurations or of runs at
// other times are refused, naming what differs.
func TestRefusesOtherRuns(t *testing.T) {
	a, b := shardResult(0, 2, someLatencies(1, 10)), shardResult(1, 2, someLatencies(2, 10))
	b.Config.Duration = result.Duration(time.Minute)
	if _, err := Merge(shards(a, b), Options{}); err == nil || !strings.Contains(err.Error(), "differ in duration") {
		t.Fatalf("different durations: %v", err)
	}
	b = shardResult(1, 2, someLatencies(2, 10))
	for i := range b.Phases {
		b.Phases[i].Start = b.Phases[i].Start.Add(time.Hour)
		b.Phases[i].End = b.Phases[i].End.Add(time.Hour)
	}
	if _, err := Merge(shards(a, b), Options{}); err == nil || !strings.Contains(err.Error(), "different runs") {
		t.Fatalf("an hour apart: %v", err)
	}
	c := shardResult(1, 3, someLatencies(2, 10))
	if _, err := Merge(shards(a, c), Options{}); err == nil || !strings.Contains(err.Error(), "different runs") {
		t.Fatalf("1 of 3 with 0 of 2: %v", err)
	}
	if _, err := Merge(shards(a, a), Options{}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Fatalf("shard 0 twice: %v", err)
	}
}

// TestFiguresOfTheWhole: a workload's own figures are made again for the
// whole from what each says it is made of, and judged again.
func TestFiguresOfTheWhole(t *testing.T) {
	var rs []*result.Result
	for i := range 2 {
		r := shardResult(i, 2, someLatencies(uint64(i), 600))
		m := r.Phases[0]
		perMin := float64(m.Units[0].Count) / (m.Seconds / 60)
		pass, fail := true, false
		r.Summary.Figures = []result.Figure{
			{Name: "gets per minute", Value: perMin, Unit: "gets/min", Kinds: []string{"get"}},
			{Name: "efficiency", Value: 100 * perMin / 50000, Unit: "%", Kinds: []string{"get"}, Of: 50000},
			{Name: "get p90", Value: float64(m.Units[0].P90Us) / 1000, Unit: "ms", P90Of: "get", Limit: 4.2, Pass: &pass},
			{Name: "skipped", Value: 0, Unit: "%", Part: int64(3 * i), Whole: 100, Limit: 1, Pass: &fail,
				Detail: "skipped"},
			{Name: "anomalies", Value: 7, Unit: "cycles"}, // says nothing of how it is made
			{Name: "share", Unit: "%", NA: "no ceiling in this run"},
		}
		rs = append(rs, r)
	}
	out, err := Merge(shards(rs...), Options{ID: "merged"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]result.Figure{}
	for _, f := range out.Summary.Figures {
		got[f.Name] = f
	}
	if len(got) != 5 {
		t.Fatalf("figures %+v; want five (the one made of nothing said left out)", out.Summary.Figures)
	}
	if f := got["share"]; f.Said() != "n/a: no ceiling in this run" || f.Value != 0 {
		t.Fatalf("share %+v; want n/a in the whole as in each shard (TPC-C's efficiency without --wait)", f)
	}
	m := out.Phase("measure")
	sum := rs[0].Summary.Figures[0].Value + rs[1].Summary.Figures[0].Value
	if f := got["gets per minute"]; f.Value != sum {
		t.Fatalf("gets per minute %g, want the shards' sum %g", f.Value, sum)
	}
	if f := got["efficiency"]; f.Value < 100*sum/50000-1e-9 || f.Value > 100*sum/50000+1e-9 {
		t.Fatalf("efficiency %g %%, want %g", f.Value, 100*sum/50000)
	}
	p90 := float64(m.Units[0].P90Us) / 1000
	if f := got["get p90"]; f.Value != p90 || f.Pass == nil || *f.Pass != (p90 <= 4.2) {
		t.Fatalf("get p90 %+v; want %g ms from the merged histogram, judged against 4.2", f, p90)
	}
	if f := got["skipped"]; f.Part != 3 || f.Whole != 200 || f.Value != 1.5 || f.Pass == nil || *f.Pass || f.Said() != "3 of 200: skipped" {
		t.Fatalf("skipped %+v; want 3 of 200 = 1.5 %%, over its 1 %% limit", f)
	}
}
