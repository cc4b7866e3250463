package session

import (
	"runtime"
	"testing"
)

var sink *[64]byte

// TestHeapAllocsCounts: the harness's allocations per unit come from
// counters that see the allocations made between two readings. The
// runtime counts a small object when the span it came from leaves a P's
// cache, so a reading lags by the objects of the spans in use: at most one
// span of this size class (8 KiB of 64-byte objects: 128) on each P the
// loop ran on, the only tolerance, beside 10,000 allocations.
func TestHeapAllocsCounts(t *testing.T) {
	const n = 10_000
	lag := uint64(8192/64) * uint64(runtime.GOMAXPROCS(0))
	o0, b0 := heapAllocs()
	for range n {
		sink = new([64]byte)
	}
	o1, b1 := heapAllocs()
	if o1-o0 < n-lag || b1-b0 < (n-lag)*64 {
		t.Fatalf("%d allocations of 64 bytes read as %d objects, %d bytes (%d objects' lag allowed)", n, o1-o0, b1-b0, lag)
	}
}
