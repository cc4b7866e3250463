package elle

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func rd(k int64, l ...int64) Op { return Op{Key: k, List: l, Done: true} }
func ap(k, v int64) Op          { return Op{Append: true, Key: k, Value: v} }
func ok(ops ...Op) Txn          { return Txn{Status: Committed, Ops: ops} }

// TestKinds: one small history per kind, each found with its example,
// and nothing else but what the kind implies.
func TestKinds(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		h    []Txn
		also []Kind // what the same history also is
	}{
		{G0, []Txn{ok(ap(1, 1), ap(2, 2)), ok(ap(1, 3), ap(2, 4)), ok(rd(1, 1, 3), rd(2, 4, 2))}, nil},
		{G1a, []Txn{{Status: Aborted, Ops: []Op{ap(1, 1)}}, ok(rd(1, 1))}, nil},
		{G1b, []Txn{ok(ap(1, 1), ap(1, 2)), ok(rd(1, 1)), ok(rd(1, 1, 2))}, []Kind{GSingle}}, // the reader is between the writer's two appends
		{G1c, []Txn{ok(ap(1, 1), rd(2, 2)), ok(ap(2, 2), rd(1, 1))}, nil},
		{GSingle, []Txn{ok(rd(1), rd(2, 2)), ok(ap(1, 1), ap(2, 2)), ok(rd(1, 1))}, nil},
		{G2Item, []Txn{ok(rd(1), rd(2), ap(1, 1)), ok(rd(1), rd(2), ap(2, 2)), ok(rd(1, 1), rd(2, 2))}, nil},
		{LostUpdate, []Txn{ok(rd(1), ap(1, 1)), ok(rd(1), ap(1, 2)), ok(rd(1, 1, 2))}, []Kind{GSingle}},
		{Internal, []Txn{ok(ap(1, 1), rd(1, 5))}, nil},
		{Internal, []Txn{ok(ap(1, 1)), ok(ap(1, 2)), ok(rd(1, 1, 2), rd(1, 1))}, []Kind{GSingle}}, // the list shrank
		{IncompatibleOrder, []Txn{ok(ap(1, 1)), ok(ap(1, 2)), ok(rd(1, 1, 2)), ok(rd(1, 2, 1))}, nil},
	} {
		t.Run(string(c.kind), func(t *testing.T) {
			r := Check(c.h, Options{})
			if r.Counts[c.kind] == 0 || !strings.Contains(r.Examples[c.kind], "T") {
				t.Fatalf("%s not found: %+v", c.kind, r)
			}
			for k := range r.Counts {
				if k != c.kind && !contains(c.also, k) {
					t.Errorf("also found %s: %s", k, r.Examples[k])
				}
			}
		})
	}
}

func contains(ks []Kind, k Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// TestNonRepeatableRead: a second read that shows another transaction's
// commit besides the first read and its own appends is no internal
// anomaly (read committed allows it); the graph holds its read skew.
func TestNonRepeatableRead(t *testing.T) {
	h := []Txn{ok(rd(1), ap(2, 9), rd(1, 5), ap(1, 6), rd(1, 5, 7, 6)), ok(ap(1, 5)), ok(ap(1, 7)), ok(rd(1, 5, 7, 6))}
	r := Check(h, Options{})
	if r.Counts[Internal] != 0 || r.Counts[GSingle] == 0 {
		t.Fatalf("%v\n%v", r.Counts, r.Examples)
	}
}

// serial makes a history of n transactions run one after another on lists
// kept in memory, the keys rotating as the workload's do, and a last
// transaction reading every key: serializable, so no anomaly.
func serial(seed uint64, n int) []Txn {
	rng := rand.New(rand.NewPCG(seed, 1))
	lists := map[int64][]int64{}
	next := int64(1)
	h := make([]Txn, 0, n+1)
	for i := 0; i < n; i++ {
		base := int64(i / 20)
		ops := make([]Op, 1+rng.IntN(6))
		for j := range ops {
			k := base + rng.Int64N(8)
			if rng.IntN(2) == 0 {
				ops[j] = Op{Key: k, List: lists[k], Done: true}
			} else {
				ops[j] = Op{Append: true, Key: k, Value: next}
				lists[k] = append(lists[k], next)
				next++
			}
		}
		h = append(h, Txn{Client: i % 16, Status: Committed, Ops: ops})
	}
	var last []Op
	for k, l := range lists {
		last = append(last, Op{Key: k, List: l, Done: true})
	}
	return append(h, Txn{Client: 0, Status: Committed, Ops: last})
}

// TestPlantedG1c: a serial history has no anomaly; edited so that one
// transaction also reads a later one's append, while that later one read
// the first's, it holds a G1c cycle, found with those two in its example.
func TestPlantedG1c(t *testing.T) {
	h := serial(7, 2000)
	if r := Check(h, Options{}); len(r.Counts) > 0 || r.Components > 0 {
		t.Fatalf("a serial history: %v, %d components\n%v", r.Counts, r.Components, r.Examples)
	}
	// Find A appending v to x, and a later B that read x holding v and
	// appended w to y; A then reads y as it was up to w.
	a, b, y := -1, -1, int64(0)
	lists := map[int64][]int64{}
	for i, tx := range h {
		for _, op := range tx.Ops {
			if op.Append {
				lists[op.Key] = append(lists[op.Key], op.Value)
			}
		}
		if a >= 0 || i+1 >= len(h)-1 {
			continue
		}
		for _, op := range tx.Ops {
			if !op.Append {
				continue
			}
		later:
			for j := i + 1; j < len(h)-1; j++ {
				read, wrote := false, int64(-1)
				for _, o := range h[j].Ops {
					if !o.Append && o.Key == op.Key && len(o.List) > 0 && o.List[len(o.List)-1] == op.Value {
						read = true
					}
					if o.Append && read && o.Key != op.Key {
						wrote = o.Key
						break
					}
				}
				if read && wrote >= 0 {
					a, b, y = i, j, wrote
					break later
				}
			}
			break
		}
	}
	if a < 0 {
		t.Fatal("no pair to plant the cycle in")
	}
	// y's list as of B's commit.
	replay := map[int64][]int64{}
	for _, tx := range h[:b+1] {
		for _, op := range tx.Ops {
			if op.Append {
				replay[op.Key] = append(replay[op.Key], op.Value)
			}
		}
	}
	h[a].Ops = append(h[a].Ops, Op{Key: y, List: replay[y], Done: true})
	r := Check(h, Options{})
	ex := r.Examples[G1c]
	if r.Counts[G1c] == 0 || !strings.Contains(ex, "wr") {
		t.Fatalf("planted G1c (T%d reads T%d's append to %d) not found: %v\n%v", a, b, y, r.Counts, r.Examples)
	}
	t.Logf("found: %s", ex)
}

// BenchmarkCheck100k and BenchmarkCheck1M check histories of about 10⁵
// and 10⁶ operations: the checker's time grows with the history's size.
func BenchmarkCheck100k(b *testing.B) { benchmarkCheck(b, 28_500) }
func BenchmarkCheck1M(b *testing.B)   { benchmarkCheck(b, 285_000) }

func benchmarkCheck(b *testing.B, txns int) {
	h := serial(1, txns)
	ops := 0
	for _, t := range h {
		ops += len(t.Ops)
	}
	b.ResetTimer()
	for range b.N {
		r := Check(h, Options{})
		if len(r.Counts) > 0 {
			b.Fatal(r.Counts)
		}
	}
	// After the loop: ResetTimer drops the metrics reported before it.
	b.ReportMetric(float64(ops), "ops")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ops), "ns/operation")
}
