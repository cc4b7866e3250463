package cli

import "fmt"

// Debug prints a line a script asked for with debug() on stderr, as
// pgbench prints it (session.Debugger): whatever --quiet says, as the user
// wrote it into the script, and never inside a progress line rewritten in
// place.
func (p *progress) Debug(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(p.env.Stderr, line)
}
