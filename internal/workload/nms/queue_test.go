package nms

import (
	"slices"
	"testing"
)

func (q *queue) items() []int64 { return slices.Clone(q.ids[q.head:]) }

func TestQueueRollback(t *testing.T) {
	q := newQueue([]int64{1, 2, 3})
	q.push(10)
	if id, _ := q.pop(); id != 1 {
		t.Fatalf("pop = %d, want 1", id)
	}
	q.commit()
	q.push(11)
	q.pop()
	q.pop()
	q.push(12)
	q.rollback()
	if got := q.items(); !slices.Equal(got, []int64{2, 3, 10}) {
		t.Fatalf("after rollback %v, want [2 3 10]", got)
	}
	// Pop everything, including what was just pushed, then undo.
	q.push(13)
	for range 4 {
		q.pop()
	}
	q.rollback()
	if got := q.items(); !slices.Equal(got, []int64{2, 3, 10}) {
		t.Fatalf("after rollback %v, want [2 3 10]", got)
	}
	if _, ok := newQueue(nil).pop(); ok {
		t.Fatal("pop of an empty queue succeeded")
	}
}

// TestQueueForget: after a commit whose outcome is unknown the queue holds
// neither the channels the transaction set up nor those it cleared: either
// may be in the database or not, and no later call may count on them.
func TestQueueForget(t *testing.T) {
	q := newQueue([]int64{1, 2, 3})
	q.pop() // 1 cleared
	q.push(10)
	q.push(11)
	q.pop() // 2 cleared
	q.forget()
	if got := q.items(); !slices.Equal(got, []int64{3}) {
		t.Fatalf("after forget %v, want [3]", got)
	}
	q.rollback() // nothing left to undo
	if got := q.items(); !slices.Equal(got, []int64{3}) {
		t.Fatalf("rollback after forget %v, want [3]", got)
	}
}

func TestRecords(t *testing.T) {
	tm := terminal{ID: 7, Name: "VSAT-000007", Status: 3, Updates: 12, LastChange: -5, Alarm: "none", Note: "rain fade"}
	var back terminal
	if err := decodeTerminal(encodeTerminal(&tm), &back); err != nil || back != tm {
		t.Fatalf("terminal round trip: %+v, %v", back, err)
	}
	ch := channel{ID: 1 << 40, VSAT: 3, CU: 4, FreqHz: 14_000_000_000, Created: 99}
	var cb channel
	if err := decodeChannel(encodeChannel(&ch), &cb); err != nil || cb != ch {
		t.Fatalf("channel round trip: %+v, %v", cb, err)
	}
	if err := decodeTerminal([]byte{0x80}, &back); err == nil {
		t.Fatal("a truncated record decoded")
	}
}
