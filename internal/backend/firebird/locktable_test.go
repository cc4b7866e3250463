package firebird

import (
	"slices"
	"testing"
)

// TestParsePendingTables: fb_lock_print -l -n as Firebird 3.0.11 prints
// it: a user table's lock with one request pending; system tables and
// other series are not the users' table locks.
func TestParsePendingTables(t *testing.T) {
	out := []byte(`LOCK_HEADER BLOCK
	Version: 146, Creation timestamp: 2026-11-29 06:05:35
	Owners (5):	forward:  78400, backward:  81336

LOCK BLOCK  95504
	Series: 2, State: 3, Size: 16, Length: 12, Data: 0
	Key: 0128:000000000, Flags: 0x00, Pending request count:      1
	Requests (2):	forward: 100648, backward: 101664
		Request 100648, Owner:  78584, State: 3 (3), Flags: 0x40
		Request 101664, Owner:  81336, State: 3 (6), Flags: 0x02

LOCK BLOCK  95272
	Series: 2, State: 3, Size: 16, Length: 12, Data: 0
	Key: 0005:000000000, Flags: 0x00, Pending request count:      2

LOCK BLOCK  96000
	Series: 4, State: 6, Size: 8, Length: 8, Data: 0
	Key: 000000131, Flags: 0x00, Pending request count:      1

LOCK BLOCK  97000
	Series: 2, State: 3, Size: 16, Length: 12, Data: 0
	Key: 0130:000000000, Flags: 0x00, Pending request count:      0
`)
	tables, pending := parsePendingTables(out)
	if !slices.Equal(tables, []int{128}) || pending != 1 {
		t.Fatalf("tables %v, %d pending; want [128] and 1", tables, pending)
	}
}
