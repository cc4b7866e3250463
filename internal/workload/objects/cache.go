package objects

import "sync"

// LRU is a least-recently-used cache of at most Cap entries. It is not safe
// for concurrent use: each client owns its object cache, as each ZODB
// connection owns its pickle cache.
type LRU[K comparable, V any] struct {
	cap        int
	m          map[K]*entry[K, V]
	head, tail *entry[K, V] // head: most recently used
	hits, miss int64
}

type entry[K comparable, V any] struct {
	k          K
	v          V
	prev, next *entry[K, V]
}

// NewLRU returns a cache of at most n entries; n ≤ 0 caches nothing.
func NewLRU[K comparable, V any](n int) *LRU[K, V] {
	return &LRU[K, V]{cap: n, m: make(map[K]*entry[K, V], min(max(n, 0), 1<<16))}
}

// Len returns the number of entries.
func (c *LRU[K, V]) Len() int { return len(c.m) }

// Stats returns the hits and misses of Get.
func (c *LRU[K, V]) Stats() (hits, misses int64) { return c.hits, c.miss }

// Get returns k's value and makes it the most recently used.
func (c *LRU[K, V]) Get(k K) (V, bool) {
	e, ok := c.m[k]
	if !ok {
		c.miss++
		var zero V
		return zero, false
	}
	c.hits++
	c.front(e)
	return e.v, true
}

// Put stores k=v, evicting the least recently used entry when full.
func (c *LRU[K, V]) Put(k K, v V) {
	if c.cap <= 0 {
		return
	}
	if e, ok := c.m[k]; ok {
		e.v = v
		c.front(e)
		return
	}
	if len(c.m) >= c.cap {
		old := c.tail
		c.unlink(old)
		delete(c.m, old.k)
	}
	e := &entry[K, V]{k: k, v: v}
	c.m[k] = e
	c.front(e)
}

// Remove drops k (an invalidation).
func (c *LRU[K, V]) Remove(k K) {
	if e, ok := c.m[k]; ok {
		c.unlink(e)
		delete(c.m, k)
	}
}

// Clear drops every entry (ZODB's cacheMinimize, zodbshootout's "hot").
func (c *LRU[K, V]) Clear() {
	clear(c.m)
	c.head, c.tail = nil, nil
}

func (c *LRU[K, V]) front(e *entry[K, V]) {
	if c.head == e {
		return
	}
	if e.prev != nil || e.next != nil || c.tail == e {
		c.unlink(e)
	}
	e.next = c.head
	if c.head != nil {
		c.head.prev = e
	}
	c.head = e
	if c.tail == nil {
		c.tail = e
	}
}

func (c *LRU[K, V]) unlink(e *entry[K, V]) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		c.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		c.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

// records is the process-wide cache of serialized records every client
// shares: the second level under the object caches, like ZEO's client cache
// or RelStorage's local cache. A hit saves the round trip, not the decoding.
// It is safe for concurrent use.
type records struct {
	mu  sync.Mutex
	lru *LRU[uint64, []byte]
}

func newRecords(n int) *records { return &records{lru: NewLRU[uint64, []byte](n)} }

func (r *records) get(oid uint64) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lru.Get(oid)
}

// put stores a record; b must not change afterwards.
func (r *records) put(oid uint64, b []byte) {
	r.mu.Lock()
	r.lru.Put(oid, b)
	r.mu.Unlock()
}

func (r *records) stats() (int64, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lru.Stats()
}
