package sqlite

import (
	"context"
	"fmt"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// filesPerConn is what a connection keeps open: the database and its WAL
// (the shared-memory index is shared by the process's connections).
const filesPerConn = 2

// manyCaches is when the connections' page caches together are worth a
// note: a quarter of a GiB in dbgauge's own process.
const manyCaches = 256 << 20

var _ backend.Limiter = (*db)(nil)

// Limits checks the open files of conns connections, and notes what SQLite
// makes of many connections in one process: a page cache each, and one
// writer at a time.
func (d *db) Limits(ctx context.Context, conns int, writes bool) ([]string, error) {
	if err := backend.CheckFiles(conns, filesPerConn); err != nil {
		return nil, err
	}
	e, err := d.Engine(ctx)
	if err != nil {
		return nil, err
	}
	var notes []string
	if total := int64(conns) * e.CacheBytes; total >= manyCaches && e.Settings["mmap_size"] == "0" {
		notes = append(notes, fmt.Sprintf("%d connections, each with a page cache of %s (cache_size %s): up to %s in dbgauge's own process; "+
			"--cache sizes each one, --set mmap_size=BYTES lets them all read the same pages through the OS page cache instead",
			conns, mib(e.CacheBytes), e.Settings["cache_size"], mib(total)))
	}
	if writes && conns > 1 {
		notes = append(notes, fmt.Sprintf("SQLite lets one connection write at a time: the %d clients' writes wait in turn for the database's write lock "+
			"(BEGIN IMMEDIATE, busy_timeout %s ms), so more clients add waiting, not writes", conns, e.Settings["busy_timeout"]))
	}
	return notes, nil
}

// mib writes a size in MiB, or GiB from 1 GiB on.
func mib(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
