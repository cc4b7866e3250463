package script

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// pgbench's limits on the distributions' parameters.
const (
	minGaussian = 2.0
	minZipfian  = 1.001
	maxZipfian  = 1000.0
)

// Uniform is pgbench's getrand: uniform on [lo, hi]; hi - lo must fit in
// an int64 (evalRandom checks).
func Uniform(r *rand.Rand, lo, hi int64) int64 {
	return lo + int64(r.Uint64N(uint64(hi-lo)+1))
}

// unit is pgbench's pg_prng_double: uniform on [0, 1) in steps of 2^-52.
func unit(r *rand.Rand) float64 {
	return float64(r.Uint64()>>12) * 0x1p-52
}

// Exponential is pgbench's getExponentialRand: values in [lo, hi], the
// density falling by exp(-parameter) from lo to hi (parameter > 0).
func Exponential(r *rand.Rand, lo, hi int64, parameter float64) int64 {
	cut := math.Exp(-parameter)
	u := 1.0 - unit(r) // in (0, 1]
	x := -math.Log(cut+(1.0-cut)*u) / parameter
	return lo + int64(float64(hi-lo+1)*x)
}

// Gaussian is pgbench's getGaussianRand: a normal distribution centred on
// the middle of [lo, hi], cut at ±parameter standard deviations
// (parameter ≥ 2), by Box-Muller as pg_prng_double_normal.
func Gaussian(r *rand.Rand, lo, hi int64, parameter float64) int64 {
	var stdev float64
	for {
		u1 := 1.0 - unit(r)
		u2 := 1.0 - unit(r)
		stdev = math.Sqrt(-2.0*math.Log(u1)) * math.Sin(2.0*math.Pi*u2)
		if stdev >= -parameter && stdev < parameter {
			break
		}
	}
	x := (stdev + parameter) / (parameter * 2.0)
	return lo + int64(float64(hi-lo+1)*x)
}

// Zipfian is pgbench's getZipfianRand: value lo+k-1 with probability
// proportional to 1/k^s for k in 1..hi-lo+1, drawn by rejection (Devroye,
// "Non-Uniform Random Variate Generation", p. 550-551), s in [1.001, 1000].
func Zipfian(r *rand.Rand, lo, hi int64, s float64) int64 {
	n := hi - lo + 1
	if n <= 1 {
		return lo
	}
	b := math.Pow(2.0, s-1.0)
	var x float64
	for {
		u := unit(r)
		v := unit(r)
		x = math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			break
		}
	}
	return lo - 1 + int64(x)
}

// FNV-1a and MurmurHash2 (64-bit) constants, as pgbench's.
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// hashFNV1a is pgbench's getHashFnv1a: FNV-1a over val's 8 bytes, low
// byte first, the offset basis xor'ed with the seed.
func hashFNV1a(val, seed int64) int64 {
	h := uint64(fnvOffsetBasis) ^ uint64(seed)
	v := uint64(val)
	for range 8 {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	return int64(h)
}

// hashMurmur2 is pgbench's getHashMurmur2: MurmurHash64A of val's 8 bytes.
func hashMurmur2(val, seed int64) int64 {
	h := uint64(seed) ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}

// prng is PostgreSQL's pg_prng: xoroshiro128** seeded by splitmix64.
// permute must use exactly it, so that a seed gives pgbench's permutation.
type prng struct{ s0, s1 uint64 }

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97f4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

func newPRNG(seed uint64) *prng {
	p := &prng{s0: splitmix64(&seed), s1: splitmix64(&seed)}
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
	return p
}

func (p *prng) uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return v
}

// uint64Range is pg_prng_uint64_range: uniform on [lo, hi] by bitmask
// rejection.
func (p *prng) uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	rng := hi - lo
	shift := uint(bits.LeadingZeros64(rng)) // 63 - pg_leftmost_one_pos64(range)
	for {
		v := p.uint64() >> shift
		if v <= rng {
			return lo + v
		}
	}
}

// Permute is pgbench's permute(i, size, seed): i mod size mapped through a
// pseudorandom permutation of [0, size) chosen by seed, the same one
// pgbench chooses for that seed. size must be > 0.
func Permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	st := newPRNG(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size)) // pg_leftmost_one_pos64
	mask := uint64(1)<<masklen - 1
	for range 6 {
		m := st.uint64()&mask | 1
		r := st.uint64() & mask
		if v <= mask {
			v = (v*m ^ r) & mask
			v = (v<<1)&mask | v>>(masklen-1)
		}
		m = st.uint64()&mask | 1
		r = st.uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = (t*m ^ r) & mask
			t = (t<<1)&mask | t>>(masklen-1)
			v = size - 1 - t
		}
		r = st.uint64Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}
