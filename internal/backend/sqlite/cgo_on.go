//go:build cgo

package sqlite

const cgoEnabled = true
