package server

import (
	"os"
	"strings"
	"testing"
)

func TestMapsHugePages(t *testing.T) {
	const small = `55d0c0a00000-55d0c0b00000 r-xp 00000000 08:01 131 /usr/lib/postgresql/15/bin/postgres
7f1c00000000-7f1c08e00000 rw-s 00000000 00:01 3073 /dev/zero (deleted)
7ffd5e3f0000-7ffd5e411000 rw-p 00000000 00:00 0 [stack]
`
	const huge = `55d0c0a00000-55d0c0b00000 r-xp 00000000 08:01 131 /usr/lib/postgresql/15/bin/postgres
7f1c00000000-7f1c09000000 rw-s 00000000 00:0f 3073 /anon_hugepage (deleted)
`
	for _, c := range []struct {
		maps string
		want bool
	}{{small, false}, {huge, true}, {"", false}} {
		got, err := mapsHugePages(strings.NewReader(c.maps))
		if err != nil || got != c.want {
			t.Errorf("%q: %v, %v; want %v", c.maps, got, err, c.want)
		}
	}
	// This process has no hugetlb mapping, and its maps file reads.
	if got, err := HugePages(os.Getpid()); err != nil || got {
		t.Errorf("this process: %v, %v", got, err)
	}
	if n, err := ReservedHugePages(); err != nil || n < 0 {
		t.Errorf("vm.nr_hugepages: %d, %v", n, err)
	}
}
