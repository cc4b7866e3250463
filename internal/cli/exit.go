package cli

import (
	"fmt"
	"io"
)

// sayExit ends a command's summary on out with the line that gives its exit
// status and why ("exit 1: 2 configurations NOT as documented: …"), and
// returns the status for Main: nil for ExitOK, else an exitError with no
// message of its own, so that the reason is said once, where the summary is.
func sayExit(out io.Writer, code int, why string) error {
	fmt.Fprintf(out, "\nexit %d: %s\n", code, why)
	if code == ExitOK {
		return nil
	}
	return exitError{code: code}
}

// nOf says n things: "1 cycle", "3 cycles".
func nOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
