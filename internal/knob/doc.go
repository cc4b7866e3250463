// Package knob declares the settings a user turns (flags) and parses their
// values. A knob is declared once, as a Spec: its name, its Kind, its
// default, the values it accepts and what it does; the cli binds it as a
// flag, `dbgauge list` and each command's --help print it, and the result
// records what the user set (Values.Typed).
//
// The values given are kept as strings in a Values, by name (Get falls back
// to the default), so that a matrix can give a knob a list of values
// (Spec.Axis). The code that reads a knob parses it when it makes its typed
// config (Int, Float, Duration, Bool, Choice, Size); a value that does not
// parse is an *Error (Bad) saying what was wrong and what to do, which the
// cli prints on one line, exiting with status 2.
package knob
