package kv

import (
	"math"
	"math/rand/v2"
)

// fnv64 is YCSB's Utils.fnvhash64 (FNV-1a over the eight bytes of n, low
// byte first) without its Math.abs, which would fold two hashes into one.
// It turns record numbers into keys (YCSB insertorder=hashed) and scrambles
// zipfian draws.
func fnv64(n uint64) uint64 {
	h := uint64(0xCBF29CE484222325)
	for range 8 {
		h ^= n & 0xff
		h *= 1099511628211
		n >>= 8
	}
	return h
}

// The zipfian constant of YCSB's core workloads, and the zeta of the item
// space its ScrambledZipfianGenerator draws from (ZETAN for ITEM_COUNT =
// 10^10 items), which YCSB keeps precomputed because the sum takes minutes.
const (
	zipfTheta     = 0.99
	scrambleItems = 10_000_000_000
	scrambleZetan = 26.46902820178302
)

// zipfian draws 0..items-1, 0 the most popular, as YCSB's ZipfianGenerator
// does (Gray et al., "Quickly Generating Billion-Record Synthetic
// Databases", SIGMOD 1994). It is used by one client.
type zipfian struct {
	items                    int64
	theta, alpha, zeta2, eta float64
	zetan, half              float64
}

// zeta returns zetan plus the terms of the items from+1 … to: the sum of
// 1/i^theta for i up to to, given the sum up to from.
func zeta(from, to int64, theta, zetan float64) float64 {
	for i := from; i < to; i++ {
		zetan += 1 / math.Pow(float64(i+1), theta)
	}
	return zetan
}

// newZipfian returns a zipfian over items, given their zeta (zeta(0, items, θ, 0)).
func newZipfian(items int64, theta, zetan float64) *zipfian {
	z := &zipfian{items: items, theta: theta, alpha: 1 / (1 - theta), zeta2: zeta(0, 2, theta, 0), half: math.Pow(0.5, theta)}
	z.setZetan(zetan)
	return z
}

func (z *zipfian) setZetan(zetan float64) {
	z.zetan = zetan
	z.eta = (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2/zetan)
}

// grow extends the item space to items, adding their terms to zeta as
// YCSB's ZipfianGenerator does when its item count rises.
func (z *zipfian) grow(items int64) {
	if items > z.items {
		zn := zeta(z.items, items, z.theta, z.zetan)
		z.items = items
		z.setZetan(zn)
	}
}

func (z *zipfian) next(r *rand.Rand) int64 {
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return 0
	}
	if uz < 1+z.half {
		return min(1, z.items-1)
	}
	v := int64(float64(z.items) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(max(v, 0), z.items-1)
}

// chooser picks a record number below n (the records a read may find). Each
// client has its own.
type chooser interface {
	next(r *rand.Rand, n int64) int64
}

// uniform is YCSB's UniformLongGenerator over the readable records.
type uniform struct{}

func (uniform) next(r *rand.Rand, n int64) int64 { return r.Int64N(n) }

// scrambled is YCSB's ScrambledZipfianGenerator: a zipfian draw over 10^10
// items, hashed onto the space, so that the popular records are scattered
// instead of being the first ones. The space is fixed (the records at the
// start, and as many again when the mix inserts, like YCSB's
// expectednewkeys), so that the popular records stay the same as inserts
// come; a draw beyond the readable records is drawn again, as YCSB's
// CoreWorkload.nextKeynum does.
type scrambled struct {
	z     *zipfian
	space int64
}

func newScrambled(space int64) *scrambled {
	return &scrambled{z: newZipfian(scrambleItems, zipfTheta, scrambleZetan), space: space}
}

func (s *scrambled) next(r *rand.Rand, n int64) int64 {
	for range 64 {
		if v := int64(fnv64(uint64(s.z.next(r))) % uint64(s.space)); v < n {
			return v
		}
	}
	return r.Int64N(n) // the space is at most twice n: 64 misses in a row are 2^-64 likely
}

// latest is YCSB's SkewedLatestGenerator: the newest record the most
// popular, as a zipfian distance back from the last one acknowledged.
type latest struct{ z *zipfian }

func (l *latest) next(r *rand.Rand, n int64) int64 {
	l.z.grow(n)
	return n - 1 - l.z.next(r)
}

// hotspot is YCSB's HotspotIntegerGenerator: the first data fraction of the
// records (scattered in key order by the hash) gets the ops fraction of the
// draws, the rest the others, each uniformly.
type hotspot struct{ data, ops float64 }

func (h hotspot) next(r *rand.Rand, n int64) int64 {
	hot := min(max(int64(float64(n)*h.data), 1), n)
	if hot == n || r.Float64() < h.ops {
		return r.Int64N(hot)
	}
	return hot + r.Int64N(n-hot)
}
