//go:build !cgo

package sqlite

// engineMemory is unknown without cgo (and SQLite does not run then).
func engineMemory() int64 { return 0 }
