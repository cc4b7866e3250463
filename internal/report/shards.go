package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/dbgauge/dbgauge/internal/result"
)

// Shards writes a merged result's shards side by side (is one machine the
// bottleneck?) and how far apart they began; nothing for another result.
func Shards(out io.Writer, r *result.Result) {
	m := r.Merged
	if m == nil {
		return
	}
	clock := "by their own clocks (a shard did not measure its offset to the server)"
	if m.ClockCorrected {
		clock = "by the server's clock"
	}
	fmt.Fprintf(out, "\nshards: %d of %d merged; measure phases began %.3f s apart %s\n", len(m.Shards), m.Count, m.StartSpreadSeconds, clock)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "shard\thost\tclients\t%s\tok\tfailed\tp50 ms\tp99 ms\tclock offset\tlate\tharness\t\n", r.Config.UnitRate)
	for _, s := range m.Shards {
		off, late, harness := ShardFacts(s)
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.1f\t%d\t%d\t%.3f\t%.3f\t%s\t%s\t%s\t\n", s.Index, s.Environment.Hostname, s.Clients,
			s.Summary.Rate, s.Summary.OK, s.Summary.Failed, float64(s.Summary.P50Us)/1000, float64(s.Summary.P99Us)/1000, off, late, harness)
	}
	tw.Flush()
	if m.Apart != "" {
		fmt.Fprintf(out, "  NOTE: %s\n", m.Apart)
	}
	for _, miss := range m.Missing {
		fmt.Fprintf(out, "  left out: %s\n", miss)
	}
	if m.Partial {
		fmt.Fprintln(out, "  PARTIAL: the merged result is not the whole run")
	}
}

// ShardFacts are a shard's clock offset to the server (± half the round
// trip of its reading), how late it began after --start-at, and whether
// the harness could have been its limit; "-" where not known.
func ShardFacts(s result.MergedShard) (offset, late, harness string) {
	offset, late, harness = "-", "-", "-"
	if c := s.Shard.Clock; c != nil && c.Measured {
		offset = fmt.Sprintf("%+.3f ms ±%.3f", float64(c.OffsetUs)/1000, float64(c.RTTUs)/2000)
	}
	if s.Shard.StartAt != nil {
		late = fmt.Sprintf("%.1f ms", s.Shard.LateSeconds*1000)
	}
	if h := s.Harness; h != nil && h.Limit != "" {
		harness = h.Limit
	}
	return offset, late, harness
}
