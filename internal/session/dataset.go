package session

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dbgauge/dbgauge/internal/backend"
	"github.com/dbgauge/dbgauge/internal/knob"
	"github.com/dbgauge/dbgauge/internal/result"
	"github.com/dbgauge/dbgauge/internal/workload"
)

// datasetPlan is --dataset Nx (--dataset-of cache|ram): sized once the
// engine is open, from the cache it reads back (docs/data.md).
type datasetPlan struct {
	asked    string
	multiple float64
	of       string // "cache" or "ram"
}

// datasetConfig reads --dataset and --dataset-of, refusing a workload that
// cannot size its data, a size given twice, and a cache the engine lacks.
func (p *Plan) datasetConfig(v *knob.Values) error {
	of, err := v.Choice("dataset-of")
	if err != nil {
		return err
	}
	if !v.IsSet("dataset") {
		if v.IsSet("dataset-of") {
			return knob.Bad("add --dataset Nx, e.g. --dataset 2x", "--dataset-of %s says what --dataset multiplies, and there is no --dataset", of)
		}
		return nil
	}
	asked := strings.TrimSpace(v.Get("dataset"))
	mult, err := parseMultiple(asked)
	if err != nil {
		return err
	}
	sz, ok := p.w.(workload.Sizer)
	if !ok {
		return knob.Bad("drop --dataset, or use a workload that sizes its data (kv)", "--dataset %s: %s cannot size its data to a number of bytes", asked, p.wspec.Name)
	}
	for _, k := range sz.SizeKnobs() {
		if v.IsSet(k) {
			return knob.Bad("give either --dataset or --"+k+", not both", "--dataset %s and --%s %s both say how big the data is", asked, k, v.Get(k))
		}
	}
	if of == "cache" && p.bspec.Cache == "" {
		return knob.Bad("use --dataset-of ram, or an engine with a cache of its own ("+engines(hasCache)+")",
			"--dataset %s of the cache: %s", asked, p.bspec.NoCache)
	}
	p.dataset = &datasetPlan{asked: asked, multiple: mult, of: of}
	return nil
}

// parseMultiple parses "4x", "0.25x" (also "4" and "4×"): a positive multiple.
func parseMultiple(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "x"), "X"), "×")
	f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) || f > 1e6 {
		return 0, knob.Bad("write it as a multiple, e.g. --dataset 0.25x, 1x or 4x", "--dataset %q is not a positive multiple", s)
	}
	return f, nil
}

// datasetSizing is --dataset: the data sized from the engine's cache read
// back (or the machine's memory) before the load, and its size measured
// after it, with how close it came (docs/data.md).
type datasetSizing struct{}

func (datasetSizing) beforeLoad(ctx context.Context, s *session) error { return s.sizeData(ctx) }

func (datasetSizing) loaded(ctx context.Context, s *session, db backend.DB) (backend.DB, error) {
	s.measureDataset(ctx)
	return db, nil
}

// sizeData resolves --dataset into the workload's size, from the cache the
// engine read back (or the machine's memory). Called after the engine is
// open and before the load; a cache of unknown size is bad input.
func (s *session) sizeData(ctx context.Context) error {
	s.res.Dataset.EmptyBytes, _ = s.dataBytes(ctx)
	d := s.dataset
	if d == nil {
		return nil
	}
	base := s.res.Engine.CacheBytes
	if d.of == "ram" {
		base = int64(s.res.Environment.MemoryB)
	}
	if base <= 0 {
		what := s.bspec.Name + " did not tell the size of its cache"
		if d.of == "ram" {
			what = "the machine's memory could not be read"
		}
		return knob.Bad("give --records instead, or --dataset-of ram", "--dataset %s of the %s: %s", d.asked, d.of, what)
	}
	bytes := int64(d.multiple * float64(base))
	overhead := s.bspec.RecordOverhead
	z := s.w.(workload.Sizer).SizeFor(bytes, overhead)
	s.res.Dataset.Target = &result.DatasetTarget{Asked: d.asked, Of: d.of, Multiple: d.multiple, BaseBytes: base, Bytes: bytes,
		Items: z.Items, Unit: z.Unit, ItemBytes: z.ItemBytes, Overhead: overhead}
	s.res.Config.Workloads = s.w.Config()
	s.obs.Note(fmt.Sprintf("--dataset %s of the %s (%s): %d %s of about %d bytes", d.asked, d.of, humanBytes(bytes), z.Items, z.Unit, z.ItemBytes))
	return nil
}

