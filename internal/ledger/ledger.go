// Package ledger keeps, outside the engine, what a workload's commits did to
// the ids it tracks (workload.Ledger) and when, and judges what a database
// holds after a crash or a restore against it: what was acknowledged before
// a point must be there, what was never committed before it must not, and
// what was in flight around it may go either way.
//
// A Book is what dbgauge crash's controller reads from its child's pipe and
// what a run keeps for --backup's restore checks.
package ledger

import (
	"bufio"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// tick is the resolution of the times a Book keeps: 100 µs in a uint32
// reaches 119 hours. Times of sending are rounded down and times of
// acknowledgement up, so the rounding only ever moves an id into "either
// way", never into "lost" or "phantom".
const tick = 100 * time.Microsecond

// pageBits sizes the pages ids are kept in: ids are mostly dense counters.
const pageBits = 12

// marks are the moments of one id, in ticks since the Book began; 0: never.
type marks struct{ committing, acked, removing, removed uint32 }

type page [1 << pageBits]marks

// Book is a ledger that remembers when each id was marked. It is safe for
// concurrent use.
type Book struct {
	mu    sync.Mutex
	t0    time.Time
	pages map[int64]*page
	first chan struct{} // closed at the first acknowledgement
	once  sync.Once
	n     struct{ acked, inFlight int64 }
}

// New returns an empty Book whose clock starts now.
func New() *Book {
	return &Book{t0: time.Now(), pages: map[int64]*page{}, first: make(chan struct{})}
}

var _ workload.Ledger = (*Book)(nil)

// Mark records m for ids, now.
func (b *Book) Mark(m workload.Mark, ids []int64) { b.MarkAt(m, ids, time.Now()) }

// MarkAt records m for ids at time at.
func (b *Book) MarkAt(m workload.Mark, ids []int64, at time.Time) {
	if len(ids) == 0 {
		return
	}
	down, up := b.ticks(at, false), b.ticks(at, true)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		k := b.at(id)
		switch m {
		case workload.Existing:
			k.committing, k.acked = 1, 1
		case workload.Committing:
			if k.committing == 0 {
				b.n.inFlight++
			}
			k.committing = down
		case workload.Acked:
			if k.acked == 0 {
				b.n.acked++
				if k.committing != 0 {
					b.n.inFlight--
				}
			}
			k.acked = up
		case workload.Removing:
			k.removing = down
		case workload.Removed:
			k.removed = up
		}
	}
	if m == workload.Acked {
		b.once.Do(func() { close(b.first) })
	}
}

// ticks converts a time to ticks since t0, rounded down or up, never 0 or 1
// (1 marks what existed before the run).
func (b *Book) ticks(t time.Time, up bool) uint32 {
	d := t.Sub(b.t0)
	n := d / tick
	if up && d%tick != 0 {
		n++
	}
	return uint32(max(int64(n), 0)) + 2
}

func (b *Book) at(id int64) *marks {
	p := b.pages[id>>pageBits]
	if p == nil {
		p = new(page)
		b.pages[id>>pageBits] = p
	}
	return &p[id&(1<<pageBits-1)]
}

// First is closed at the first acknowledgement.
func (b *Book) First() <-chan struct{} { return b.first }

// Counts returns how many ids were acknowledged and how many were sent for
// commit and never acknowledged.
func (b *Book) Counts() (acked, inFlight int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n.acked, b.n.inFlight
}

// Verdict is what a database holds, judged against a Book.
type Verdict struct {
	Present  int64 // ids the database holds
	Required int64 // acknowledged before the point (or there before the run), not removed
	Lost     int64 // required and missing, or their acknowledged removal undone
	// LostSample is the smallest lost ids, at most 10.
	LostSample      []int64
	Phantom         int64 // present, never sent for commit before the point
	Unknown         int64 // in flight around the point: either way is right
	UnknownSurvived int64 // of those, the ones present
}

