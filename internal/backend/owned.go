package backend

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// Owned is a raw engine setting the durability levels decide
// (PostgreSQL's synchronous_commit, SQLite's synchronous): a --set of it
// that the run's level does not allow is refused (Spec.Contradiction), and
// what the engine reads back of it says which level a run really had
// (Spec.LevelOf, Spec.Unlike).
type Owned struct {
	// Key names the setting as --set and the settings read back do (case
	// is ignored).
	Key string
	// Allows lists, for each level, the values that keep to it, spelt as
	// the engine reads them back, the one dbgauge sets at that level first
	// (the conformance suite expects to read it back: Spec.Expected); a
	// level without an entry leaves the setting free.
	Allows map[Durability][]string
	// Canon spells a --set value as the engine reads it back ("true" →
	// "on", "2" → "FULL"); nil keeps it as given. Values compare without
	// regard to case.
	Canon func(string) string
}

// levels are the durability levels, strongest first.
var levels = []Durability{Sync, Lazy, Off}

func (o Owned) canon(v string) string {
	v = strings.TrimSpace(v)
	if o.Canon != nil {
		return o.Canon(v)
	}
	return v
}

// allows reports whether level d leaves the setting free or allows v.
func (o Owned) allows(d Durability, v string) bool {
	vs, owned := o.Allows[d]
	return !owned || slices.ContainsFunc(vs, func(a string) bool { return strings.EqualFold(a, v) })
}

// HasLevel reports whether the engine has durability level d: it says what
// the level does, and does not refuse it.
func (s Spec) HasLevel(d Durability) bool {
	does, ok := s.Durability[d]
	return ok && !strings.HasPrefix(does, Refused)
}

// Contradiction returns the bad input of a --set that contradicts
// --durability d: a setting d owns, given a value d does not allow
// ("--set synchronous_commit=off contradicts --durability sync, which needs
// on: drop the --set, or use --durability lazy"); nil when none does.
func (s Spec) Contradiction(d Durability, set []KeyValue) error {
	for _, kv := range set {
		for _, o := range s.Owns {
			v := o.canon(kv.Value)
			if !strings.EqualFold(kv.Key, o.Key) || o.allows(d, v) {
				continue
			}
			hint := "drop the --set"
			for _, l := range levels {
				if l != d && s.HasLevel(l) && o.allows(l, v) {
					hint += ", or use --durability " + string(l)
					break
				}
			}
			return knob.Bad(hint, "--set %s=%s contradicts --durability %s, which needs %s", kv.Key, kv.Value, d, strings.Join(o.Allows[d], " or "))
		}
	}
	return nil
}

// Unlike lists the owned settings read back that level d does not allow,
// each as "fsync=off (sync needs on)"; none when the engine is at d, or
// reads back none of them.
func (s Spec) Unlike(d Durability, settings map[string]string) []string {
	var out []string
	for _, o := range s.Owns {
		v, ok := settings[o.Key]
		if !ok || o.allows(d, v) {
			continue
		}
		out = append(out, fmt.Sprintf("%s=%s (%s needs %s)", o.Key, v, d, strings.Join(o.Allows[d], " or ")))
	}
	return out
}

// LevelsOf returns the levels the engine has whose owned settings all
// allow what was read back, strongest first (more than one where the
// settings read back do not tell them apart: bbolt's NoSync is true at
// lazy and off); known is false when none of them was read back (the
// engine keeps nothing to read: see Engine.NotReadBack), and fit is empty
// when they fit no level.
func (s Spec) LevelsOf(settings map[string]string) (fit []Durability, known bool) {
	for _, o := range s.Owns {
		if _, ok := settings[o.Key]; ok {
			known = true
		}
	}
	if !known {
		return nil, false
	}
	for _, l := range levels {
		if s.HasLevel(l) && len(s.Unlike(l, settings)) == 0 {
			fit = append(fit, l)
		}
	}
	return fit, true
}

// Expected is what the engine must read back at level d: each setting it
// Owns as dbgauge sets it there (the first value Allows lists), and what
// Expect adds; empty where neither says anything of d.
func (s Spec) Expected(d Durability) map[string]string {
	want := map[string]string{}
	for _, o := range s.Owns {
		if vs := o.Allows[d]; len(vs) > 0 {
			want[o.Key] = vs[0]
		}
	}
	maps.Copy(want, s.Expect[d])
	return want
}

// CanonBool spells a boolean setting as the engine reads it back, with
// yes and no its words for true and false ("on"/"off", "true"/"false");
// a value that is no boolean stays as given.
func CanonBool(yes, no string) func(string) string {
	return func(v string) string {
		switch strings.ToLower(v) {
		case "on", "yes", "y", "t", "true", "1":
			return yes
		case "off", "no", "n", "f", "false", "0":
			return no
		}
		return v
	}
}
