package session

import (
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/metrics"
	"github.com/dbgauge/dbgauge/internal/result"
)

// TestProbeRate: the probe is the rate of the warm-up's later half by
// count, whatever the jitter of its intervals' edges: two intervals, the
// second a little longer than the first, give the second's.
func TestProbeRate(t *testing.T) {
	t0 := time.Now()
	ivs := []warmSecond{
		{t0, t0.Add(1000900 * time.Microsecond), 80_000},
		{t0.Add(1000900 * time.Microsecond), t0.Add(2003500 * time.Microsecond), 90_000},
	}
	if got, want := probeRate(ivs), 90_000/1.0026; got < want*0.999 || got > want*1.001 {
		t.Fatalf("probe %v/s, want the second interval's %v/s", got, want)
	}
	if got := probeRate(ivs[:1]); got <= 0 {
		t.Fatalf("probe %v/s of one interval", got)
	}
	if got := probeRate(nil); got != 0 {
		t.Fatalf("probe %v/s of no interval", got)
	}
}

// TestCapacityStepExtends: a step that held but whose rate kept falling
// over its judged seconds runs longer, at the same rate, at most
// CapacityExtensions times; then it is recorded with its trend and the
// times it was lengthened, and the search goes on.
func TestCapacityStepExtends(t *testing.T) {
	c := &capacitySearch{
		plan: &capacityPlan{step: 20 * time.Second, settle: 5 * time.Second, resolution: 0.05},
		s:    &session{}, rec: &result.Capacity{}, rate: 1000, start: time.Now(),
	}
	falling := func() {
		c.hist = metrics.NewHistogram()
		_ = c.hist.RecordValue(2000)
		c.secs, c.sum, c.offered, c.allOffered = nil, result.CapacityStep{Dropped: c.sum.Dropped}, 0, 0
		for i := range 30 { // 1000/s falling to 700/s: a trend well beyond ±5 %
			ok := int64(1000 - 10*i)
			c.secs = append(c.secs, result.Second{T: float64(i + 1), Dt: 1, Phase: "measure", OK: ok, P99Us: 2000})
			c.sum.OK += ok
			c.sum.Seconds++
			c.offered += 1000
			c.allOffered += 1000
		}
	}
	for ext := 1; ext <= CapacityExtensions; ext++ {
		falling()
		rate, ok := c.decide(0, time.Now())
		if !ok || rate != 1000 || !c.extending || c.ext != ext || len(c.rec.Steps) != 0 {
			t.Fatalf("extension %d: rate %v ok %v extending %v ext %d steps %d", ext, rate, ok, c.extending, c.ext, len(c.rec.Steps))
		}
		c.extending = false
	}
	falling()
	rate, ok := c.decide(0, time.Now())
	if !ok || len(c.rec.Steps) != 1 || rate != 1000*CapacityRise {
		t.Fatalf("after %d extensions: rate %v ok %v steps %d, want the step recorded and the next rate", CapacityExtensions, rate, ok, len(c.rec.Steps))
	}
	st := c.rec.Steps[0]
	if st.Extended != CapacityExtensions || st.Trend == nil || st.Trend.Verdict != result.NotSteady || !st.Held {
		t.Fatalf("step %+v: want it held, not steady, lengthened %d times", st, CapacityExtensions)
	}
}
