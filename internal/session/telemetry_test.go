package session_test

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/workload/workloadtest"
)

// TestPebbleEvents: pebble's memtable flushes and compactions, from its
// counters sampled every second, are events on the run's time line inside
// the run, and the seconds' engine side has their rates.
func TestPebbleEvents(t *testing.T) {
	res := workloadtest.Run(t, spec(t, "kv"), map[string]string{"db": "pebble", "records": "2000", "value-bytes": "1000", "mix": "update=100",
		"duration": "4s", "warmup": "0", "durability": "off", "set": "MemTableSize=256KB"})
	kinds := map[string]int{}
	end := res.Series[len(res.Series)-1].T
	for _, e := range res.Events {
		kinds[e.Kind]++
		if (e.Kind == result.EventFlush || e.Kind == result.EventCompaction) && (e.T <= 0 || e.T > end+1) {
			t.Errorf("%s at %.2f s, outside the run's %.2f s", e.Kind, e.T, end)
		}
	}
	if kinds[result.EventFlush] == 0 || kinds[result.EventCompaction] == 0 {
		t.Fatalf("events by kind %v: want flushes and compactions", kinds)
	}
	flushed := 0.0
	for _, s := range res.Series {
		flushed += s.Engine["memtable_flushes"]
	}
	if flushed == 0 {
		t.Fatalf("no second has pebble's memtable flushes, yet %d flush events", kinds[result.EventFlush])
	}
}
