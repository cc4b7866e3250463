package elle

import (
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/topo"
)

// infer adds the dependencies the reads show, between the committed
// transactions and those of unknown outcome whose appends were read:
// ww from each element's writer to the next element's, wr from the writer
// of a read's last element to the reader, rw from a reader to the writer
// of the element after what it read.
func (c *checker) infer() {
	c.inGraph = make([]bool, len(c.h))
	for i, t := range c.h {
		c.inGraph[i] = t.Status == Committed
	}
	for _, ord := range c.order {
		for _, v := range ord {
			if w, ok := c.writer[v]; ok && c.h[w].Status == Unknown {
				c.inGraph[w] = true // it committed: it was read
			}
		}
	}
	add := func(from, to int32, kind uint8, key int64) {
		if from != to && c.inGraph[from] && c.inGraph[to] {
			c.edges = append(c.edges, edge{from, to, kind, key})
			c.res.Edges[edgeName[kind]]++
		}
	}
	for k, ord := range c.order {
		for i := 1; i < len(ord); i++ {
			a, okA := c.writer[ord[i-1]]
			b, okB := c.writer[ord[i]]
			if okA && okB {
				add(a, b, ww, k)
			}
		}
	}
	c.committedReads(func(r int32, op Op) {
		ord := c.order[op.Key]
		n := len(op.List)
		if n > len(ord) || (n > 0 && ord[n-1] != op.List[n-1]) {
			return // not a prefix of the order: reported, no edge inferred
		}
		if n > 0 {
			if w, ok := c.writer[op.List[n-1]]; ok {
				add(w, r, wr, op.Key)
			}
		}
		if n < len(ord) {
			if w, ok := c.writer[ord[n]]; ok {
				add(r, w, rw, op.Key)
			}
		}
	})
	c.g = newGraph(len(c.h), c.edges)
	c.edges = nil
}

// deps is the dependency graph in compressed rows: the edges from node n
// are to[start[n]:start[n+1]], each with its kinds (bits) and, per kind,
// a key that shows it. It is a gonum graph.Directed, for topo.TarjanSCC.
type deps struct {
	start []int32
	to    []int32
	kinds []uint8
	keys  [][3]int64
	nodes []int32 // the nodes with an edge
}

// newGraph merges the edges between the same two nodes, by counting sort
// on the source: linear in the edges.
func newGraph(n int, es []edge) *deps {
	g := &deps{start: make([]int32, n+1)}
	for _, e := range es {
		g.start[e.from+1]++
	}
	for i := 1; i <= n; i++ {
		g.start[i] += g.start[i-1]
	}
	next := slices.Clone(g.start[:n])
	sorted := make([]edge, len(es))
	for _, e := range es {
		sorted[next[e.from]] = e
		next[e.from]++
	}
	has := make([]bool, n)
	merged := make([]int32, n+1)
	at := map[int32]int{} // to → index in g.to, for the node being merged
	for v := 0; v < n; v++ {
		clear(at)
		for _, e := range sorted[g.start[v]:g.start[v+1]] {
			i, ok := at[e.to]
			if !ok {
				i = len(g.to)
				at[e.to] = i
				g.to, g.kinds, g.keys = append(g.to, e.to), append(g.kinds, 0), append(g.keys, [3]int64{})
				has[v], has[e.to] = true, true
			}
			g.kinds[i] |= e.kind
			g.keys[i][bit(e.kind)] = e.key
		}
		merged[v+1] = int32(len(g.to))
	}
	g.start = merged
	for v, ok := range has {
		if ok {
			g.nodes = append(g.nodes, int32(v))
		}
	}
	return g
}

func bit(kind uint8) int {
	switch kind {
	case ww:
		return 0
	case wr:
		return 1
	}
	return 2
}

// view is the part of g gonum sees: some nodes and the edges of some
// kinds between them.
type view struct {
	g     *deps
	nodes []int32
	in    func(int32) bool
	kinds uint8
}

type node int64

func (n node) ID() int64 { return int64(n) }

// nodeList iterates over a slice of node ids.
type nodeList struct {
	ids []int32
	i   int
}

