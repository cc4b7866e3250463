package hostinfo

import (
	"os"
	"strings"
	"testing"
)

// TestDiskBytes: the sectors read (6th field) and written (10th) of the
// device named, in bytes; a device not listed is an error naming it.
func TestDiskBytes(t *testing.T) {
	text := " 254       0 vda 120 3 4096 50 900 20 65536 700 0 800 750 0 0 0 0 10 5\n" +
		" 254       1 vda1 100 3 2048 40 800 20 32768 600 0 700 640 0 0 0 0 0 0\n"
	for dev, want := range map[string][2]int64{"vda": {4096 * 512, 65536 * 512}, "vda1": {2048 * 512, 32768 * 512}} {
		r, w, err := diskBytes(text, dev)
		if err != nil || r != want[0] || w != want[1] {
			t.Errorf("%s: %d %d %v, want %d %d", dev, r, w, err, want[0], want[1])
		}
	}
	if _, _, err := diskBytes(text, "sda"); err == nil || !strings.Contains(err.Error(), `"sda"`) {
		t.Fatalf("a device not listed: %v", err)
	}
}

// TestDiskBytesLive: every device this machine lists reads back, and its
// counters never go down.
func TestDiskBytesLive(t *testing.T) {
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
		r0, w0, err := DiskBytes(dev)
		if err != nil {
			t.Fatal(err)
		}
		r1, w1, err := DiskBytes(dev)
		if err != nil || r1 < r0 || w1 < w0 {
			t.Fatalf("%s: %d %d then %d %d (%v)", dev, r0, w0, r1, w1, err)
		}
	}
}