// Verify judges present (the ids a database holds) as a state the database
// passed through at some moment in [from, to]: a crash's moment (from = to),
// a backup's consistency point (somewhere between its start and end), or a
// moment a restore rolled forward to. An id is required if it was
// acknowledged before from and no commit removing it was sent before to; it
// must be absent if no commit making it was sent before to, or if its
// removal was acknowledged before from.
func (b *Book) Verify(present map[int64]bool, from, to time.Time) Verdict {
	f, t := b.ticks(from, false), b.ticks(to, true)
	b.mu.Lock()
	defer b.mu.Unlock()
	v := Verdict{Present: int64(len(present))}
	var lost []int64
	for base, p := range b.pages {
		for i := range p {
			k := &p[i]
			if k.committing == 0 && k.acked == 0 && k.removing == 0 {
				continue
			}
			id := base<<pageBits | int64(i)
			has := present[id]
			sent := k.committing != 0 && k.committing <= t || k.acked != 0 && k.acked <= t
			switch {
			case k.removed != 0 && k.removed <= f:
				if has {
					lost = append(lost, id) // an acknowledged removal undone
				}
			case k.acked != 0 && k.acked <= f && (k.removing == 0 || k.removing > t):
				v.Required++
				if !has {
					lost = append(lost, id)
				}
			case !sent:
				if has {
					v.Phantom++
				}
			default:
				v.Unknown++
				if has {
					v.UnknownSurvived++
				}
			}
		}
	}
	// Ids the Book never heard of are phantoms too.
	for id := range present {
		p := b.pages[id>>pageBits]
		if p == nil {
			v.Phantom++
			continue
		}
		if k := p[id&(1<<pageBits-1)]; k.committing == 0 && k.acked == 0 && k.removing == 0 {
			v.Phantom++
		}
	}
	slices.Sort(lost)
	v.Lost, v.LostSample = int64(len(lost)), lost[:min(len(lost), 10)]
	return v
}

// Read reads a pipe's ledger lines ("a 17 18") into the Book until the
// writer closes, marking each line when it is read.
func (b *Book) Read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var ids []int64
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 3 {
			continue
		}
		ids = ids[:0]
		for _, f := range splitSpaces(line[2:]) {
			if id, err := strconv.ParseInt(string(f), 10, 64); err == nil {
				ids = append(ids, id)
			}
		}
		b.Mark(workload.Mark(line[0]), ids)
	}
	return sc.Err()
}

func splitSpaces(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != ' ' {
			i++
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

// Pipe is a ledger that writes each mark as one line ("b 17 18") to f, in
// one write, so that the reader sees an acknowledgement as soon as the
// workload does.
type Pipe struct {
	mu  sync.Mutex
	f   *os.File
	buf []byte
}

// NewPipe writes marks to f.
func NewPipe(f *os.File) *Pipe { return &Pipe{f: f} }

// Mark writes m and ids as a line.
func (l *Pipe) Mark(m workload.Mark, ids []int64) {
	if len(ids) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := append(l.buf[:0], byte(m))
	for _, id := range ids {
		b = append(b, ' ')
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, '\n')
	l.buf = b
	_, _ = l.f.Write(b)
}

// Tee marks in every non-nil ledger of ls.
func Tee(ls ...workload.Ledger) workload.Ledger {
	var t tee
	for _, l := range ls {
		if l != nil {
			t = append(t, l)
		}
	}
	if len(t) == 1 {
		return t[0]
	}
	return t
}

type tee []workload.Ledger

func (t tee) Mark(m workload.Mark, ids []int64) {
	for _, l := range t {
		l.Mark(m, ids)
	}
}

// AckedAround returns the last acknowledgement before t and the first after
// it (zero times when there is none): a write outage's edges.
func (b *Book) AckedAround(t time.Time) (before, after time.Time) {
	at := b.ticks(t, false)
	b.mu.Lock()
	defer b.mu.Unlock()
	var lo, hi uint32
	for _, p := range b.pages {
		for i := range p {
			a := p[i].acked
			if a < 2 { // never, or before the run
				continue
			}
			if a <= at && a > lo {
				lo = a
			}
			if a > at && (hi == 0 || a < hi) {
				hi = a
			}
		}
	}
	conv := func(n uint32) time.Time {
		if n == 0 {
			return time.Time{}
		}
		return b.t0.Add(time.Duration(n-2) * tick)
	}
	return conv(lo), conv(hi)
}
