package backend

// Change is a server-wide setting dbgauge changed on a server of the
// user's for a run, and whether it was set back.
type Change struct {
	Key      string
	Was      string // read back before the run changed it
	Set      string // read back after the run set it
	Restored bool   // set back to Was when the engine closed
	Err      string // why it could not be set back
}

// Changer is an optional ability of a DB on a server of the user's: the
// server-wide settings Open changed (MariaDB's SET GLOBAL), which Close sets
// back whatever ended the run (an error, an interrupt). A failed Open has
// set back what it changed before it returns.
type Changer interface {
	Changes() []Change
}
