package backend

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// owning is an engine whose levels decide two settings, one of them free
// at off, and which refuses lazy.
var owning = Spec{
	Durability: map[Durability]string{Sync: "flushes", Lazy: Refused + "no lazy here", Off: "never flushes"},
	Owns: []Owned{
		{Key: "commit_flush", Allows: map[Durability][]string{Sync: {"on", "local"}, Lazy: {"off"}}, Canon: CanonBool("on", "off")},
		{Key: "fsync", Allows: map[Durability][]string{Sync: {"on"}, Lazy: {"on"}, Off: {"off"}}, Canon: CanonBool("on", "off")},
	},
}

func TestContradiction(t *testing.T) {
	for _, c := range []struct {
		d    Durability
		set  []KeyValue
		want string // "" when taken
	}{
		{Sync, []KeyValue{{"commit_flush", "local"}, {"other", "x"}}, ""},
		{Sync, []KeyValue{{"COMMIT_FLUSH", "TRUE"}}, ""},
		{Off, []KeyValue{{"commit_flush", "off"}, {"fsync", "no"}}, ""},
		// Lazy is refused: the hint offers the next level that allows it.
		{Sync, []KeyValue{{"commit_flush", "off"}}, "--set commit_flush=off contradicts --durability sync, which needs on or local: drop the --set, or use --durability off"},
		{Sync, []KeyValue{{"fsync", "0"}}, "--set fsync=0 contradicts --durability sync, which needs on: drop the --set, or use --durability off"},
		{Off, []KeyValue{{"fsync", "on"}}, "--set fsync=on contradicts --durability off, which needs off: drop the --set, or use --durability sync"},
		{Sync, []KeyValue{{"fsync", "sometimes"}}, "--set fsync=sometimes contradicts --durability sync, which needs on: drop the --set"},
	} {
		err := owning.Contradiction(c.d, c.set)
		var bad *knob.Error
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %v: %v, want it taken", c.d, c.set, err)
		case c.want != "" && (!errors.As(err, &bad) || err.Error() != c.want):
			t.Errorf("%s %v: %v, want %q", c.d, c.set, err, c.want)
		}
	}
}

func TestLevelsOf(t *testing.T) {
	for _, c := range []struct {
		settings map[string]string
		fit      []Durability
		known    bool
		unlike   []string // at sync
	}{
		{map[string]string{"commit_flush": "on", "fsync": "on"}, []Durability{Sync}, true, nil},
		{map[string]string{"commit_flush": "on", "fsync": "off"}, []Durability{Off}, true, []string{"fsync=off (sync needs on)"}},
		{map[string]string{"fsync": "OFF"}, []Durability{Off}, true, []string{"fsync=OFF (sync needs on)"}},
		{map[string]string{"fsync": "on"}, []Durability{Sync}, true, nil},
		{map[string]string{"commit_flush": "off", "fsync": "on"}, nil, true, []string{"commit_flush=off (sync needs on or local)"}},
		{map[string]string{"unrelated": "1"}, nil, false, nil},
	} {
		fit, known := owning.LevelsOf(c.settings)
		if !slices.Equal(fit, c.fit) || known != c.known {
			t.Errorf("%v: levels %v (known %v), want %v (%v)", c.settings, fit, known, c.fit, c.known)
		}
		if got := owning.Unlike(Sync, c.settings); !slices.Equal(got, c.unlike) {
			t.Errorf("%v: unlike sync %v, want %v", c.settings, got, c.unlike)
		}
	}
}

// TestExpected: each level expects the first value its owned settings
// allow there, and what Expect adds; a setting free at a level is not
// expected there.
func TestExpected(t *testing.T) {
	s := owning
	s.Expect = map[Durability]map[string]string{Off: {"wal_level": "minimal"}}
	for d, want := range map[Durability]map[string]string{
		Sync: {"commit_flush": "on", "fsync": "on"},
		Lazy: {"commit_flush": "off", "fsync": "on"},
		Off:  {"fsync": "off", "wal_level": "minimal"},
	} {
		if got := s.Expected(d); !maps.Equal(got, want) {
			t.Errorf("%s: %v, want %v", d, got, want)
		}
	}
}
