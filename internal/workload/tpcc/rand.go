package tpcc

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// The A of NURand(A, x, y) for each field that uses it (clause 2.1.6).
const (
	ACLast = 255  // C_LAST: NURand(255, 0, 999)
	ACID   = 1023 // C_ID: NURand(1023, 1, 3000)
	AOLIID = 8191 // OL_I_ID: NURand(8191, 1, 100000)
)

// Constants are the run-time constants C of NURand, one per field
// (clause 2.1.6: "C is a run-time constant randomly chosen within [0 .. A]";
// "the same C value, per field (C_LAST, C_ID, and OL_I_ID), must be used by
// all emulated terminals"). A load chooses its own (C_LAST's is the one that
// makes the customers' last names, clause 4.3.3.1) and a run chooses others,
// C_LAST's within the distance clause 2.1.6.1 allows from the load's. Both
// are recorded with the result, hence the JSON names.
type Constants struct {
	CLast int `json:"c_last"`  // in [0, 255]
	CID   int `json:"c_id"`    // in [0, 1023]
	OLIID int `json:"ol_i_id"` // in [0, 8191]
}

// LoadConstants chooses a load's constants: each C uniform in [0, A]
// (clause 2.1.6; C-Load is in [0 .. 255], clause 2.1.6.1).
func LoadConstants(src *rand.Rand) Constants {
	return Constants{CLast: src.IntN(ACLast + 1), CID: src.IntN(ACID + 1), OLIID: src.IntN(AOLIID + 1)}
}

// RunConstants chooses a run's constants against the load's: C_ID and
// OL_I_ID uniform in [0, A] (clause 2.1.6), C_LAST uniform among the values
// of [0, 255] whose distance from the load's C_LAST is allowed (clause
// 2.1.6.1, ValidCLastDelta). Some always exist: a load's C_LAST ≤ 190 has
// load+65 above it, one ≥ 65 has load−65 below it.
func RunConstants(src *rand.Rand, load Constants) Constants {
	var ok [ACLast + 1]int
	n := 0
	for c := range ACLast + 1 {
		if ValidCLastDelta(load.CLast, c) {
			ok[n] = c
			n++
		}
	}
	return Constants{CLast: ok[src.IntN(n)], CID: src.IntN(ACID + 1), OLIID: src.IntN(AOLIID + 1)}
}

