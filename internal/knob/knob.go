package knob

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind is what a knob's value is: how it is written, checked and shown.
type Kind uint8

// The kinds of knob. Text is the zero Kind.
const (
	Text     Kind = iota // free text: a URL, a path, a key=value pair (Values says its form)
	Int                  // a whole number
	Number               // a number ≥ 0, fractions allowed
	Duration             // a duration with its unit: 30s, 5m, 1h ("0" too)
	Size                 // a size in bytes: 8192, 64KiB, 256MB
	Switch               // on when given: --x, --x=false
	Choice               // one of Choices
)

// kindNames are the kinds as --help shows them.
var kindNames = [...]string{Text: "text", Int: "int", Number: "number", Duration: "duration", Size: "size", Switch: "switch", Choice: "choice"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Spec declares one knob: its help, its validation, its parsing, whether
// it can be a matrix axis and how the result records it all come from here.
type Spec struct {
	Name    string   // flag name, without dashes
	Short   string   // a one-letter flag too, as the tool users know it: "f" for pgbench's -f; "" for none
	Kind    Kind     // what its value is
	Choices []string // a Choice's words
	Default string   // "" means unset
	Values  string   // the form of its value when the kind alone does not say it: "op|unit|every:N", "8..1048576"
	Usage   string   // one line: what it does
	Repeat  bool     // may be given several times (values joined by "\n")
	Single  bool     // never a matrix axis: commas in its value are its own
	// Uses are the commands besides a run (run, cluster, crash) that read
	// the knob; each command's --help lists exactly the knobs it reads.
	Uses Use
}

// Use is a set of the commands that read a knob besides a run.
type Use uint8

// The commands besides a run that may read a knob.
const (
	ForLoad  Use = 1 << iota // dbgauge load: the engine, its settings, the dataset's shape
	ForCheck                 // dbgauge check: the engine, and what the checks read
)

// UsedBy reports whether the knob is read by every command in u.
func (s Spec) UsedBy(u Use) bool { return s.Uses&u == u }

// IsSwitch reports whether the knob is given without a value.
func (s Spec) IsSwitch() bool { return s.Kind == Switch }

// Axis reports whether a comma list of values makes the knob a matrix axis:
// every knob but switches and those whose commas are their own.
func (s Spec) Axis() bool { return !s.Single && s.Kind != Switch }

// Form is the knob's value as --help shows it: "int", "int 1..64",
// "duration", "sync|lazy|off", the form of a text ("URL", "at=D[,to=D]");
// "" for a switch, which takes no value.
func (s Spec) Form() string {
	switch {
	case s.Kind == Switch:
		return ""
	case s.Kind == Choice:
		return strings.Join(s.Choices, "|")
	case s.Values != "" && s.Kind == Text:
		return s.Values
	case s.Values != "":
		return s.Kind.String() + " " + s.Values
	}
	return s.Kind.String()
}

// Type is the knob's type as `dbgauge list` and docs/knobs.md show it: its
// Form ("switch" for a switch), ending in "[,...]" when a comma list makes
// it a matrix axis.
func (s Spec) Type() string {
	t := s.Form()
	if s.Kind == Switch {
		t = s.Kind.String()
	}
	if s.Axis() && !s.Repeat {
		t += ListMark
	}
	return t
}

// Line is the knob's usage on one line: a usage of several lines (--db's
// forms, one a line) has its later lines joined by commas.
func (s Spec) Line() string {
	first, rest, ok := strings.Cut(s.Usage, "\n")
	if !ok {
		return s.Usage
	}
	return first + " " + strings.Join(strings.Split(rest, "\n"), ", ")
}

// ListMark ends the Type of a knob that takes a comma list.
const ListMark = "[,...]"

// Values holds the value of each knob that the user set, by name. Unset knobs
// take their Spec's default through Get.
type Values struct {
	set   map[string]string
	specs map[string]Spec
}

// NewValues returns values for the given specs.
func NewValues(specs ...[]Spec) *Values {
	v := &Values{set: map[string]string{}, specs: map[string]Spec{}}
	for _, list := range specs {
		for _, s := range list {
			v.specs[s.Name] = s
		}
	}
	return v
}

// Set records a value the user gave. For a repeatable knob it appends.
func (v *Values) Set(name, value string) {
	if s, ok := v.specs[name]; ok && s.Repeat {
		if old, ok := v.set[name]; ok {
			value = old + "\n" + value
		}
	}
	v.set[name] = value
}

// Declares reports whether name is one of the knobs v was made for.
func (v *Values) Declares(name string) bool {
	_, ok := v.specs[name]
	return ok
}

// Get returns the value given for name, or its default.
func (v *Values) Get(name string) string {
	if s, ok := v.set[name]; ok {
		return s
	}
	return v.specs[name].Default
}

// List returns the values of a repeatable knob, in the order given.
func (v *Values) List(name string) []string {
	s, ok := v.set[name]
	if !ok || s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// IsSet reports whether the user gave name explicitly.
func (v *Values) IsSet(name string) bool {
	_, ok := v.set[name]
	return ok
}

// Explicit returns the knobs the user set, sorted by name, for the record.
func (v *Values) Explicit() map[string]string {
	out := make(map[string]string, len(v.set))
	for k, s := range v.set {
		out[k] = s
	}
	return out
}

// Typed returns the knobs the user set, each typed as its Spec declares: an
// Int as an int64, a Number as a float64, a Switch as a bool, a repeatable
// knob as its list, the rest (and a value that does not parse: the plan
// refuses it) as its text. For the result's record.
func (v *Values) Typed() map[string]any {
	out := make(map[string]any, len(v.set))
	for name, s := range v.set {
		spec := v.specs[name]
		out[name] = s
		switch {
		case spec.Repeat:
			out[name] = v.List(name)
		case spec.Kind == Int:
			if n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64); err == nil {
				out[name] = n
			}
		case spec.Kind == Number:
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				out[name] = f
			}
		case spec.Kind == Switch:
			if b, err := strconv.ParseBool(s); err == nil {
				out[name] = b
			}
		}
	}
	return out
}

