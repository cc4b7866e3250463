package kv

import (
	"sync"
	"sync/atomic"
)

// keyspace hands out the numbers of inserted records and knows which
// records a read may expect: YCSB's AcknowledgedCounterGenerator, made exact.
// Records 0 … records-1 are loaded; inserts take the numbers after them.
// limit is the first number not yet settled: every number below it was
// either acknowledged (the record must exist) or is a hole (its insert
// rolled back, or its commit's outcome is unknown), so reads choose below
// limit and skip holes. It is safe for concurrent use.
type keyspace struct {
	records int64
	next    atomic.Int64 // the next number to insert
	limit   atomic.Int64
	nHoles  atomic.Int64

	mu    sync.RWMutex
	ahead map[int64]bool     // numbers settled beyond limit
	holes map[int64]struct{} // numbers below next without a record for sure
}

// newKeyspace returns a keyspace whose numbers below next are settled, the
// holes among them missing.
func newKeyspace(records, next int64, holes []int64) *keyspace {
	k := &keyspace{records: records, ahead: map[int64]bool{}, holes: map[int64]struct{}{}}
	k.next.Store(next)
	k.limit.Store(next)
	for _, h := range holes {
		k.holes[h] = struct{}{}
	}
	k.nHoles.Store(int64(len(holes)))
	return k
}

// take returns a fresh number for an insert; the caller settles it.
func (k *keyspace) take() int64 { return k.next.Add(1) - 1 }

// settle says what became of insert n: exists when its commit was
// acknowledged. Every number taken must be settled once.
func (k *keyspace) settle(n int64, exists bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !exists {
		k.holes[n] = struct{}{}
		k.nHoles.Add(1)
	}
	l := k.limit.Load()
	if n != l {
		k.ahead[n] = true
		return
	}
	for l++; k.ahead[l]; l++ {
		delete(k.ahead, l)
	}
	k.limit.Store(l)
}

// readable returns the bound below which every number is settled.
func (k *keyspace) readable() int64 { return k.limit.Load() }

// hole reports whether record n may be missing.
func (k *keyspace) hole(n int64) bool {
	if n < k.records || k.nHoles.Load() == 0 {
		return false
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	_, ok := k.holes[n]
	return ok
}
