package backend

import "context"

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

// Installed is one version of an engine's server found on this machine.
type Installed struct {
	Version string `json:"version"` // as its server reports it ("15.18 (Debian 15.18-0+deb12u1)")
	Bin     string `json:"bin"`     // the folder of its programs
	Source  string `json:"source"`  // where it came from
	Form    string `json:"form"`    // the --db value that starts it
}
