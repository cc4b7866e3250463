package gdbm

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
)

// Stats returns dbgauge's counters (gdbm counts nothing of its own but its
// bucket cache) and the shape of every file: records, buckets, directory
// depth, size. A hash file degrades as its buckets fill and split: the
// per-table numbers show it. gdbm_count reads every bucket: the mutex is
// held for a moment per table.
func (d *db) Stats(context.Context) (map[string]int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, cached, err := d.sample()
	if err != nil {
		return nil, err
	}
	var records, buckets, size int64
	for _, t := range d.files() {
		st, err := os.Stat(t.f.path)
		if err != nil {
			return nil, classify(err)
		}
		size += st.Size()
		if t == d.catalog {
			continue
		}
		n, err := t.f.count()
		if err != nil {
			return nil, classify(err)
		}
		b, err := t.f.buckets()
		if err != nil {
			return nil, classify(err)
		}
		fi, err := t.f.info()
		if err != nil {
			return nil, classify(err)
		}
		records, buckets = records+n, buckets+b
		m["records."+t.name] = n
		m["buckets."+t.name] = b
		m["dir_depth."+t.name] = int64(fi.DirDepth)
		m["file_bytes."+t.name] = st.Size()
		if b > 0 && fi.BucketSize > 0 {
			m["bucket_fill_pct."+t.name] = 100 * n / (b * int64(fi.BucketSize))
		}
	}
	m["tables"] = int64(len(d.tables))
	m["records"] = records
	m["buckets"] = buckets
	m["file_bytes"] = size
	m["cache_buckets"] = cached
	return m, nil
}

// counted is the counters dbgauge keeps.
func (d *db) counted() map[string]int64 {
	m := map[string]int64{
		"commits":          d.commits.Load(),
		"write_xacts":      d.writeXacts.Load(),
		"rollbacks":        d.rollbacks.Load(),
		"puts":             d.puts.Load(),
		"deletes":          d.deletes.Load(),
		"commit_syncs":     d.commitSyncs.Load(),
		"background_syncs": d.backgroundSyncs.Load(),
	}
	m["flushes"] = m["commit_syncs"] + m["background_syncs"]
	return m
}

var _ backend.Sampler = (*db)(nil)

// Sample returns the cumulative counters every second: dbgauge's, and the
// one thing gdbm counts itself, its bucket cache's accesses and hits
// (gdbm_get_cache_stats, since each file was opened, summed over the
// files open now: a table dropped takes its counts with it). The files'
// shapes, which Stats reads bucket by bucket, are levels and are left out.
func (d *db) Sample(context.Context) (map[string]int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, _, err := d.sample()
	return m, err
}

// sample is Sample's counters, read with d.mu held, and the buckets the
// files' caches hold now (a level, Stats' cache_buckets).
func (d *db) sample() (map[string]int64, int64, error) {
	if d.closed {
		return nil, 0, errClosed
	}
	m := d.counted()
	var accesses, hits, cached int64
	for _, t := range d.files() {
		a, h, c := t.f.cacheStats()
		accesses, hits, cached = accesses+a, hits+h, cached+c
	}
	m["cache_accesses"], m["cache_hits"] = accesses, hits
	return m, cached, nil
}

// Integrity walks every key of every file with gdbm_firstkey/gdbm_nextkey
// and fetches each with gdbm_fetch, compares the keys walked with
// gdbm_count, verifies the free-space lists (gdbm_avail_verify) and asks
// gdbm_needs_recovery. It does not run gdbm_recover.
func (d *db) Integrity(context.Context) (bool, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false, "", errClosed
	}
	var problems []string
	more := 0
	problem := func(format string, args ...any) {
		if len(problems) < 5 {
			problems = append(problems, fmt.Sprintf(format, args...))
		} else {
			more++
		}
	}
	files, keys := 0, int64(0)
	for _, t := range d.files() {
		files++
		name := t.name
		if t == d.catalog {
			name = "the catalog"
		}
		if t.f.needsRecovery() {
			problem("%s (%s): gdbm says it needs recovery", name, t.f.path)
			continue
		}
		var walked int64
		err := t.f.walk(func(k, _ []byte, found bool) error {
			walked++
			if !found {
				problem("%s: gdbm_nextkey returned key %q, which gdbm_fetch cannot find", name, k)
			}
			return nil
		})
		keys += walked
		if err != nil {
			problem("%s: the walk stopped after %d keys: %v", name, walked, err)
			continue
		}
		n, err := t.f.count()
		switch {
		case err != nil:
			problem("%s: gdbm_count: %v", name, err)
		case n != walked:
			problem("%s: gdbm_count says %d records, the walk found %d", name, n, walked)
		}
		if err := t.f.verifyAvail(); err != nil {
			problem("%s: gdbm_avail_verify: %v", name, err)
		}
	}
	if more > 0 {
		problems = append(problems, fmt.Sprintf("and %d more", more))
	}
	what := fmt.Sprintf("gdbm: %d files (the catalog and %d tables), %d keys walked with gdbm_firstkey/gdbm_nextkey and each fetched, counts against gdbm_count, free lists by gdbm_avail_verify",
		files, len(d.tables), keys)
	if len(problems) == 0 {
		return true, what + ": ok", nil
	}
	return false, what + ": " + strings.Join(problems, "; "), nil
}
