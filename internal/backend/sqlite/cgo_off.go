//go:build !cgo

package sqlite

// Without cgo, go-sqlite3 compiles to a stub that fails at run time: say so
// before trying.
const cgoEnabled = false
