package tpcc

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func testRand(seed uint64, c Constants) *Rand { return NewSeeded(seed, 7, c) }

// TestValidCLastDelta is clause 2.1.6.1's rule: |C-Run − C-Load| in
// [65 .. 119], except 96 and 112, whichever is the larger.
func TestValidCLastDelta(t *testing.T) {
	for _, tc := range []struct {
		load, run int
		ok        bool
	}{
		{0, 65, true}, {0, 64, false}, {0, 119, true}, {0, 120, false},
		{0, 96, false}, {0, 112, false}, {0, 95, true}, {0, 97, true}, {0, 111, true}, {0, 113, true},
		{200, 135, true}, {200, 136, false}, {200, 104, false}, {200, 88, false}, {200, 81, true}, {200, 80, false},
		{100, 100, false}, {255, 190, true}, {255, 136, true}, {255, 135, false},
	} {
		if got := ValidCLastDelta(tc.load, tc.run); got != tc.ok {
			t.Errorf("ValidCLastDelta(load %d, run %d) = %v, want %v", tc.load, tc.run, got, tc.ok)
		}
		if got := ValidCLastDelta(tc.run, tc.load); got != tc.ok {
			t.Errorf("ValidCLastDelta is not symmetric at (%d, %d)", tc.run, tc.load)
		}
	}
}

// TestRunConstants: for every load's C_LAST a run's is found and allowed,
// on both sides of the load's where both exist, and the other C are in
// range; CheckRun refuses what the spec forbids.
func TestRunConstants(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	for load := 0; load <= ACLast; load++ {
		lc := Constants{CLast: load, CID: 5, OLIID: 6}
		below, above := false, false
		for range 40 {
			rc := RunConstants(src, lc)
			if err := CheckRun(lc, rc); err != nil {
				t.Fatalf("load C_LAST %d: %v", load, err)
			}
			below = below || rc.CLast < load
			above = above || rc.CLast > load
		}
		// where each side has at least 19 of the 53 allowed values
		if load >= 85 && load <= 170 && (!below || !above) {
			t.Errorf("load C_LAST %d: runs only on one side (below %v, above %v)", load, below, above)
		}
	}
	for range 1000 {
		lc := LoadConstants(src)
		if lc.check() != nil {
			t.Fatalf("LoadConstants %+v out of range", lc)
		}
	}
	good := Constants{CLast: 0, CID: 1023, OLIID: 8191}
	for _, bad := range []Constants{
		{CLast: 96, CID: 1, OLIID: 1},
		{CLast: 112, CID: 1, OLIID: 1},
		{CLast: 64, CID: 1, OLIID: 1},
		{CLast: 120, CID: 1, OLIID: 1},
		{CLast: 70, CID: 1024, OLIID: 1},
		{CLast: 70, CID: 1, OLIID: -1},
	} {
		if CheckRun(good, bad) == nil {
			t.Errorf("CheckRun(%+v, %+v) passed", good, bad)
		}
	}
	if CheckRun(Constants{CLast: 256}, Constants{CLast: 180}) == nil {
		t.Error("CheckRun accepted a load C_LAST of 256")
	}
}

// TestNURandConstant: NURand adds the field's C before the modulo, so with
// the same draws, constants k apart give values k apart, modulo the range;
// and each A uses its own field's C.
func TestNURandConstant(t *testing.T) {
	for _, f := range []struct{ a, x, y int }{{ACLast, 0, 999}, {ACID, 1, 3000}, {AOLIID, 1, 100000}} {
		for _, k := range []int{1, 77, f.a} {
			c0, ck := Constants{}, Constants{}
			switch f.a {
			case ACLast:
				ck.CLast = k
			case ACID:
				ck.CID = k
			case AOLIID:
				ck.OLIID = k
			}
			r0, rk := testRand(3, c0), testRand(3, ck)
			n := f.y - f.x + 1
			for range 2000 {
				v0, vk := r0.NURand(f.a, f.x, f.y), rk.NURand(f.a, f.x, f.y)
				if v0 < f.x || v0 > f.y {
					t.Fatalf("NURand(%d, %d, %d) = %d, out of range", f.a, f.x, f.y, v0)
				}
				if want := (v0-f.x+k)%n + f.x; vk != want {
					t.Fatalf("NURand(%d, %d, %d) with C %d = %d, want %d (C 0 gave %d)", f.a, f.x, f.y, k, vk, want, v0)
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NURand with A = 100 did not panic")
		}
	}()
	testRand(1, Constants{}).NURand(100, 0, 10)
}

// TestNURandSkew: NURand is not uniform: OR-ing two draws sets most bits,
// so some values come far more often than 1/(y−x+1) and others far less.
func TestNURandSkew(t *testing.T) {
	r := testRand(4, Constants{CLast: 123})
	var counts [1000]int
	const draws = 200000
	for range draws {
		counts[r.NURand(ACLast, 0, 999)]++
	}
	lo, hi := draws, 0
	for _, c := range counts {
		lo, hi = min(lo, c), max(hi, c)
	}
	mean := draws / 1000
	if hi < 3*mean || lo > mean/3 {
		t.Errorf("NURand(255, 0, 999) looks uniform: counts in [%d, %d], mean %d", lo, hi, mean)
	}
	for _, id := range []func() int{r.CustomerID, r.ItemID} {
		for range 1000 {
			if v := id(); v < 1 {
				t.Fatalf("id %d", v)
			}
		}
	}
}

func TestLastName(t *testing.T) {
	for n, want := range map[int]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING", 40: "BARPRESBAR", 802: "ATIONBARABLE"} {
		if got := LastName(n); got != want {
			t.Errorf("LastName(%d) = %q, want %q", n, got, want)
		}
	}
	seen := map[string]bool{}
	for n := range 1000 {
		seen[LastName(n)] = true
	}
	if len(seen) != 1000 {
		t.Errorf("%d distinct last names, want 1000", len(seen))
	}
	for _, n := range []int{-1, 1000} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("LastName(%d) did not panic", n)
				}
			}()
			LastName(n)
		}()
	}
	if name := testRand(5, Constants{CLast: 9}).LastName(); !seen[name] {
		t.Errorf("Rand.LastName = %q, not one of the thousand", name)
	}
}

