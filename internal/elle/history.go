// Package elle checks a history of list-append transactions for isolation
// anomalies, after Jepsen's Elle (Kingsbury and Alvaro, "Elle: Inferring
// Isolation Anomalies from Experimental Observations", VLDB 2020): every
// value appended to a key is unique, so a read of a key's list tells which
// transaction wrote each element and in what order. From the lists it
// infers the dependencies between transactions (write-write, write-read,
// read-write), searches the graph's cycles and names what it finds: G0,
// G1c, G-single and G2-item from the cycles, G1a, G1b, lost updates, and
// internal and order inconsistencies from the reads themselves, each with
// one small example. Check is linear in the history's size, but for the
// bounded cycle searches (Options.Searches).
package elle

import (
	"fmt"
	"strconv"
	"strings"
)

// Status is what a transaction's commit came to.
type Status uint8

// The statuses.
const (
	// Committed: the engine acknowledged the commit.
	Committed Status = iota
	// Aborted: the transaction certainly did not commit (an error before
	// or at its commit that the engine answered).
	Aborted
	// Unknown: the commit was sent and no answer came (the connection
	// died): it may or may not have committed.
	Unknown
)

func (s Status) String() string {
	switch s {
	case Committed:
		return "committed"
	case Aborted:
		return "aborted"
	}
	return "unknown"
}

// Op is one operation of a transaction: an append of Value to Key's list,
// or a read of Key's list that returned List.
type Op struct {
	Append bool
	Key    int64
	Value  int64   // an append's value, unique in the history
	List   []int64 // a read's list (nil: the key had none); Done false: no answer
	Done   bool    // the operation returned
}

// Txn is one transaction attempt, as its client saw it.
type Txn struct {
	Client int
	Status Status
	Ops    []Op
}

// String writes a transaction as Elle does: "T12 (client 3, committed):
// r 5 [1 2]; a 5 7".
func (t Txn) String() string {
	var b strings.Builder
	for i, op := range t.Ops {
		if i > 0 {
			b.WriteString("; ")
		}
		switch {
		case op.Append:
			fmt.Fprintf(&b, "a %d %d", op.Key, op.Value)
		case !op.Done:
			fmt.Fprintf(&b, "r %d ?", op.Key)
		default:
			fmt.Fprintf(&b, "r %d %s", op.Key, list(op.List))
		}
	}
	return fmt.Sprintf("(client %d, %s): %s", t.Client, t.Status, b.String())
}

// list writes a list as [1 2 3], its middle elided past 8 elements.
func list(l []int64) string {
	parts := make([]string, 0, min(len(l), 9))
	for i, v := range l {
		if len(l) > 8 && i == 3 {
			parts = append(parts, fmt.Sprintf("…%d more…", len(l)-6))
		}
		if len(l) > 8 && i >= 3 && i < len(l)-3 {
			continue
		}
		parts = append(parts, strconv.FormatInt(v, 10))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
