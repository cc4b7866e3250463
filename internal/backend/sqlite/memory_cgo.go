//go:build cgo

package sqlite

/*
extern long long sqlite3_memory_used(void);
*/
import "C"

// engineMemory returns the bytes SQLite has allocated and not freed, across
// every connection of the process: page caches, schemas, statements.
func engineMemory() int64 { return int64(C.sqlite3_memory_used()) }
