package session

import "testing"

var sink *[64]byte

// TestHeapAllocsCounts: the harness's allocations per unit come from
// counters that see every allocation made between two readings.
func TestHeapAllocsCounts(t *testing.T) {
	const n = 1000
	o0, b0 := heapAllocs()
	for range n {
		sink = new([64]byte)
	}
	o1, b1 := heapAllocs()
	if o1-o0 < n || b1-b0 < n*64 {
		t.Fatalf("%d allocations of 64 bytes read as %d objects, %d bytes", n, o1-o0, b1-b0)
	}
}
