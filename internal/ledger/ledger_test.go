package ledger

import (
	"slices"
	"testing"
	"time"

	"github.com/dbgauge/dbgauge/internal/workload"
)

// TestVerifyWindow: a backup's state is some moment between its start and
// its end; what was acknowledged before the start must be there, what was
// never sent before the end must not, removals likewise, the rest either way.
func TestVerifyWindow(t *testing.T) {
	b := New()
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	b.MarkAt(workload.Existing, []int64{1, 2, 3}, t0)
	mark := func(m workload.Mark, id int64, ms int) { b.MarkAt(m, []int64{id}, at(ms)) }
	mark(workload.Committing, 10, 10) // acknowledged well before: required
	mark(workload.Acked, 10, 11)
	mark(workload.Committing, 11, 95) // acknowledged inside the window: either way
	mark(workload.Acked, 11, 120)
	mark(workload.Committing, 12, 300) // sent after the window: must be absent
	mark(workload.Acked, 12, 301)
	mark(workload.Removing, 1, 20) // removed before: must be absent
	mark(workload.Removed, 1, 21)
	mark(workload.Removing, 2, 150) // removal sent in the window: either way
	mark(workload.Removed, 2, 160)
	mark(workload.Committing, 13, 40) // sent, never acknowledged: either way
	from, to := at(100), at(200)

	// The right state: 3 and 10 (required), 11 and 2 (either way kept).
	v := b.Verify(map[int64]bool{2: true, 3: true, 10: true, 11: true}, from, to)
	if v.Required != 2 || v.Lost != 0 || v.Phantom != 0 || v.Unknown != 3 || v.UnknownSurvived != 2 {
		t.Fatalf("a right state judged %+v", v)
	}
	// A wrong one: 10 missing, 1's removal undone, 12 and 99 present.
	v = b.Verify(map[int64]bool{1: true, 3: true, 12: true, 99: true}, from, to)
	if v.Lost != 2 || !slices.Equal(v.LostSample, []int64{1, 10}) || v.Phantom != 2 {
		t.Fatalf("a wrong state judged %+v", v)
	}
	// A crash's moment after everything: only 13 is in flight.
	end := at(1000)
	v = b.Verify(map[int64]bool{3: true, 10: true, 11: true, 12: true}, end, end)
	if v.Required != 4 || v.Lost != 0 || v.Unknown != 1 || v.Phantom != 0 {
		t.Fatalf("after everything: %+v", v)
	}
	if acked, inFlight := b.Counts(); acked != 3 || inFlight != 1 {
		t.Fatalf("counts %d acked, %d in flight", acked, inFlight)
	}
}

// TestRounding: an acknowledgement a few microseconds after a point is not
// required at that point, whatever the ticks' rounding.
func TestRounding(t *testing.T) {
	b := New()
	p := b.t0.Add(5*time.Millisecond + 30*time.Microsecond)
	b.MarkAt(workload.Committing, []int64{7}, p.Add(-time.Millisecond))
	b.MarkAt(workload.Acked, []int64{7}, p.Add(10*time.Microsecond))
	if v := b.Verify(map[int64]bool{}, p, p); v.Lost != 0 || v.Unknown != 1 {
		t.Fatalf("%+v", v)
	}
}

// TestAckedAround: the edges of a write outage, to the tick.
func TestAckedAround(t *testing.T) {
	b := New()
	at := func(ms int) time.Time { return b.t0.Add(time.Duration(ms) * time.Millisecond) }
	for i, ms := range []int{10, 20, 30, 900, 950} {
		b.MarkAt(workload.Acked, []int64{int64(i)}, at(ms))
	}
	lo, hi := b.AckedAround(at(500))
	if d := lo.Sub(at(30)); d < 0 || d > tick {
		t.Errorf("last before: %v, want 30 ms", lo.Sub(b.t0))
	}
	if d := hi.Sub(at(900)); d < 0 || d > tick {
		t.Errorf("first after: %v, want 900 ms", hi.Sub(b.t0))
	}
	if _, hi := b.AckedAround(at(2000)); !hi.IsZero() {
		t.Errorf("nothing after: %v", hi)
	}
}
