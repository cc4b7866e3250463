package session_test

import (
	"math"
	"strings"
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestCapacitySearchFollowsItsRules: a capacity search on SQLite begins at
// half the warm-up's closed-loop rate, raises each step by CapacityRise
// until a step breaks, then bisects between the highest rate that held and
// the lowest that broke, and ends within its resolution; each step is
// judged on its seconds after the settling ones, and marked on the time
// line. Where it breaks depends on the machine; the rules do not.
func TestCapacitySearchFollowsItsRules(t *testing.T) {
	res := workloadtest.Run(t, spec(t, "kv"), map[string]string{
		"clients": "2", "records": "2000", "slo": "p99<1s\nerrors<1%", "step": "4s", "warmup": "2s", "resolution": "50%",
	})
	c := res.Capacity
	if c == nil || len(c.Steps) < 2 || c.ProbeRate <= 0 {
		t.Fatalf("capacity %+v: want a probe and two steps at least", c)
	}
	if res.Steady != nil {
		t.Fatalf("a search's measure phase judged for its level: %+v", res.Steady)
	}
	if c.StepSeconds != 4 || c.SettleSeconds != 1 || c.Resolution != 0.5 || strings.Join(c.SLO, ",") != "p99<1s,errors<1%" {
		t.Fatalf("the search's plan as recorded: %+v", c)
	}
	if c.Steps[0].Rate != c.ProbeRate/2 {
		t.Fatalf("first step %v/s, want half the probe's %v/s", c.Steps[0].Rate, c.ProbeRate)
	}
	knee, broke := 0.0, 0.0
	for i, st := range c.Steps {
		if i > 0 {
			want := c.Steps[i-1].Rate * session.CapacityRise
			if broke > 0 {
				want = (knee + broke) / 2
			}
			if math.Abs(st.Rate-want) > 1e-6*want {
				t.Fatalf("step %d at %v/s, want %v/s (held up to %v, broke from %v)", st.N, st.Rate, want, knee, broke)
			}
		}
		if st.Held {
			knee = max(knee, st.Rate)
		} else if broke == 0 || st.Rate < broke {
			broke = st.Rate
		}
		// A step is judged on its seconds after the first, and lengthened
		// by 4 s each time it held without holding level.
		if st.Held != (len(st.Broke) == 0) || st.Seconds < 2 || st.Seconds > 3.5+4*float64(st.Extended) || st.EndT-st.StartT < 3.9+4*float64(st.Extended) || st.Trend == nil {
			t.Fatalf("step %+v: judged on %.2f s of %.2f", st, st.Seconds, st.EndT-st.StartT)
		}
		if st.Held && math.Abs(st.Offered-st.Rate) > 0.02*st.Rate {
			t.Fatalf("step %d offered %v/s, planned %v/s", st.N, st.Offered, st.Rate)
		}
	}
	if !c.Found || c.Knee != knee || c.Broke != broke || broke > knee*1.5 {
		t.Fatalf("found %v: knee %v broke %v, want %v and %v within 50 %%: %s", c.Found, c.Knee, c.Broke, knee, broke, c.Why)
	}
	steps := 0
	for _, e := range res.Events {
		if e.Kind == result.EventCapacity {
			steps++
		}
	}
	if steps != len(c.Steps) {
		t.Fatalf("%d step events for %d steps", steps, len(c.Steps))
	}
}

// TestProfilePhases: each phase of a profile is summed apart, its offered
// rate the plan's, the series' seconds carrying it.
func TestProfilePhases(t *testing.T) {
	t.Parallel() // 100 and 300 units a second: it mostly waits
	res := workloadtest.Run(t, spec(t, "kv"), map[string]string{
		"clients": "2", "records": "2000", "profile": "constant 100/s 2s; constant 300/s 2s", "arrivals": "poisson",
	})
	p := res.Profile
	if p == nil || len(p.Phases) != 2 || res.Config.Arrivals != "poisson" || res.Config.Profile == "" {
		t.Fatalf("profile %+v, config %q %q", p, res.Config.Profile, res.Config.Arrivals)
	}
	for i, want := range []float64{100, 300} {
		ph := p.Phases[i]
		if math.Abs(ph.Offered-want) > 0.02*want || ph.OK == 0 || ph.Seconds < 1.9 {
			t.Fatalf("phase %d: %+v, want %v/s offered", i, ph, want)
		}
	}
	if res.Steady != nil {
		t.Fatalf("a profile that moves judged for its level: %+v", res.Steady)
	}
	m := res.Phase("measure")
	if m.Seconds < 3.9 || m.Offered <= 0 {
		t.Fatalf("the measure phase: %.2f s, offered %v/s; want the profile's 4 s", m.Seconds, m.Offered)
	}
	for _, s := range res.Series {
		if s.Phase == "measure" && !s.Partial && s.Offered <= 0 {
			t.Fatalf("second %+v has no offered rate", s)
		}
	}
}