// dataBytes is the data's size: the engine's own figure where it has one,
// else the size of its files; from says which ("" when neither is known).
func (s *session) dataBytes(ctx context.Context) (n int64, from string) {
	if dz, ok := s.db.(backend.DataSizer); ok {
		n, err := dz.DataBytes(ctx)
		if err == nil && n > 0 {
			return n, "engine"
		}
		if err != nil {
			s.obs.Note("the data's size could not be read from the engine: " + err.Error())
		}
	}
	if s.res.Engine.Path != "" {
		return sizeOf(s.res.Engine.Path), "files"
	}
	return 0, ""
}

// measureDataset records the data's size after the load, less its size
// before (catalogs, an empty file), and with --dataset how close it came.
func (s *session) measureDataset(ctx context.Context) {
	ds := &s.res.Dataset
	n, from := s.dataBytes(ctx)
	ds.Bytes, ds.BytesFrom = n, from
	if ds.Reused || ds.EmptyBytes >= n {
		ds.EmptyBytes = 0
	} else {
		ds.Bytes -= ds.EmptyBytes
	}
	if t := ds.Target; t != nil && t.Bytes > 0 && ds.Bytes > 0 {
		t.Achieved = float64(ds.Bytes) / float64(t.Bytes)
	}
}

// cacheCounters are the engines' counters of cache lookups: hits, and
// either the misses (lookups = hits + misses) or the lookups themselves.
var cacheCounters = []struct{ hits, misses, lookups string }{
	{hits: "blks_hit", misses: "blks_read"},                         // PostgreSQL: shared_buffers hits, blocks read
	{hits: "", misses: "pool_reads", lookups: "pool_read_requests"}, // InnoDB: requests, and those read from disk
	{hits: "", misses: "page_reads", lookups: "page_fetches"},       // Firebird: fetches, and those read from disk
	{hits: "block_cache_hits", misses: "block_cache_misses"},        // pebble's block cache
	{hits: "cache_hits", misses: "cache_misses"},                    // SQLite's page cache
	{hits: "cache_hits", lookups: "cache_accesses"},                 // gdbm's bucket cache
}

// cacheHits sets the summary's cache hit ratio from the engine's counters
// over the measure phase, where it counts them.
func cacheHits(sum *result.Summary, delta map[string]int64) {
	for _, c := range cacheCounters {
		var hits, lookups int64
		switch h, okH := delta[c.hits]; {
		case c.lookups != "":
			n, ok := delta[c.lookups]
			if !ok {
				continue
			}
			lookups = n
			if c.hits != "" && okH {
				hits = h
			} else if m, ok := delta[c.misses]; ok {
				hits = n - m
			} else {
				continue
			}
		default:
			m, okM := delta[c.misses]
			if !okH || !okM {
				continue
			}
			hits, lookups = h, h+m
		}
		if lookups <= 0 || hits < 0 {
			return
		}
		pct := 100 * float64(hits) / float64(lookups)
		sum.CacheHitPct, sum.CacheLookups = &pct, lookups
		return
	}
}

// humanBytes is a size for a note: "32 MiB", "1.5 GiB".
func humanBytes(n int64) string {
	f, u := float64(n), "B"
	for _, next := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if f < 1024 {
			break
		}
		f, u = f/1024, next
	}
	return fmt.Sprintf("%.4g %s", f, u)
}
