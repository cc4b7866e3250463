package server

import (
	"maps"
	"slices"
)

// Settings are a server's parameters by name: what --set, the durability
// level and the engine's own choices ask of it. Rendered, they come in the
// order of their names, so that the same settings make the same command
// line and configuration file.
type Settings map[string]string

// Keys returns the names in order.
func (s Settings) Keys() []string { return slices.Sorted(maps.Keys(s)) }

// Render renders each setting with each (as -c k=v, --k=v, or a line of a
// configuration file), in the order of their names.
func (s Settings) Render(each func(k, v string) []string) []string {
	var out []string
	for _, k := range s.Keys() {
		out = append(out, each(k, s[k])...)
	}
	return out
}

// With returns a copy of s with more's settings added; more wins.
func (s Settings) With(more map[string]string) Settings {
	out := make(Settings, len(s)+len(more))
	maps.Copy(out, s)
	maps.Copy(out, more)
	return out
}
