// Package testenv is what a test asks of the machine it runs on: a server,
// a tool or a kernel ability it needs. Where one is missing the test skips,
// saying what is missing and how to get it; under CI=true it fails instead,
// because .ci/run installs everything the suite needs there and a skip
// would hide a test that never ran. Build compiles a main package for a
// test that runs it as a user would. Only test files import it (archtest).
package testenv

import (
	"os"
	"testing"
)

// CI reports whether the tests run in CI (CI=true, as .ci/run and most CI
// services set it), where nothing the suite needs may be missing.
func CI() bool { return os.Getenv("CI") == "true" }

// Need skips t (or fails it in CI) when err, from the function that looks
// for something t needs (postgres.FindServer, powerloss.Available, …), says
// it is missing; nil: nothing is.
func Need(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		Skip(t, err.Error())
	}
}

// Skip skips t, saying why, or fails it in CI: for a test that cannot run
// because of the machine, never for one that chose not to (-short).
func Skip(t testing.TB, why string) {
	t.Helper()
	if CI() {
		t.Fatalf("skipped in CI, where .ci/run installs what the suite needs: %s", why)
	}
	t.Skip(why)
}