func (l *nodeList) Next() bool          { l.i++; return l.i <= len(l.ids) }
func (l *nodeList) Len() int            { return len(l.ids) - max(l.i, 0) }
func (l *nodeList) Reset()              { l.i = 0 }
func (l *nodeList) Node() graph.Node    { return node(l.ids[l.i-1]) }
func (v view) Node(id int64) graph.Node { return node(id) }
func (v view) Nodes() graph.Nodes       { return &nodeList{ids: v.nodes} }
func (v view) From(id int64) graph.Nodes {
	var out []int32
	g := v.g
	for i := g.start[id]; i < g.start[id+1]; i++ {
		if g.kinds[i]&v.kinds != 0 && v.in(g.to[i]) {
			out = append(out, g.to[i])
		}
	}
	return &nodeList{ids: out}
}
func (v view) HasEdgeBetween(x, y int64) bool { return v.HasEdgeFromTo(x, y) || v.HasEdgeFromTo(y, x) }
func (v view) HasEdgeFromTo(x, y int64) bool {
	g := v.g
	for i := g.start[x]; i < g.start[x+1]; i++ {
		if int64(g.to[i]) == y && g.kinds[i]&v.kinds != 0 && v.in(g.to[i]) {
			return true
		}
	}
	return false
}
func (v view) Edge(x, y int64) graph.Edge {
	if !v.HasEdgeFromTo(x, y) {
		return nil
	}
	return arc{node(x), node(y)}
}
func (v view) To(id int64) graph.Nodes { panic("elle: To is not used by topo.TarjanSCC") }

type arc struct{ f, t graph.Node }

func (a arc) From() graph.Node         { return a.f }
func (a arc) To() graph.Node           { return a.t }
func (a arc) ReversedEdge() graph.Edge { return arc{a.t, a.f} }

// components returns the strongly connected components of two nodes or
// more of the view.
func components(v view) [][]int32 {
	var out [][]int32
	for _, scc := range topo.TarjanSCC(v) {
		if len(scc) < 2 {
			continue
		}
		ids := make([]int32, len(scc))
		for i, n := range scc {
			ids[i] = int32(n.ID())
		}
		out = append(out, ids)
	}
	return out
}

// cycles finds the dependency graph's strongly connected components and,
// in each, the weakest cycles it holds: G0 (ww only), G1c (ww and wr, one
// wr at least), then, from up to Options.Searches of its rw edges a→b,
// a G-single (a path b→a of ww and wr edges closes a cycle with one rw)
// or a G2-item (no such path: every cycle through the edge has two rw).
func (c *checker) cycles() {
	comp := make([]int32, len(c.h)) // component + 1, 0: none
	all := view{g: c.g, nodes: c.g.nodes, in: func(int32) bool { return true }, kinds: ww | wr | rw}
	sccs := components(all)
	c.res.Components = len(sccs)
	bfs := newSearch(len(c.h))
	for ci, scc := range sccs {
		for _, n := range scc {
			comp[n] = int32(ci + 1)
		}
		in := func(n int32) bool { return comp[n] == int32(ci+1) }
		// G0: a cycle of ww edges alone.
		for _, sub := range components(view{g: c.g, nodes: scc, in: in, kinds: ww}) {
			cyc := bfs.cycle(c.g, sub[0], ww, inSet(sub))
			c.found(G0, len(cyc), func() string { return c.describe(cyc, ww) })
			break
		}
		// G1c: a cycle of ww and wr edges through a wr edge.
	g1c:
		for _, sub := range components(view{g: c.g, nodes: scc, in: in, kinds: ww | wr}) {
			member := inSet(sub)
			for _, a := range sub {
				for i := c.g.start[a]; i < c.g.start[a+1]; i++ {
					b := c.g.to[i]
					if c.g.kinds[i]&wr != 0 && member(b) {
						p := bfs.path(c.g, b, a, ww|wr, member)
						cyc := append([]int32{a}, p[:len(p)-1]...)
						c.found(G1c, len(cyc), func() string { return c.describe(cyc, ww|wr) })
						break g1c
					}
				}
			}
		}
		c.antiDependencies(scc, in, bfs)
	}
}

