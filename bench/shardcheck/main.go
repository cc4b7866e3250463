// Command shardcheck checks a merged result against its shards, apart from
// dbgauge merge's own code: the merged unit count must be the sum of the
// shards', and every histogram of the merged measure phase (all units, each
// kind, each operation) the merge of the shards' histograms, every count.
// bench/shards-netns.sh runs it after each merge.
//
//	shardcheck MERGED_DIR SHARD_DIR...
package main

import (
	"fmt"
	"os"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbgauge/dbgauge/internal/result"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: shardcheck MERGED_DIR SHARD_DIR...")
		os.Exit(2)
	}
	if err := check(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stdout, "FAIL: "+err.Error())
		os.Exit(1)
	}
}

func check(mergedDir string, shardDirs []string) error {
	merged, err := result.Load(mergedDir)
	if err != nil {
		return err
	}
	mm := merged.Phase("measure")
	if mm == nil {
		return fmt.Errorf("%s: no measure phase", mergedDir)
	}
	var ok int64
	var phases []*result.Phase
	for _, d := range shardDirs {
		r, err := result.Load(d)
		if err != nil {
			return err
		}
		p := r.Phase("measure")
		if p == nil {
			return fmt.Errorf("%s: no measure phase", d)
		}
		ok += p.OK
		phases = append(phases, p)
	}
	if mm.OK != ok || merged.Summary.OK != ok {
		return fmt.Errorf("merged ok %d (summary %d), the shards' sum %d", mm.OK, merged.Summary.OK, ok)
	}
	n, counts := 0, int64(0)
	lists := []struct {
		merged []result.Latency
		of     func(p *result.Phase) []result.Latency
	}{
		{[]result.Latency{mm.All}, func(p *result.Phase) []result.Latency { return []result.Latency{p.All} }},
		{mm.Units, func(p *result.Phase) []result.Latency { return p.Units }},
		{mm.Ops, func(p *result.Phase) []result.Latency { return p.Ops }},
	}
	for _, l := range lists {
		for _, want := range l.merged {
			whole := hdrhistogram.New(1, 1, 1)
			first := true
			for _, p := range phases {
				for _, sl := range l.of(p) {
					if sl.Name != want.Name || sl.Count == 0 {
						continue
					}
					h, err := hdrhistogram.Decode([]byte(sl.Hist))
					if err != nil {
						return fmt.Errorf("%s: %w", sl.Name, err)
					}
					if first {
						whole, first = h, false
						continue
					}
					if d := whole.Merge(h); d != 0 {
						return fmt.Errorf("%s: %d values dropped", sl.Name, d)
					}
				}
			}
			if want.Count == 0 && first {
				continue
			}
			got, err := hdrhistogram.Decode([]byte(want.Hist))
			if err != nil {
				return fmt.Errorf("merged %s: %w", want.Name, err)
			}
			gb, wb := got.Distribution(), whole.Distribution()
			if len(gb) != len(wb) {
				return fmt.Errorf("%s: %d buckets merged, %d in the shards' merge", want.Name, len(gb), len(wb))
			}
			for i := range gb {
				if gb[i] != wb[i] {
					return fmt.Errorf("%s: bucket %d is %+v, the shards' merge %+v", want.Name, i, gb[i], wb[i])
				}
			}
			n++
			counts += got.TotalCount()
		}
	}
	fmt.Printf("ok: %d units = Σ %d shards; %d histograms = the merge of theirs, every count (%d values)\n", ok, len(phases), n, counts)
	return nil
}