// ValidCLastDelta reports whether a run may use C_LAST = run against a load
// that used C_LAST = load (clause 2.1.6.1): C-Delta = |C-Run − C-Load| must
// be in [65 .. 119] and be neither 96 nor 112, so that the run's last names
// neither coincide with the load's nor skew towards them.
func ValidCLastDelta(load, run int) bool {
	d := run - load
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// CheckRun says what is wrong with a run's constants against its load's:
// a C out of [0, A] (clause 2.1.6) or a C_LAST delta clause 2.1.6.1 forbids.
func CheckRun(load, run Constants) error {
	if err := load.check(); err != nil {
		return fmt.Errorf("load: %w", err)
	}
	if err := run.check(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if !ValidCLastDelta(load.CLast, run.CLast) {
		return fmt.Errorf("C_LAST: run %d against load %d: the delta must be in [65, 119] and neither 96 nor 112 (TPC-C 2.1.6.1)",
			run.CLast, load.CLast)
	}
	return nil
}

func (c Constants) check() error {
	for _, f := range []struct {
		name string
		v, a int
	}{{"C_LAST", c.CLast, ACLast}, {"C_ID", c.CID, ACID}, {"OL_I_ID", c.OLIID, AOLIID}} {
		if f.v < 0 || f.v > f.a {
			return fmt.Errorf("%s constant %d is outside [0, %d] (TPC-C 2.1.6)", f.name, f.v, f.a)
		}
	}
	return nil
}

// Rand draws the random values the spec defines, from one *rand.Rand and
// with one set of NURand constants. It is not safe for concurrent use: give
// each loader or terminal its own (NewSeeded with its own stream).
type Rand struct {
	src *rand.Rand
	c   Constants
}

// NewRand draws from src with the NURand constants c: a load's constants
// when the Rand makes the initial population, a run's when it drives the
// transactions.
func NewRand(src *rand.Rand, c Constants) *Rand { return &Rand{src: src, c: c} }

// NewSeeded is NewRand over a PCG seeded with (seed, stream): the same pair
// always draws the same values, and distinct streams (one per warehouse, say)
// draw independent ones.
func NewSeeded(seed, stream uint64, c Constants) *Rand {
	return NewRand(rand.New(rand.NewPCG(seed, stream)), c)
}

// Constants are the NURand constants this Rand uses.
func (r *Rand) Constants() Constants { return r.c }

// Int is an integer "randomly selected within [x .. y]": independently
// selected and uniformly distributed between x and y inclusive (clauses
// 2.1.4 and 4.3.2.5).
func (r *Rand) Int(x, y int) int {
	if y < x {
		panic(fmt.Sprintf("tpcc: random within [%d .. %d]", x, y))
	}
	return x + r.src.IntN(y-x+1)
}

// NURand is the non-uniform random number of clause 2.1.6:
//
//	NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y − x + 1)) + x
//
// with C this Rand's constant for A, which must be one the spec uses
// (ACLast, ACID or AOLIID).
func (r *Rand) NURand(a, x, y int) int {
	var c int
	switch a {
	case ACLast:
		c = r.c.CLast
	case ACID:
		c = r.c.CID
	case AOLIID:
		c = r.c.OLIID
	default:
		panic(fmt.Sprintf("tpcc: NURand with A = %d: the spec defines C only for A = 255, 1023 and 8191", a))
	}
	return ((r.Int(0, a)|r.Int(x, y))+c)%(y-x+1) + x
}

// CustomerID is a customer number NURand(1023, 1, 3000) (clause 2.1.6).
func (r *Rand) CustomerID() int { return r.NURand(ACID, 1, CustomersPerDistrict) }

// ItemID is an item number NURand(8191, 1, 100000) (clause 2.1.6).
func (r *Rand) ItemID() int { return r.NURand(AOLIID, 1, NumItems) }

// LastName is a customer last name from NURand(255, 0, 999) (clauses 2.1.6
// and 4.3.2.3).
func (r *Rand) LastName() string { return LastName(r.NURand(ACLast, 0, 999)) }

// The alphabets of the random strings. An a-string is alphanumeric (clause
// 4.3.2.2; the spec asks the character set for at least the 26 lower case
// letters, the 26 upper case ones and the ten digits, and these are those),
// an n-string numeric.
const (
	alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits       = "0123456789"
)

// AString is a "random a-string [x .. y]": random alphanumeric characters,
// of a length uniform in [x .. y] (clause 4.3.2.2).
func (r *Rand) AString(x, y int) string {
	b := make([]byte, r.Int(x, y))
	r.fill(b, alphanumeric)
	return string(b)
}

// NString is a "random n-string [x .. y]": random digits, of a length
// uniform in [x .. y] (clause 4.3.2.2).
func (r *Rand) NString(x, y int) string {
	b := make([]byte, r.Int(x, y))
	r.fill(b, digits)
	return string(b)
}

// Zip is a zip code: a random n-string of 4 digits then the constant
// "11111" (clause 4.3.2.7), so that about 10,000 zip codes recur.
func (r *Rand) Zip() string {
	b := []byte("000011111")
	r.fill(b[:4], digits)
	return string(b)
}

// originalMark is what clause 4.3.3.1 puts in 10 % of I_DATA and S_DATA.
const originalMark = "ORIGINAL"

// Data is I_DATA or S_DATA: a random a-string [26 .. 50] (clause 4.3.3.1);
// when withOriginal, "ORIGINAL" is held by 8 consecutive characters starting at
// a random position, any of the len−7 places where it fits, so the length
// stays that of the a-string. Which rows are original is the caller's draw
// (a sample of exactly 10 %, see population.go).
func (r *Rand) Data(withOriginal bool) string {
	b := make([]byte, r.Int(26, 50))
	r.fill(b, alphanumeric)
	if withOriginal {
		copy(b[r.Int(0, len(b)-len(originalMark)):], originalMark)
	}
	return string(b)
}

// fill fills b with characters of alphabet (at most 64 of them), each
// uniform: a 64-bit draw is cut into chunks of just enough bits to index
// the alphabet, and a chunk past its end is thrown away (so no character
// is likelier than another), about ten characters per draw for an a-string.
func (r *Rand) fill(b []byte, alphabet string) {
	n := uint64(len(alphabet))
	width := uint(bits.Len64(n - 1))
	mask := uint64(1)<<width - 1
	var word uint64
	var left uint
	for i := 0; i < len(b); {
		if left < width {
			word, left = r.src.Uint64(), 64
		}
		v := word & mask
		word >>= width
		left -= width
		if v < n {
			b[i] = alphabet[v]
			i++
		}
	}
}

// sample picks exactly k of n rows, each k-subset equally likely, deciding
// row by row as they stream past (selection sampling, Knuth's Algorithm S):
// "for 10 % of the rows, selected at random" (clause 4.3.3.1), exactly.
type sample struct {
	left, want int // rows not yet seen, picks not yet made
}

func newSample(k, n int) *sample { return &sample{left: n, want: k} }

// next says whether the next row is picked.
func (s *sample) next(r *Rand) bool {
	if s.left <= 0 {
		return false
	}
	pick := r.src.IntN(s.left) < s.want
	s.left--
	if pick {
		s.want--
	}
	return pick
}

// The ten syllables of customer last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastNames holds the thousand last names, made once.
var lastNames = func() (names [1000]string) {
	for n := range names {
		names[n] = syllables[n/100] + syllables[n/10%10] + syllables[n%10]
	}
	return names
}()

// LastName is the customer last name of n in [0, 999] (clause 4.3.2.3): the
// syllables of its three digits, hundreds first, concatenated; 371 is
// "PRICALLYOUGHT".
func LastName(n int) string {
	if n < 0 || n > 999 {
		panic(fmt.Sprintf("tpcc: last name of %d, outside [0, 999]", n))
	}
	return lastNames[n]
}
