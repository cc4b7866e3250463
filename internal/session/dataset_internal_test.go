package session

import (
	"testing"

	"github.com/dbgauge/dbgauge/internal/result"
)

// TestCacheHits: each engine's counters make the same hit ratio.
func TestCacheHits(t *testing.T) {
	for name, c := range map[string]struct {
		delta map[string]int64
		want  float64 // -1: none
	}{
		"postgres":   {map[string]int64{"blks_hit": 900, "blks_read": 100}, 90},
		"mariadb":    {map[string]int64{"pool_read_requests": 1000, "pool_reads": 250}, 75},
		"firebird":   {map[string]int64{"page_fetches": 400, "page_reads": 100}, 75},
		"pebble":     {map[string]int64{"block_cache_hits": 1, "block_cache_misses": 3}, 25},
		"gdbm":       {map[string]int64{"cache_hits": 50, "cache_accesses": 100}, 50},
		"no-lookups": {map[string]int64{"blks_hit": 0, "blks_read": 0}, -1},
		"none":       {map[string]int64{"commits": 5}, -1},
	} {
		t.Run(name, func(t *testing.T) {
			var s result.Summary
			cacheHits(&s, c.delta)
			switch {
			case c.want < 0 && s.CacheHitPct != nil:
				t.Errorf("hit ratio %v from %v", *s.CacheHitPct, c.delta)
			case c.want >= 0 && (s.CacheHitPct == nil || *s.CacheHitPct != c.want):
				t.Errorf("hit ratio %v, want %v", s.CacheHitPct, c.want)
			}
		})
	}
}
