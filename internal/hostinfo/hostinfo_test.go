package hostinfo

import (
	"os"
	"strings"
	"testing"
)

// TestDiskStats: the requests and sectors (in bytes) read and written, the
// busy and weighted milliseconds of the device named; a device not listed
// is an error naming it.
func TestDiskStats(t *testing.T) {
	text := " 254       0 vda 120 3 4096 50 900 20 65536 700 0 800 750 0 0 0 0 10 5\n" +
		" 254       1 vda1 100 3 2048 40 800 20 32768 600 0 700 640 0 0 0 0 0 0\n"
	for dev, want := range map[string]Disk{
		"vda":  {Reads: 120, ReadBytes: 4096 * 512, Writes: 900, WrittenBytes: 65536 * 512, BusyMs: 800, WeightedMs: 750},
		"vda1": {Reads: 100, ReadBytes: 2048 * 512, Writes: 800, WrittenBytes: 32768 * 512, BusyMs: 700, WeightedMs: 640},
	} {
		got, err := diskStats(text, dev)
		if err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", dev, got, err, want)
		}
	}
	if _, err := diskStats(text, "sda"); err == nil || !strings.Contains(err.Error(), `"sda"`) {
		t.Fatalf("a device not listed: %v", err)
	}
}

// TestDiskStatsLive: every device this machine lists reads back, and its
// counters never go down.
func TestDiskStatsLive(t *testing.T) {
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) == 0 {
		t.Fatal("/proc/diskstats lists no device")
	}
	for _, line := range lines {
		dev := strings.Fields(line)[2]
		d0, err := DiskStats(dev)
		if err != nil {
			t.Fatal(err)
		}
		d1, err := DiskStats(dev)
		if err != nil || d1.ReadBytes < d0.ReadBytes || d1.WrittenBytes < d0.WrittenBytes || d1.BusyMs < d0.BusyMs {
			t.Fatalf("%s: %+v then %+v (%v)", dev, d0, d1, err)
		}
	}
}