// antiDependencies tries rw edges of one component as the start of a
// G-single or a G2-item cycle.
func (c *checker) antiDependencies(scc []int32, in func(int32) bool, bfs *search) {
	tries, single, item := 0, false, false
	for _, a := range scc {
		for i := c.g.start[a]; i < c.g.start[a+1]; i++ {
			b := c.g.to[i]
			if c.g.kinds[i]&rw == 0 || !in(b) {
				continue
			}
			if tries++; tries > c.opts.Searches || single && item {
				return
			}
			if p := bfs.path(c.g, b, a, ww|wr, in); p != nil {
				if !single {
					single = true
					cyc := append([]int32{a}, p[:len(p)-1]...)
					c.found(GSingle, len(cyc), func() string { return c.describe(cyc, ww|wr|rw) })
				}
				continue
			}
			if !item {
				item = true
				p := bfs.path(c.g, b, a, ww|wr|rw, in)
				cyc := append([]int32{a}, p[:len(p)-1]...)
				c.found(G2Item, len(cyc), func() string { return c.describe(cyc, ww|wr|rw) })
			}
		}
	}
}

func inSet(ids []int32) func(int32) bool {
	m := make(map[int32]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return func(n int32) bool { return m[n] }
}

// search is a breadth-first search whose marks are reused: a node is seen
// when its stamp is the search's.
type search struct {
	stamp  []uint32
	parent []int32
	now    uint32
	queue  []int32
}

func newSearch(n int) *search { return &search{stamp: make([]uint32, n), parent: make([]int32, n)} }

// path returns the nodes of a shortest path from → to (from first, to
// last) over edges of the kinds given between nodes in, or nil.
func (s *search) path(g *deps, from, to int32, kinds uint8, in func(int32) bool) []int32 {
	s.now++
	s.stamp[from], s.parent[from] = s.now, -1
	s.queue = append(s.queue[:0], from)
	for len(s.queue) > 0 {
		v := s.queue[0]
		s.queue = s.queue[1:]
		if v == to {
			var p []int32
			for ; v != -1; v = s.parent[v] {
				p = append(p, v)
			}
			slices.Reverse(p)
			return p
		}
		for i := g.start[v]; i < g.start[v+1]; i++ {
			w := g.to[i]
			if g.kinds[i]&kinds != 0 && s.stamp[w] != s.now && in(w) {
				s.stamp[w], s.parent[w] = s.now, v
				s.queue = append(s.queue, w)
			}
		}
	}
	return nil
}

// cycle returns a shortest cycle through n: n, …, back to n's
// predecessor (the edge back to n closes it).
func (s *search) cycle(g *deps, n int32, kinds uint8, in func(int32) bool) []int32 {
	var best []int32
	for i := g.start[n]; i < g.start[n+1]; i++ {
		w := g.to[i]
		if g.kinds[i]&kinds == 0 || !in(w) {
			continue
		}
		if p := s.path(g, w, n, kinds, in); p != nil && (best == nil || len(p)+1 < len(best)) {
			best = append([]int32{n}, p[:len(p)-1]...)
		}
	}
	return best
}

// describe writes a cycle: its nodes, each edge's kind and key, and the
// transactions, one a line.
func (c *checker) describe(cyc []int32, kinds uint8) string {
	var b strings.Builder
	for i, a := range cyc {
		z := cyc[(i+1)%len(cyc)]
		fmt.Fprintf(&b, "T%d -%s-> ", a, c.edgeLabel(a, z, kinds))
	}
	fmt.Fprintf(&b, "T%d\n  %s", cyc[0], c.txns(cyc...))
	return b.String()
}

// edgeLabel names the kinds of the edge a→z among kinds, with their keys:
// "rw(k 7)".
func (c *checker) edgeLabel(a, z int32, kinds uint8) string {
	g := c.g
	for i := g.start[a]; i < g.start[a+1]; i++ {
		if g.to[i] != z {
			continue
		}
		var parts []string
		for _, k := range []uint8{ww, wr, rw} {
			if g.kinds[i]&k&kinds != 0 {
				parts = append(parts, fmt.Sprintf("%s(k %d)", edgeName[k], g.keys[i][bit(k)]))
			}
		}
		return strings.Join(parts, ",")
	}
	return "?"
}
