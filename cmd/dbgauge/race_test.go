//go:build race

package main

// raceBuild: the tests run under the race detector, so the dbgauge they
// build is a race build too, from the packages the test build compiled.
const raceBuild = true
