package backend

import (
	"strconv"
	"strings"
	"time"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// SetKey is one --set key an engine reads itself (an embedded engine's
// options): its name, the hint for a value it refuses, and how a value is
// read into the engine's options (false: not a good value).
type SetKey struct {
	Name string
	Want string
	Read func(value string) bool
}

// ApplySet reads each of set through the engine's keys, in the order given;
// a key the engine has not, or a value its key refuses, is bad input in the
// engine's name, which lists the keys it has.
func ApplySet(engine string, keys []SetKey, set []KeyValue) error {
	for _, kv := range set {
		k := findKey(keys, kv.Key)
		if k == nil {
			names := make([]string, len(keys))
			for i, k := range keys {
				names[i] = k.Name
			}
			return knob.Bad(engine+" accepts "+strings.Join(names, ", "), "--set %s: %s has no such setting", kv.Key, engine)
		}
		if !k.Read(kv.Value) {
			return knob.Bad(k.Want, "--set %s=%s is not a %s setting value", kv.Key, kv.Value, engine)
		}
	}
	return nil
}

func findKey(keys []SetKey, name string) *SetKey {
	for i := range keys {
		if keys[i].Name == name {
			return &keys[i]
		}
	}
	return nil
}

// BoolKey is a key whose value is true or false.
func BoolKey(name string, set func(bool)) SetKey {
	return SetKey{Name: name, Want: "give true or false", Read: func(v string) bool {
		b, err := strconv.ParseBool(v)
		if err == nil {
			set(b)
		}
		return err == nil
	}}
}

// IntKey is a key whose value is a whole number from lo to hi; want says so.
func IntKey(name, want string, lo, hi int, set func(int)) SetKey {
	return SetKey{Name: name, Want: want, Read: func(v string) bool {
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return false
		}
		set(n)
		return true
	}}
}

// SizeKey is a key whose value is a size: whole bytes, or followed by KB,
// MB or GB (powers of 1024).
func SizeKey(name string, set func(int64)) SetKey {
	return SetKey{Name: name, Want: "give a size in bytes, e.g. 67108864 or 64MB", Read: func(v string) bool {
		n, ok := parseBytes(v)
		if ok {
			set(n)
		}
		return ok
	}}
}

// ChoiceKey is a key whose value is one of choices' names.
func ChoiceKey(name, want string, choices map[string]func()) SetKey {
	return SetKey{Name: name, Want: want, Read: func(v string) bool {
		c, ok := choices[v]
		if ok {
			c()
		}
		return ok
	}}
}

// SyncIntervalKey is SyncInterval=DURATION, the period of an embedded
// engine's background flush (lazy durability): a positive duration.
func SyncIntervalKey(dst *time.Duration) SetKey {
	return SetKey{Name: "SyncInterval", Want: "give a duration, e.g. 100ms", Read: func(v string) bool {
		iv, err := knob.ParseDuration(v)
		if err != nil || iv <= 0 {
			return false
		}
		*dst = iv
		return true
	}}
}

// parseBytes reads a size: a whole number of bytes, or one followed by KB,
// MB or GB (powers of 1024).
func parseBytes(s string) (int64, bool) {
	mult := int64(1)
	u := strings.ToUpper(strings.TrimSpace(s))
	for _, x := range []struct {
		suffix string
		mult   int64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}} {
		if n, ok := strings.CutSuffix(u, x.suffix); ok {
			u, mult = strings.TrimSpace(n), x.mult
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}

// Agree reconciles a knob (--page-size, --cache: 0 when not given) with the
// same setting given by --set (*set: 0 when not given): they must agree,
// and the knob's value wins into *set.
func Agree[T int | int64](knobName string, given int64, setName string, set *T) error {
	if given == 0 {
		return nil
	}
	if *set != 0 && int64(*set) != given {
		return knob.Bad("give one of them", "%s %d and --set %s=%d disagree", knobName, given, setName, *set)
	}
	*set = T(given)
	return nil
}

// AgreeVar reconciles a knob (knobName: "--cache") that sets a server's
// variable key to want ("": the knob was not given) with settings, the
// server's variables so far (--set's among them): a value there must be
// want, and want goes into settings.
func AgreeVar(settings map[string]string, knobName, key, want string) error {
	if want == "" {
		return nil
	}
	if v, ok := settings[key]; ok && v != want {
		return knob.Bad("give one of them", "%s %s and --set %s=%s disagree", knobName, want, key, v)
	}
	settings[key] = want
	return nil
}
