package session_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/session"
)

// TestParseWarmup: a duration, auto (capped at AutoWarmupCap) or auto:MAX;
// anything else one line that says what to give.
func TestParseWarmup(t *testing.T) {
	for in, want := range map[string]struct {
		d    time.Duration
		auto bool
	}{
		"0": {0, false}, "30s": {30 * time.Second, false}, "auto": {session.AutoWarmupCap, true}, "auto:10m": {10 * time.Minute, true},
	} {
		d, auto, err := session.ParseWarmup(in)
		if err != nil || d != want.d || auto != want.auto {
			t.Errorf("%q: %v %v %v, want %v %v", in, d, auto, err, want.d, want.auto)
		}
	}
	for _, bad := range []string{"", "automatic", "auto:", "auto:0", "auto:-1s", "auto:soon", "-2s", "fast"} {
		if _, _, err := session.ParseWarmup(bad); err == nil || !strings.Contains(err.Error(), "--warmup auto:10m") {
			t.Errorf("%q: %v, want an error saying what to give", bad, err)
		}
	}
}
