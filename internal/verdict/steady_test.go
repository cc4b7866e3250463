package verdict

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// run is a result whose measure phase is n seconds of rate ok(i) and p99
// p99(i), after 10 warm-up seconds of a quite different rate.
func run(n int, ok func(i int) float64, p99 func(i int) float64) *result.Result {
	r := &result.Result{Phases: []result.Phase{{Name: "warmup"}, {Name: "measure"}}}
	for i := range 10 {
		r.Series = append(r.Series, result.Second{T: float64(i + 1), Dt: 1, Phase: "warmup", OK: 10, P99Us: 90000})
	}
	for i := range n {
		r.Series = append(r.Series, result.Second{T: float64(11 + i), Dt: 1, Phase: "measure", OK: int64(ok(i)), P99Us: int64(p99(i))})
	}
	return r
}

func noisy(seed uint64, m, sd float64) func(int) float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	return func(int) float64 { return m + rng.NormFloat64()*sd }
}

func plus(f, g func(int) float64) func(int) float64 {
	return func(i int) float64 { return f(i) + g(i) }
}

func TestSteady(t *testing.T) {
	for _, c := range []struct {
		name          string
		r             *result.Result
		verdict, rate string // want
		why           string // a part of Why
	}{
		{"level", run(120, noisy(1, 10000, 200), noisy(2, 2000, 40)), result.Level, result.Level, "within ±5 %"},
		{"rate falls 20 %", run(600, plus(func(i int) float64 { return 10000 - 3.33*float64(i) }, noisy(3, 0, 100)), noisy(4, 2000, 40)),
			result.NotSteady, result.Falling, "the rate fell: -20"},
		{"p99 rises, rate level", run(300, noisy(5, 10000, 100), func(i int) float64 { return 2000 + 3*float64(i) }),
			result.NotSteady, result.Level, "p99 rose: +"},
		{"too short", run(12, noisy(6, 10000, 100), noisy(7, 2000, 10)), result.CannotTell, "", "too short to tell: 12 whole seconds measured (15 needed)"},
		{"too noisy", run(30, noisy(8, 10000, 4000), noisy(9, 2000, 10)), result.CannotTell, result.Unclear, "an interval reaches beyond ±5 %"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := Steady(c.r)
			if st == nil {
				t.Fatal("no verdict")
			}
			rate := ""
			if st.Rate != nil {
				rate = st.Rate.Trend
			}
			if st.Verdict != c.verdict || rate != c.rate || !strings.Contains(st.Why, c.why) {
				t.Fatalf("%s, rate %q: %s; want %s, rate %q, why with %q", st.Verdict, rate, st.Why, c.verdict, c.rate, c.why)
			}
			if st.Seconds != float64(len(c.r.Series)-10) {
				t.Fatalf("judged %v s, want the measure phase's %d (the warm-up left out)", st.Seconds, len(c.r.Series)-10)
			}
		})
	}
	if st := Steady(&result.Result{}); st != nil {
		t.Fatalf("no measure phase: %+v, want nil", st)
	}
	// A measure phase of one partial interval (a few units): too short.
	short := &result.Result{Phases: []result.Phase{{Name: "measure"}},
		Series: []result.Second{{T: 0.01, Dt: 0.01, Phase: "measure", Partial: true, OK: 30}}}
	if st := Steady(short); st == nil || st.Verdict != result.CannotTell || !strings.Contains(st.Why, "too short to tell: 0 whole seconds") {
		t.Fatalf("a measure phase of one partial interval: %+v", st)
	}
}

// TestSteadyLeavesOutPartialSeconds: a partial interval's count is no rate.
func TestSteadyLeavesOutPartialSeconds(t *testing.T) {
	r := run(60, noisy(1, 10000, 100), noisy(2, 2000, 20))
	r.Series = append(r.Series, result.Second{T: 71.003, Dt: 0.003, Phase: "measure", Partial: true, OK: 5, P99Us: 2000})
	if st := Steady(r); st.Verdict != result.Level || st.Seconds != 60 {
		t.Fatalf("%s over %v s: %s; want steady over 60 s", st.Verdict, st.Seconds, st.Why)
	}
}

// TestRequireSteady: --require steady holds only when the verdict is steady.
func TestRequireSteady(t *testing.T) {
	req, err := Parse(" steady ", "calls/s")
	if err != nil {
		t.Fatal(err)
	}
	level := run(120, noisy(1, 10000, 200), noisy(2, 2000, 40))
	level.Steady = Steady(level)
	falling := run(600, func(i int) float64 { return 10000 - 5*float64(i) }, noisy(4, 2000, 40))
	falling.Steady = Steady(falling)
	if v := Judge(req, level); !v.OK || v.Got != 1 {
		t.Fatalf("steady run: %+v", v)
	}
	if v := Judge(req, falling); v.OK || v.Got != 0 || !strings.HasPrefix(v.Detail, "not steady: the rate fell") {
		t.Fatalf("falling run: %+v", v)
	}
	if v := Judge(req, &result.Result{}); v.OK {
		t.Fatalf("no verdict: %+v", v)
	}
}
