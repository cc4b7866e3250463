package backend

import (
	"context"
	"strings"

	"github.com/dbgauge/dbgauge/internal/knob"
)

// UpgradeStep is one timed step of an upgrade; Window marks a step during
// which no commit could be made (the old server stopped or being dumped,
// the new one not yet serving).
type UpgradeStep struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Window  bool    `json:"window"`
}

// Upgrader is a managed server that can be moved to a newer version of its
// engine in place (dbgauge upgrade): after Upgrade the same DB serves the
// new version on the upgraded data, and its Close stops that server and
// removes what is left of both. Not safe for use while clients run.
type Upgrader interface {
	// Upgrade stops the server and upgrades its data to the version the
	// managed form to names ("postgres:managed@18") by method, starting the
	// new version with the settings the old one had; each step timed.
	Upgrade(ctx context.Context, to, method string) ([]UpgradeStep, error)
	// RowCounts counts the rows of each of the user's tables.
	RowCounts(ctx context.Context) (map[string]int64, error)
}

// NotInstalled is the one-line refusal of a version asked for with
// @VERSION that no folder searched holds: engine ("MariaDB"), the program
// looked for ("mariadbd"), what a folder must hold, the folders searched
// and the versions seen there ("10.11 in /usr/sbin"), and the form that
// names a folder instead.
func NotInstalled(engine, asked, program, holding string, searched, seen []string, dirForm string) error {
	found := "none found"
	if len(seen) > 0 {
		found = "found " + strings.Join(seen, ", ")
	}
	return knob.Bad("install it, or give its folder: --db "+dirForm+" (DIR holding "+holding+")",
		"%s %s is not installed: no %s of that version in %s (%s)", engine, asked, program, strings.Join(searched, ", "), found)
}

// ManagedForm is the --db value that starts a version found in bin:
// prefix@release, or prefix@bin where its release could not be read.
func ManagedForm(prefix, release, bin string) string {
	if release == "" {
		return prefix + "@" + bin
	}
	return prefix + "@" + release
}

// InstalledIn is the server of version (release: its --db form's part)
// found in bin, as `dbgauge versions` lists it: from the system's packages
// when bin is /usr/sbin, else from elsewhere (the engine says what).
func InstalledIn(prefix, version, release, bin, elsewhere string) Installed {
	if bin == "/usr/sbin" {
		elsewhere = "the system's packages"
	}
	return Installed{Version: version, Bin: bin, Source: elsewhere, Form: ManagedForm(prefix, release, bin)}
}

// Installed is one version of an engine's server found on this machine.
type Installed struct {
	Version string `json:"version"` // as its server reports it ("15.18 (Debian 15.18-0+deb12u1)")
	Bin     string `json:"bin"`     // the folder of its programs
	Source  string `json:"source"`  // where it came from
	Form    string `json:"form"`    // the --db value that starts it
}
