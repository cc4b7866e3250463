package elle

import (
	"fmt"
	"slices"
	"strings"
)

// Kind is a kind of anomaly.
type Kind string

// The kinds Check reports, after Adya's and Elle's names.
const (
	G0                Kind = "G0"                 // a cycle of write-write dependencies (dirty write)
	G1a               Kind = "G1a"                // a committed read of a value an aborted transaction wrote
	G1b               Kind = "G1b"                // a read of a value its writer later overwrote in the same transaction
	G1c               Kind = "G1c"                // a cycle of write-write and write-read dependencies, one write-read at least
	GSingle           Kind = "G-single"           // a cycle with exactly one read-write anti-dependency (read skew)
	G2Item            Kind = "G2-item"            // a cycle whose every path back needs two anti-dependencies or more (write skew)
	LostUpdate        Kind = "lost-update"        // two committed transactions read the same version of a key and both appended to it
	Internal          Kind = "internal"           // a read that contradicts its own transaction's earlier reads and appends
	IncompatibleOrder Kind = "incompatible-order" // two reads of a key that are not one a prefix of the other
	Duplicates        Kind = "duplicate-elements" // a value twice in a list, or appended twice
)

// Kinds lists the kinds in the order reports show them.
var Kinds = []Kind{G0, G1a, G1b, G1c, GSingle, G2Item, LostUpdate, Internal, IncompatibleOrder, Duplicates}

// Options bound Check's work.
type Options struct {
	// Searches is how many anti-dependency edges of one strongly connected
	// component are tried as the start of a G-single or G2-item cycle (a
	// breadth-first search each); 0 means 64.
	Searches int
}

// Result is what Check found.
type Result struct {
	Txns      int `json:"txns"`
	Ops       int `json:"ops"`
	Committed int `json:"committed"`
	Aborted   int `json:"aborted"`
	Unknown   int `json:"unknown"`
	// Edges counts the dependencies inferred, by kind: ww, wr, rw.
	Edges map[string]int `json:"edges"`
	// Components counts the strongly connected components of two
	// transactions or more: each holds at least one cycle.
	Components int `json:"components"`
	// Counts says how many of each kind were found: components for the
	// cycle kinds, reads or groups of transactions for the others.
	Counts map[Kind]int `json:"counts"`
	// Examples holds one small example of each kind found: the cycle or
	// the reads, then every transaction in it.
	Examples map[Kind]string `json:"examples,omitempty"`
}

// The kinds of edge, as bits.
const (
	ww uint8 = 1 << iota
	wr
	rw
)

var edgeName = map[uint8]string{ww: "ww", wr: "wr", rw: "rw"}

// edge is one inferred dependency, before they are merged.
type edge struct {
	from, to int32
	kind     uint8
	key      int64
}

type checker struct {
	h       []Txn
	res     *Result
	writer  map[int64]int32 // appended value → its transaction
	order   map[int64][]int64
	pos     map[int64]int32 // value → its index in its key's order
	edges   []edge
	g       *deps
	sizes   map[Kind]int // the size of the example kept, to keep the smallest
	opts    Options
	inGraph []bool
}

// Check checks history h. Its time is linear in the history's operations
// and the lengths of its reads, but for the cycle searches, bounded by
// Options.Searches per component.
func Check(h []Txn, o Options) Result {
	if o.Searches <= 0 {
		o.Searches = 64
	}
	res := Result{Txns: len(h), Edges: map[string]int{}, Counts: map[Kind]int{}, Examples: map[Kind]string{}}
	c := &checker{h: h, res: &res, opts: o, sizes: map[Kind]int{}}
	c.index()
	c.reads()
	c.internal()
	c.lostUpdates()
	c.infer()
	c.cycles()
	for _, k := range Kinds {
		if res.Counts[k] == 0 {
			delete(res.Counts, k)
		}
	}
	return res
}

// found counts an anomaly and keeps its example when it is the first or
// smaller than the one kept.
func (c *checker) found(k Kind, size int, example func() string) {
	c.res.Counts[k]++
	if old, ok := c.sizes[k]; !ok || size < old {
		c.sizes[k] = size
		c.res.Examples[k] = example()
	}
}

// index finds each value's writer and each key's version order: the
// longest list a committed transaction read.
func (c *checker) index() {
	n := 0
	for _, t := range c.h {
		n += len(t.Ops)
	}
	c.res.Ops = n
	c.writer = make(map[int64]int32, n/2)
	c.order = map[int64][]int64{}
	for i, t := range c.h {
		switch t.Status {
		case Committed:
			c.res.Committed++
		case Aborted:
			c.res.Aborted++
		default:
			c.res.Unknown++
		}
		for _, op := range t.Ops {
			if op.Append {
				if w, dup := c.writer[op.Value]; dup {
					c.found(Duplicates, 2, func() string {
						return fmt.Sprintf("value %d appended by T%d and T%d", op.Value, w, i)
					})
				}
				c.writer[op.Value] = int32(i)
			} else if t.Status == Committed && op.Done && len(op.List) > len(c.order[op.Key]) {
				c.order[op.Key] = op.List
			}
		}
	}
	c.pos = make(map[int64]int32, len(c.writer))
	for k, ord := range c.order {
		for i, v := range ord {
			if _, dup := c.pos[v]; dup {
				c.found(Duplicates, 1, func() string { return fmt.Sprintf("key %d's longest read holds %d twice: %s", k, v, list(ord)) })
			}
			c.pos[v] = int32(i)
		}
	}
}

