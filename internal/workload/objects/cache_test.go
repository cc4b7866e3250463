package objects

import "testing"

func TestLRU(t *testing.T) {
	c := NewLRU[int, string](3)
	for i := range 3 {
		c.Put(i, "v")
	}
	c.Get(0) // 1 is now the least recently used
	c.Put(3, "v")
	if _, ok := c.Get(1); ok {
		t.Fatal("1 should have been evicted")
	}
	for _, k := range []int{0, 2, 3} {
		if _, ok := c.Get(k); !ok {
			t.Fatalf("%d evicted", k)
		}
	}
	c.Put(2, "w")
	if v, _ := c.Get(2); v != "w" || c.Len() != 3 {
		t.Fatalf("replace: %q, len %d", v, c.Len())
	}
	c.Remove(2)
	if _, ok := c.Get(2); ok || c.Len() != 2 {
		t.Fatal("remove")
	}
	c.Clear()
	if _, ok := c.Get(0); ok || c.Len() != 0 {
		t.Fatal("clear")
	}
	c.Put(9, "x") // usable after Clear
	if _, ok := c.Get(9); !ok {
		t.Fatal("after clear")
	}
	h, m := c.Stats()
	if h == 0 || m == 0 {
		t.Fatalf("stats %d hits %d misses", h, m)
	}
	none := NewLRU[int, int](0)
	none.Put(1, 1)
	if _, ok := none.Get(1); ok {
		t.Fatal("a cache of 0 cached")
	}
}

func TestLRUChurn(t *testing.T) {
	c := NewLRU[int, int](100)
	for i := range 10_000 {
		c.Put(i%250, i)
		if i%3 == 0 {
			c.Get(i % 97)
		}
		if c.Len() > 100 {
			t.Fatalf("len %d over the capacity", c.Len())
		}
	}
	n := 0
	for e := c.head; e != nil; e = e.next {
		n++
	}
	if n != c.Len() {
		t.Fatalf("list of %d entries, map of %d", n, c.Len())
	}
}
