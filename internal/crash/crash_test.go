package crash

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/ledger"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// TestLedgerAndCompare: a child's ledger lines, read back, then compared with
// what a database holds.
func TestLedgerAndCompare(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	l := ledger.NewPipe(w)
	for id := int64(1); id <= 10; id++ {
		l.Mark(workload.Committing, []int64{id})
		if id <= 8 {
			l.Mark(workload.Acked, []int64{id})
		}
	}
	l.Mark(workload.Committing, []int64{11, 12})
	_ = w.Close()
	bk := ledger.New()
	if err := bk.Read(r); err != nil {
		t.Fatal(err)
	}
	if acked, unknown := bk.Counts(); acked != 8 || unknown != 4 {
		t.Fatalf("acked %d, in flight %d", acked, unknown)
	}
	select {
	case <-bk.First():
	default:
		t.Error("the first acknowledgement was not signalled")
	}
	// The database lost 3 and 7, kept 9 of the unknown, and holds 99 nobody wrote.
	present := map[int64]bool{1: true, 2: true, 4: true, 5: true, 6: true, 8: true, 9: true, 99: true}
	var cy result.CrashCycle
	compare(bk, present, &cy)
	if cy.Lost != 2 || !slices.Equal(cy.LostSample, []int64{3, 7}) || cy.UnknownSurvived != 1 || cy.Phantom != 1 {
		t.Errorf("%+v", cy)
	}
	cfg := &result.CrashConfig{Key: "durability=lazy", Cycles: []result.CrashCycle{
		{Started: true, Acknowledged: 100, Lost: 0, Unknown: 1, IntegrityOK: true},
		{Started: true, Acknowledged: 120, Lost: 12, Unknown: 1, IntegrityOK: true},
		{Started: false, Error: "the database did not open again: file is not a database"},
	}}
	s := Summarize(cfg)
	for _, want := range []string{"lost up to 12 acknowledged commits in 1 of 2 cycles", "DID NOT OPEN AGAIN in 1 cycles", "100–120 acknowledged"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary %q lacks %q", s, want)
		}
	}
}

func TestFaultMomentsAreSeeded(t *testing.T) {
	a := &Controller{Seed: 7, After: [2]time.Duration{time.Second, 3 * time.Second}}
	b := &Controller{Seed: 7, After: a.After}
	c := &Controller{Seed: 8, After: a.After}
	same := true
	for n := 1; n <= 5; n++ {
		if a.faultAt(0, n) != b.faultAt(0, n) {
			t.Fatal("the same seed gave another moment")
		}
		if at := a.faultAt(0, n); at < time.Second || at > 3*time.Second {
			t.Errorf("moment %v outside the window", at)
		}
		same = same && a.faultAt(0, n) == c.faultAt(0, n)
	}
	if same {
		t.Error("another seed gave the same moments")
	}
	// Moments spread over the window (PCG's first draws for nearby streams
	// did not, before the seeds were scrambled).
	lo, hi := 3*time.Second, time.Duration(0)
	for ci := 0; ci < 2; ci++ {
		for n := 1; n <= 5; n++ {
			at := a.faultAt(ci, n)
			lo, hi = min(lo, at), max(hi, at)
		}
	}
	if hi-lo < 600*time.Millisecond {
		t.Errorf("ten moments within %v of each other in a 2 s window", hi-lo)
	}
}

