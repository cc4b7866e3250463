package kv

import (
	"encoding/binary"
	"hash/fnv"
	"testing"

	"github.com/dbgauge/dbgauge/internal/workload"
)

const draws = 200_000

// counts draws from ch over n records, failing on a draw out of range.
func counts(t *testing.T, ch chooser, n int64, seed uint64) []int {
	t.Helper()
	r := workload.NewRand(seed, 7)
	c := make([]int, n)
	for range draws {
		v := ch.next(r, n)
		if v < 0 || v >= n {
			t.Fatalf("%T drew %d, outside 0..%d", ch, v, n-1)
		}
		c[v]++
	}
	return c
}

func hottest(c []int) (int, float64) {
	best := 0
	for i, v := range c {
		if v > c[best] {
			best = i
		}
	}
	return best, float64(c[best]) / draws
}

func TestFNVIsYCSBs(t *testing.T) {
	// YCSB's fnvhash64 is FNV-1a over the long's bytes, low byte first.
	for _, n := range []uint64{0, 1, 255, 256, 1 << 40, 1<<63 + 12345} {
		h := fnv.New64a()
		_ = binary.Write(h, binary.LittleEndian, n)
		if got, want := fnv64(n), h.Sum64(); got != want {
			t.Errorf("fnv64(%d) = %x, want %x", n, got, want)
		}
	}
	seen := make(map[uint64]struct{}, 1<<20)
	for n := range uint64(1 << 20) {
		h := fnv64(n)
		if _, dup := seen[h]; dup {
			t.Fatalf("records below %d collide at %d", 1<<20, n)
		}
		seen[h] = struct{}{}
	}
}

func TestZipfianSkew(t *testing.T) {
	const n = 1000
	z := newZipfian(n, zipfTheta, zeta(0, n, zipfTheta, 0))
	r := workload.NewRand(1, 2)
	var zero int
	for range draws {
		v := z.next(r)
		if v < 0 || v >= n {
			t.Fatalf("zipfian drew %d", v)
		}
		if v == 0 {
			zero++
		}
	}
	// Item 0's probability is 1/zeta(n).
	if got, want := float64(zero)/draws, 1/z.zetan; got < want*0.95 || got > want*1.05 {
		t.Errorf("item 0 drawn %.4f of the time, want %.4f", got, want)
	}
}

func TestScrambledZipfian(t *testing.T) {
	const n = 1000
	c := counts(t, newScrambled(n), n, 1)
	// The most popular of 10^10 items has 1/26.47 ≈ 3.8 % of the draws; hashed
	// onto 1000 records, its record has at least that, far above uniform's 0.1 %.
	if _, share := hottest(c); share < 0.035 || share > 0.10 {
		t.Errorf("hottest record has %.4f of the draws, want 0.035–0.10", share)
	}
	if best, _ := hottest(c); best == 0 {
		t.Errorf("the hottest record is record 0: the draws are not scrambled")
	}
	// A space twice the readable records (a mix that inserts) still draws below n.
	counts(t, newScrambled(2*n), n, 2)
}

func TestLatest(t *testing.T) {
	const n = 10_000
	l := &latest{z: newZipfian(5000, zipfTheta, zeta(0, 5000, zipfTheta, 0))} // grows to n
	c := counts(t, l, n, 3)
	if best, _ := hottest(c); best != n-1 {
		t.Errorf("the most read record is %d, want the newest, %d", best, n-1)
	}
	recent := 0
	for _, v := range c[n-n/10:] {
		recent += v
	}
	if share := float64(recent) / draws; share < 0.6 {
		t.Errorf("the newest tenth of the records got %.3f of the draws, want > 0.6", share)
	}
	if l.z.items != n {
		t.Errorf("the zipfian covers %d items, want %d", l.z.items, n)
	}
}

func TestHotspot(t *testing.T) {
	const n = 5000
	for _, h := range []hotspot{{0.2, 0.8}, {0.01, 0.99}, {0.5, 0.5}} {
		c := counts(t, h, n, 4)
		hot := 0
		for _, v := range c[:int(n*h.data)] {
			hot += v
		}
		if share := float64(hot) / draws; share < h.ops-0.01 || share > h.ops+0.01 {
			t.Errorf("hotspot %v: the hot set got %.4f of the draws", h, share)
		}
	}
	counts(t, hotspot{0.2, 0.8}, 1, 5) // one record: hot and cold are the same
}

func TestUniformInRange(t *testing.T) {
	c := counts(t, uniform{}, 100, 6)
	if _, share := hottest(c); share > 0.013 {
		t.Errorf("uniform's hottest record has %.4f of the draws", share)
	}
}

func TestSeededRepeatable(t *testing.T) {
	for name, mk := range map[string]func() chooser{
		"uniform": func() chooser { return uniform{} },
		"zipfian": func() chooser { return newScrambled(1000) },
		"latest":  func() chooser { return &latest{z: newZipfian(1000, zipfTheta, zeta(0, 1000, zipfTheta, 0))} },
		"hotspot": func() chooser { return hotspot{0.2, 0.8} },
	} {
		seq := func(seed uint64) []int64 {
			r, ch := workload.NewRand(seed, 3), mk()
			out := make([]int64, 100)
			for i := range out {
				out[i] = ch.next(r, 1000)
			}
			return out
		}
		a, b, other := seq(42), seq(42), seq(43)
		if !equal(a, b) {
			t.Errorf("%s: the same seed gave different draws", name)
		}
		if equal(a, other) {
			t.Errorf("%s: another seed gave the same draws", name)
		}
	}
}

func equal(a, b []int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestKeyspace(t *testing.T) {
	k := newKeyspace(10, 12, []int64{11})
	if k.readable() != 12 || !k.hole(11) || k.hole(10) || k.hole(3) {
		t.Fatalf("reused keyspace: readable %d, holes 11 %v 10 %v", k.readable(), k.hole(11), k.hole(10))
	}
	a, b, c := k.take(), k.take(), k.take() // 12, 13, 14
	k.settle(c, true)
	k.settle(b, false)
	if k.readable() != 12 {
		t.Fatalf("readable %d before 12 settled, want 12", k.readable())
	}
	k.settle(a, true)
	if k.readable() != 15 || !k.hole(13) || k.hole(14) || k.hole(12) {
		t.Fatalf("readable %d, holes %v %v %v", k.readable(), k.hole(12), k.hole(13), k.hole(14))
	}
}
