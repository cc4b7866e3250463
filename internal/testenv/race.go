//go:build race

package testenv

// raceBuild: the tests run under the race detector, so what Build compiles
// is a race build too, from the packages the test build compiled.
const raceBuild = true