func TestInt(t *testing.T) {
	r := testRand(6, Constants{})
	var seen [11]int
	for range 5000 {
		v := r.Int(5, 15)
		if v < 5 || v > 15 {
			t.Fatalf("Int(5, 15) = %d", v)
		}
		seen[v-5]++
	}
	for i, c := range seen {
		if c < 300 {
			t.Errorf("Int(5, 15) gave %d only %d times in 5000", i+5, c)
		}
	}
	if v := r.Int(3, 3); v != 3 {
		t.Errorf("Int(3, 3) = %d", v)
	}
}

func TestStrings(t *testing.T) {
	r := testRand(8, Constants{})
	chars := map[rune]int{}
	total := 0
	for range 4000 {
		s := r.AString(10, 20)
		if len(s) < 10 || len(s) > 20 {
			t.Fatalf("AString(10, 20) has length %d", len(s))
		}
		total += len(s)
		for _, c := range s {
			chars[c]++
		}
	}
	if mean := float64(total) / 4000; mean < 14.7 || mean > 15.3 {
		t.Errorf("AString(10, 20) mean length %.2f, want about 15", mean)
	}
	if len(chars) != 62 {
		t.Errorf("a-strings used %d characters, want the 62 alphanumerics", len(chars))
	}
	for c, n := range chars {
		if !strings.ContainsRune(alphanumeric, c) {
			t.Errorf("a-string character %q", c)
		}
		// about 60,000 characters, 970 each (σ ≈ 31)
		if want := total / 62; n < want*85/100 || n > want*115/100 {
			t.Errorf("character %q drawn %d times, want about %d", c, n, want)
		}
	}
	digitsOnly := regexp.MustCompile(`^[0-9]{16}$`)
	zip := regexp.MustCompile(`^[0-9]{4}11111$`)
	zips := map[string]bool{}
	for range 2000 {
		if s := r.NString(16, 16); !digitsOnly.MatchString(s) {
			t.Fatalf("NString(16, 16) = %q", s)
		}
		z := r.Zip()
		if !zip.MatchString(z) {
			t.Fatalf("Zip() = %q", z)
		}
		zips[z] = true
	}
	if len(zips) < 1500 {
		t.Errorf("2000 zip codes, only %d distinct", len(zips))
	}
}

// TestData: ORIGINAL sits whole anywhere in the a-string, first and last
// places included, and the length stays in [26 .. 50].
func TestData(t *testing.T) {
	r := testRand(9, Constants{})
	atStart, atEnd := 0, 0
	for range 5000 {
		s := r.Data(true)
		if len(s) < 26 || len(s) > 50 {
			t.Fatalf("data of length %d", len(s))
		}
		i := strings.Index(s, originalMark)
		if i < 0 {
			t.Fatalf("%q holds no ORIGINAL", s)
		}
		if i == 0 {
			atStart++
		}
		if i == len(s)-len(originalMark) {
			atEnd++
		}
		if s := r.Data(false); strings.Contains(s, originalMark) || len(s) < 26 || len(s) > 50 {
			t.Fatalf("plain data %q", s)
		}
	}
	if atStart == 0 || atEnd == 0 {
		t.Errorf("ORIGINAL at the start %d times, at the end %d times in 5000: want both", atStart, atEnd)
	}
}

// TestSample: exactly k of n, and any row may be picked.
func TestSample(t *testing.T) {
	r := testRand(10, Constants{})
	for _, tc := range []struct{ k, n int }{{0, 10}, {10, 10}, {1, 1}, {300, 3000}, {10000, 100000}} {
		s := newSample(tc.k, tc.n)
		got, firstHalf := 0, 0
		for i := range tc.n {
			if s.next(r) {
				got++
				if i < tc.n/2 {
					firstHalf++
				}
			}
		}
		if got != tc.k {
			t.Errorf("sample %d of %d picked %d", tc.k, tc.n, got)
		}
		if tc.k >= 300 && (firstHalf < tc.k*4/10 || firstHalf > tc.k*6/10) {
			t.Errorf("sample %d of %d: %d in the first half", tc.k, tc.n, firstHalf)
		}
		if s.next(r) {
			t.Errorf("sample %d of %d picked past its end", tc.k, tc.n)
		}
	}
	hits := make([]int, 10)
	for range 2000 {
		s := newSample(1, 10)
		for i := range 10 {
			if s.next(r) {
				hits[i]++
			}
		}
	}
	for i, h := range hits {
		if h < 130 || h > 270 {
			t.Errorf("sample 1 of 10 picked row %d %d times in 2000, want about 200", i, h)
		}
	}
}