// TestJudge: a configuration is held to what its engine's documentation
// promises for the fault. Losses where none may happen, or a broken
// database, are NOT as documented; where losses are allowed, any count is.
func TestJudge(t *testing.T) {
	keeps := &backend.Promise{Crash: true, Power: true, Doc: "flushed at every commit"}
	crashOnly := &backend.Promise{Crash: true, Doc: "written to the OS at commit"}
	cfg := func(lost int64, integrity bool) *result.CrashConfig {
		return &result.CrashConfig{Key: "durability=x", Cycles: []result.CrashCycle{
			{N: 1, Started: true, IntegrityOK: true}, {N: 2, Started: true, Lost: lost, IntegrityOK: integrity},
			{N: 3, Harness: true, Lost: 99}, // dbgauge's failure: not the engine's
		}}
	}
	for _, c := range []struct {
		p     *backend.Promise
		power bool
		cfg   *result.CrashConfig
		want  string
	}{
		{keeps, true, cfg(0, true), "as documented (nothing"},
		{keeps, true, cfg(3, true), "NOT as documented: durability=x keeps every acknowledged commit through a power loss (flushed at every commit), yet 3 were lost in 1 cycles"},
		{keeps, false, cfg(0, false), "NOT as documented: durability=x keeps the database whole through a crash"},
		{keeps, false, &result.CrashConfig{Cycles: []result.CrashCycle{{N: 1, Error: "did not open"}}}, "NOT as documented"},
		{keeps, false, &result.CrashConfig{Cycles: []result.CrashCycle{{N: 1, Harness: true}}}, ""},
		{crashOnly, false, cfg(2, true), "NOT as documented"},
		{crashOnly, true, cfg(2, true), "as documented (a power loss may lose"},
		{crashOnly, true, cfg(0, false), "as documented (a power loss may lose"},
		{nil, true, cfg(5, true), ""},
	} {
		_, got := Judge(c.p, c.power, c.cfg)
		if !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") {
			t.Errorf("promise %+v, power %v: verdict %q, want %q…", c.p, c.power, got, c.want)
		}
	}
}

// TestTally: each configuration that broke its promise, or failed a check
// that holds whatever the promise, is named with its figures; a loss the
// documentation allows is not; a cycle that could not be run is named apart.
func TestTally(t *testing.T) {
	keeps := &backend.Promise{Crash: true, Power: true, Doc: "flushed at every commit"}
	crashOnly := &backend.Promise{Crash: true, Doc: "written to the OS at commit"}
	rec := &result.Crash{Configs: []result.CrashConfig{
		{Key: "durability=sync", Cycles: []result.CrashCycle{
			{N: 1, Started: true, IntegrityOK: true, Lost: 3},
			{N: 2, Started: true, IntegrityOK: true, Lost: 4},
			{N: 3, Harness: true, Error: "the run ended before its first commit"},
		}},
		{Key: "durability=lazy", Cycles: []result.CrashCycle{ // loses what a power loss may take
			{N: 1, Started: true, IntegrityOK: true, Lost: 50},
			{N: 2, Started: true, IntegrityOK: false, Integrity: "page 3: btree corrupt"},
		}},
		{Key: "durability=off", Cycles: []result.CrashCycle{{N: 1, Started: true, IntegrityOK: true, Phantom: 2}}},
		{Key: "durability=x", Cycles: []result.CrashCycle{{N: 1, Started: true, IntegrityOK: true}}},
	}}
	for i, p := range []*backend.Promise{keeps, crashOnly, crashOnly, keeps} {
		cfg := &rec.Configs[i]
		cfg.Promise, cfg.Verdict = Judge(p, true, cfg)
	}
	o := Tally(rec)
	if o.Cycles != 7 || !slices.Equal(o.NotRun, []string{"durability=sync cycle 3: the run ended before its first commit"}) {
		t.Errorf("cycles %d, not run %q", o.Cycles, o.NotRun)
	}
	if !slices.Equal(o.NotDocumented, []string{"durability=sync: 7 acknowledged commits lost in 2 of 2 cycles"}) {
		t.Errorf("NOT as documented: %q", o.NotDocumented)
	}
	want := []string{"durability=lazy: integrity check failed in 1 of 2 cycles", "durability=off: 2 rows present that no commit made, in 1 of 1 cycles"}
	if !slices.Equal(o.Failed, want) {
		t.Errorf("failed: %q, want %q", o.Failed, want)
	}
	if s := Summarize(&rec.Configs[2]); !strings.Contains(s, "2 rows present that no commit made, in 1 cycles") {
		t.Errorf("summary %q does not name the phantoms", s)
	}
	none := &result.CrashConfig{Key: "durability=sync", Cycles: []result.CrashCycle{{N: 1, Harness: true}, {N: 2, Harness: true}}}
	if s := Summarize(none); !strings.HasPrefix(s, "durability=sync: no cycle ran; 2 cycles could not be run") {
		t.Errorf("summary of cycles that never ran: %q", s)
	}
}
