package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// helpWidth is the width --help wraps its flags' descriptions to.
const helpWidth = 100

// axisNote ends the description of a knob whose comma list makes a matrix axis.
const axisNote = "a list makes a matrix axis"

// usage writes a command's usage: cobra's layout, with the flags as
// flagUsages shows them. Every command inherits it from the root.
func usage(c *cobra.Command) error {
	b := &strings.Builder{}
	b.WriteString("Usage:\n")
	if c.Runnable() {
		fmt.Fprintf(b, "  %s\n", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(b, "  %s [command]\n", c.CommandPath())
	}
	if c.HasExample() {
		fmt.Fprintf(b, "\nExamples:\n%s\n", c.Example)
	}
	if c.HasAvailableSubCommands() {
		b.WriteString("\nAvailable Commands:\n")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() || sub.Name() == "help" {
				fmt.Fprintf(b, "  %-*s %s\n", c.NamePadding(), sub.Name(), sub.Short)
			}
		}
	}
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(b, "\nFlags:\n%s", flagUsages(c.LocalFlags()))
	}
	if c.HasAvailableInheritedFlags() {
		fmt.Fprintf(b, "\nGlobal Flags:\n%s", flagUsages(c.InheritedFlags()))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(b, "\nUse \"%s [command] --help\" for more information about a command.\n", c.CommandPath())
	}
	_, err := fmt.Fprint(c.OutOrStderr(), b.String())
	return err
}

// helpFlag is a flag as --help shows it: its names and value on the left,
// what it does (one or more lines) on the right.
type helpFlag struct {
	left  string
	lines []string
}

// flagUsages lists the flags of fs in their declared order: each with its
// one-letter name, its value's form (a knob's type and choices; nothing for
// a switch), what it does, its default, and whether a comma list makes it
// a matrix axis. Descriptions wrap at helpWidth.
func flagUsages(fs *pflag.FlagSet) string {
	var flags []helpFlag
	col := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		form, desc, notes := plainForm(f)
		if k, ok := f.Value.(interface{ knob() (knob.Spec, bool) }); ok {
			spec, axis := k.knob()
			form, desc, notes = spec.Form(), spec.Usage, knobNotes(spec, axis)
		}
		if form != "" {
			left += " " + form
		}
		lines := strings.Split(desc, "\n")
		if len(notes) > 0 {
			// "the engine:" (a list follows) becomes "the engine (default sqlite):".
			first, colon := strings.CutSuffix(lines[0], ":")
			lines[0] = first + " (" + strings.Join(notes, "; ") + ")"
			if colon {
				lines[0] += ":"
			}
		}
		flags = append(flags, helpFlag{left: left, lines: lines})
		if n := utf8.RuneCountInString(left); n < 36 {
			col = max(col, n)
		}
	})
	b := &strings.Builder{}
	col += 3
	for _, f := range flags {
		b.WriteString(f.left)
		pad := col - utf8.RuneCountInString(f.left)
		if pad < 2 {
			b.WriteString("\n")
			pad = col
		}
		for i, line := range f.lines {
			indent := col
			if i > 0 {
				indent += 2 // a list's items under its first line
			}
			width := helpWidth - indent
			if i > 0 {
				width -= 2 // room for an item's continuation
			}
			for j, w := range wrap(line, width) {
				switch {
				case i == 0 && j == 0:
					b.WriteString(strings.Repeat(" ", pad))
				case i > 0 && j > 0: // an item that goes on: under its own text
					b.WriteString(strings.Repeat(" ", indent+2))
				default:
					b.WriteString(strings.Repeat(" ", indent))
				}
				b.WriteString(w + "\n")
			}
		}
	}
	return b.String()
}

// knobNotes are what --help adds after a knob's description: its default
// and whether a comma list makes it a matrix axis.
func knobNotes(k knob.Spec, axis bool) []string {
	var notes []string
	if k.Default != "" && (!k.IsSwitch() || k.Default != "false") {
		notes = append(notes, "default "+k.Default)
	}
	if axis {
		notes = append(notes, axisNote)
	}
	return notes
}

// plainForm is the form, description and default of a flag that is no
// knob (--help, --version, --cpuprofile): pflag's own, with Go's type
// names in words.
func plainForm(f *pflag.Flag) (string, string, []string) {
	form, desc := pflag.UnquoteUsage(f)
	switch form {
	case "string":
		form = "text"
	case "int", "int64":
		form = "int"
	}
	var notes []string
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
		notes = append(notes, "default "+f.DefValue)
	}
	return form, desc, notes
}

// wrap breaks s into lines of at most width characters, at spaces.
func wrap(s string, width int) []string {
	width = max(width, 30)
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > width:
			out = append(out, line)
			line = w
		default:
			line += " " + w
		}
	}
	return append(out, line)
}