// committedReads calls fn for every answered read of a committed
// transaction.
func (c *checker) committedReads(fn func(t int32, op Op)) {
	for i, t := range c.h {
		if t.Status != Committed {
			continue
		}
		for _, op := range t.Ops {
			if !op.Append && op.Done {
				fn(int32(i), op)
			}
		}
	}
}

// reads checks each committed read against its key's order (a prefix of
// it) and its values' writers (none aborted, none overwritten by its own
// writer: G1a, G1b).
func (c *checker) reads() {
	// last[v]: v is not its writer's last append to its key.
	notLast := map[int64]bool{}
	for _, t := range c.h {
		for i, op := range t.Ops {
			if !op.Append {
				continue
			}
			for _, later := range t.Ops[i+1:] {
				if later.Append && later.Key == op.Key {
					notLast[op.Value] = true
					break
				}
			}
		}
	}
	c.committedReads(func(r int32, op Op) {
		ord := c.order[op.Key]
		for i, v := range op.List {
			if i >= len(ord) || ord[i] != v {
				c.found(IncompatibleOrder, 2, func() string {
					return fmt.Sprintf("key %d read as %s by T%d, and as %s by another committed transaction", op.Key, list(op.List), r, list(ord))
				})
				break
			}
		}
		for _, v := range op.List {
			if w, ok := c.writer[v]; ok && c.h[w].Status == Aborted {
				c.found(G1a, 2, func() string {
					return fmt.Sprintf("T%d read key %d as %s, holding %d, which aborted T%d appended\n  %s", r, op.Key, list(op.List), v, w, c.txns(r, w))
				})
				break
			}
		}
		if len(op.List) == 0 {
			return
		}
		last := op.List[len(op.List)-1]
		if w, ok := c.writer[last]; ok && w != r && notLast[last] {
			c.found(G1b, 2, func() string {
				return fmt.Sprintf("T%d read key %d as %s, ending in %d, which T%d overwrote with a later append of its own\n  %s", r, op.Key, list(op.List), last, w, c.txns(r, w))
			})
		}
	})
}

// internal checks each committed transaction against itself: a key's
// list only grows, so a read of it must begin with what the transaction
// read of it before, and end with its own appends since. (A read that
// shows more than the earlier one besides is a non-repeatable read, which
// read committed allows: the graph has its G-single.)
func (c *checker) internal() {
	type state struct {
		last  []int64 // the last read, nil before one
		since []int64 // its own appends since
	}
	keys := map[int64]*state{} // reused from one transaction to the next
	for i, t := range c.h {
		if t.Status != Committed || len(t.Ops) < 2 {
			continue
		}
		clear(keys)
		for _, op := range t.Ops {
			s := keys[op.Key]
			if s == nil {
				s = &state{}
				keys[op.Key] = s
			}
			if op.Append {
				s.since = append(s.since, op.Value)
				continue
			}
			if !op.Done {
				continue
			}
			l, n := op.List, len(s.since)
			if len(l) < len(s.last)+n || !slices.Equal(l[:len(s.last)], s.last) || !slices.Equal(l[len(l)-n:], s.since) {
				c.found(Internal, 1, func() string {
					return fmt.Sprintf("T%d read key %d as %s, which contradicts its own earlier operations\n  %s", i, op.Key, list(op.List), c.txns(int32(i)))
				})
			}
			s.last, s.since = op.List, s.since[:0:0]
		}
	}
}

// lostUpdates finds committed transactions that read the same version of
// a key and then both appended to it.
func (c *checker) lostUpdates() {
	type version struct {
		key int64
		n   int
	}
	first := map[version]int32{}
	counted := map[version]bool{}
	read := map[int64]int{} // key → length of its first read, before any append
	appended := map[int64]bool{}
	for i, t := range c.h {
		if t.Status != Committed {
			continue
		}
		clear(read)
		clear(appended)
		for _, op := range t.Ops {
			if op.Append {
				if n, ok := read[op.Key]; ok && !appended[op.Key] {
					v := version{op.Key, n}
					if o, seen := first[v]; !seen {
						first[v] = int32(i)
					} else if !counted[v] {
						counted[v] = true
						c.found(LostUpdate, 2, func() string {
							return fmt.Sprintf("T%d and T%d both read key %d with %d elements and both appended to it\n  %s", o, i, op.Key, n, c.txns(o, int32(i)))
						})
					}
				}
				appended[op.Key] = true
			} else if _, ok := read[op.Key]; !ok && op.Done && !appended[op.Key] {
				read[op.Key] = len(op.List)
			}
		}
	}
}

// txns writes the transactions named, one a line.
func (c *checker) txns(ids ...int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("T%d %s", id, c.h[id])
	}
	return strings.Join(parts, "\n  ")
}
