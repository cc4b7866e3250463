package session

import (
	"testing"
	"time"
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