// Names returns the declared knob names, sorted.
func (v *Values) Names() []string {
	out := make([]string, 0, len(v.specs))
	for k := range v.specs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Int parses the knob name as a whole number within [lo, hi].
func (v *Values) Int(name string, lo, hi int64) (int64, error) {
	s := v.Get(name)
	n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil {
		return 0, Bad(fmt.Sprintf("give a whole number, e.g. --%s %d", name, clamp(lo, hi)),
			"--%s %q is not a whole number", name, s)
	}
	if n < lo || n > hi {
		return 0, Bad(fmt.Sprintf("give a value from %d to %d", lo, hi), "--%s %d is out of range", name, n)
	}
	return n, nil
}

func clamp(lo, hi int64) int64 {
	if lo > 1 {
		return lo
	}
	if hi < 10 {
		return hi
	}
	return 10
}

// Float parses the knob name as a number ≥ 0.
func (v *Values) Float(name string) (float64, error) {
	s := v.Get(name)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, Bad(fmt.Sprintf("give a number ≥ 0, e.g. --%s 100", name), "--%s %q is not a number ≥ 0", name, s)
	}
	return f, nil
}

// Duration parses the knob name as a duration ≥ 0 ("30s", "5m", "1h30m").
// A bare number is refused: its unit would be a guess.
func (v *Values) Duration(name string) (time.Duration, error) {
	s := v.Get(name)
	d, err := ParseDuration(s)
	if err != nil {
		return 0, Bad(fmt.Sprintf("give a duration with its unit, e.g. --%s 30s, 5m or 1h", name),
			"--%s %q is not a duration", name, s)
	}
	return d, nil
}

// ParseDuration parses a non-negative duration with a unit; "0" is allowed.
func ParseDuration(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %s", s)
	}
	return d, nil
}

// Bool parses the knob name as a switch.
func (v *Values) Bool(name string) (bool, error) {
	s := v.Get(name)
	if s == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, Bad("give true or false", "--%s %q is not true or false", name, s)
	}
	return b, nil
}

// Choice parses the knob name as one of the words its Spec declares.
func (v *Values) Choice(name string) (string, error) {
	s := v.Get(name)
	allowed := v.specs[name].Choices
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", Bad("give one of "+strings.Join(allowed, ", "), "--%s %q is not a known value", name, s)
}

// Error is bad input: what was wrong and what to do about it. The cli prints
// it on one line and exits with status 2.
type Error struct {
	What string // what was wrong
	Hint string // what to do
}

// Bad returns an *Error saying what was wrong and what to do.
func Bad(hint, what string, args ...any) *Error {
	return &Error{What: fmt.Sprintf(what, args...), Hint: hint}
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return e.What
	}
	return e.What + ": " + e.Hint
}

// sizeUnits are the suffixes ParseSize knows. KB, MB, GB and TB are powers
// of 1024, as PostgreSQL and MariaDB read them in their own settings.
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// ParseSize parses a size in bytes: "8192", "64KiB", "256MB", "1.5GiB"
// (KB = KiB = 1024 bytes; case does not matter). It refuses negative
// sizes, sizes of 2^62 bytes or more and fractions of a byte.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range sizeUnits {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	t = strings.ReplaceAll(t, "_", "")
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 || n >= (1<<62)/mult {
			return 0, fmt.Errorf("size %q is out of range", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || t == "" || strings.ContainsAny(t, "eEnNxXpP") {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	b := f * float64(mult)
	if !(b >= 0 && b < 1<<62) {
		return 0, fmt.Errorf("size %q is out of range", s)
	}
	if b != float64(int64(b)) {
		return 0, fmt.Errorf("size %q is not a whole number of bytes", s)
	}
	return int64(b), nil
}

// FormatSize writes n bytes in the largest binary unit that divides it:
// 268435456 is "256MiB", 1000 is "1000B".
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// Size parses the knob name as a size in bytes ("256MB", "64KiB") within
// [lo, hi].
func (v *Values) Size(name string, lo, hi int64) (int64, error) {
	s := v.Get(name)
	n, err := ParseSize(s)
	if err != nil {
		return 0, Bad(fmt.Sprintf("give a size, e.g. --%s 256MB, 64KiB or 1GiB (KB, MB, GB are powers of 1024)", name),
			"--%s %q is not a size", name, s)
	}
	if n < lo || n > hi {
		return 0, Bad(fmt.Sprintf("give a size from %s to %s", FormatSize(lo), FormatSize(hi)), "--%s %s is out of range", name, s)
	}
	return n, nil
}
