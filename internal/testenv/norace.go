//go:build !race

package testenv

// raceBuild: the tests run without the race detector.
const raceBuild = false
