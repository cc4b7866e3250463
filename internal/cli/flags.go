package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/session"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// listHelp says, under a workload's help, how a knob becomes a matrix axis.
const listHelp = "A flag marked \"" + axisNote + "\" takes a comma list: each value is a cell of a matrix,\n" +
	"every combination of the lists is run (--clients 1,8,64 --durability sync,off: six cells)."

// knobFlag is a knob bound as a flag: it keeps the text given, to be parsed
// in one place (the workload's or the session's config), never by the flag
// package, and shows the knob's declared type in --help.
type knobFlag struct {
	spec knob.Spec
	one  bool     // the command takes one value: no list makes a matrix here
	vals []string // a repeatable knob's values, in order
	val  string
}

// knob is the knob the flag was bound from, and whether a comma list makes
// it a matrix axis in this command (for --help).
func (f *knobFlag) knob() (knob.Spec, bool) { return f.spec, f.spec.Axis() && !f.one }

func (f *knobFlag) String() string {
	if f.spec.Repeat {
		return strings.Join(f.vals, "\n")
	}
	return f.val
}

func (f *knobFlag) Set(s string) error {
	if f.spec.Repeat {
		f.vals = append(f.vals, s)
		return nil
	}
	f.val = s
	return nil
}

// Type is the knob's declared type; a switch says "bool", which pflag
// shows as a flag without a value, as its own bool flags.
func (f *knobFlag) Type() string {
	if f.spec.IsSwitch() {
		return "bool"
	}
	return f.spec.Type()
}

// The pflag.SliceValue of a repeatable knob: setValues reads each value.
type repeatFlag struct{ *knobFlag }

func (f repeatFlag) Append(s string) error    { return f.Set(s) }
func (f repeatFlag) Replace(s []string) error { f.vals = append([]string(nil), s...); return nil }
func (f repeatFlag) GetSlice() []string       { return append([]string(nil), f.vals...) }

// bind declares every knob as a flag of its declared type (shown in
// --help: "int", "sync|lazy|off", "[,...]" when a list makes a matrix axis).
func bind(fs *pflag.FlagSet, specs []knob.Spec) { bindAs(fs, specs, false) }

// bindOne binds knobs for a command that takes one value of each (load,
// check: no matrix).
func bindOne(fs *pflag.FlagSet, specs []knob.Spec) { bindAs(fs, specs, true) }

func bindAs(fs *pflag.FlagSet, specs []knob.Spec, one bool) {
	for _, k := range specs {
		f := &knobFlag{spec: k, one: one, val: k.Default}
		var v pflag.Value = f
		if k.Repeat {
			v = repeatFlag{f}
		}
		fl := fs.VarPF(v, k.Name, k.Short, k.Usage)
		if k.IsSwitch() {
			fl.NoOptDefVal = "true"
		}
	}
}

// runKnobs are the knobs a workload's run takes, in --help's order: the
// workload's own, the common ones, the backends'.
func runKnobs(spec workload.Spec) []knob.Spec {
	return slices.Concat(spec.Knobs, session.CommonKnobs(spec), session.BackendKnobs())
}

// knobsFor are the knobs of a workload's run that another command reads
// too (dbgauge load, dbgauge check).
func knobsFor(spec workload.Spec, u knob.Use) []knob.Spec {
	return slices.DeleteFunc(runKnobs(spec), func(k knob.Spec) bool { return !k.UsedBy(u) })
}

// flagsOnly refuses a positional argument: a workload's command takes flags
// only (example is one of them, for the hint).
func flagsOnly(example string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > 0 {
			return knob.Bad("flags start with --, e.g. "+example, "unexpected argument %q", args[0])
		}
		return nil
	}
}
